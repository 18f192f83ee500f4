"""The one renderer, `answer_messages`: what a template's prompt promises (its placeholders, its
literal braces, the query and seed delivered whatever it places) is what the model is sent."""

from engine.domain.records import PathDefinition
from engine.stages.answer import answer_messages
from templates import Template, load_templates

QUERY = "How many r's are in 'strawberry'?"


def _path(prompt: str) -> PathDefinition:
    template = Template(id="t", name="T", description="A test path.", prompt=prompt)
    return PathDefinition.from_template(template)


def _body(path: PathDefinition, query: str = QUERY, brief: str | None = "SEED-TEXT") -> str:
    system, user = answer_messages(path, query, brief, None)
    assert system.role == "system"
    return user.content


def test_every_builtin_delivers_the_query_and_the_seed_with_no_placeholder_left() -> None:
    for template in load_templates():
        body = _body(PathDefinition.from_template(template))
        assert QUERY in body, template.id
        assert "SEED-TEXT" in body, template.id
        assert "{query}" not in body, template.id
        assert "{seed}" not in body, template.id


def test_literal_braces_written_double_are_sent_single() -> None:
    body = _body(_path('Reply as JSON: {{"answer": ...}}\n{query}'), query="q", brief=None)
    assert body.startswith('Reply as JSON: {"answer": ...}\nq')


def test_values_are_inserted_verbatim_and_never_parsed_again() -> None:
    hostile = "{seed} {{0}} {query.__class__}"
    body = _body(_path("Notes: {seed}\nQ: {query}"), query=hostile, brief=None)
    assert body == f"Notes: (no background brief)\nQ: {hostile}"


def test_what_the_prompt_does_not_place_is_supplied_after_it() -> None:
    body = _body(_path("Think in steps."), query="2 + 2?", brief="arithmetic")
    assert body.startswith("Think in steps.\n\nQuestion: 2 + 2?\n\nBackground:\n<seed>")
    assert "arithmetic" in body
