"""The shipped templates: enough of them, genuinely different, and written for small models."""

import itertools
import re
from difflib import SequenceMatcher
from importlib import resources
from typing import get_args

from engine.domain.procedures import OPTION_PROCEDURES, PROCEDURES
from templates import load_templates, parse_template
from templates.model import Procedure

ANSWER_LINE = "End with a line 'Answer: <answer>'."


def test_at_least_ten_builtin_templates_with_unique_ids() -> None:
    templates = load_templates()
    assert len(templates) >= 10
    assert len({t.id for t in templates}) == len(templates)


def test_each_file_is_named_after_its_id() -> None:
    folder = resources.files("templates").joinpath("builtin")
    for entry in folder.iterdir():
        if entry.name.endswith(".toml"):
            template = parse_template(entry.read_text(encoding="utf-8"), entry.name)
            assert entry.name == f"{template.id}.toml"


def test_every_prompt_places_the_query_and_ends_with_the_answer_format() -> None:
    for template in load_templates():
        assert "query" in template.placeholders, template.id
        if template.procedure == "bare":  # the question alone, by definition: checked below
            continue
        last_line = template.prompt.splitlines()[-1]
        if template.procedure in OPTION_PROCEDURES:  # the answer is an option, not a line
            assert "Answer:" not in template.prompt, template.id
            continue
        assert last_line == ANSWER_LINE, template.id


def test_only_the_answer_line_follows_the_question() -> None:
    # What precedes the question is a saved prompt state reused by later calls; what follows
    # it is evaluated on every call (templates/README.md, "Writing prompts for small models").
    # The plan procedure's prompt follows the query's own plan, so it shares no prefix anyway.
    for template in load_templates():
        if template.procedure in {*OPTION_PROCEDURES, "bare", "plan_solve"}:
            continue
        after_question = template.prompt.split("{query}", 1)[1]
        assert after_question.strip() == ANSWER_LINE, template.id


def test_strategies_differ_in_wording_not_just_in_name() -> None:
    # Strip the shared frame (question line and final instruction) and compare what is left.
    def body(prompt: str) -> str:
        lines = [line for line in prompt.splitlines() if line != ANSWER_LINE]
        return "\n".join(line for line in lines if not line.startswith("Question:"))

    # the question alone (bare, option likelihood) has no wording to differ in
    templates = [t for t in load_templates() if t.prompt != "{query}"]
    for first, second in itertools.combinations(templates, 2):
        similarity = SequenceMatcher(None, body(first.prompt), body(second.prompt)).ratio()
        assert similarity < 0.6, (first.id, second.id, similarity)


def test_prompts_are_short_enough_for_a_small_model() -> None:
    for template in load_templates():
        words = len(re.findall(r"\S+", template.prompt))
        assert words <= 80, (template.id, words)


def test_the_procedures_each_have_a_builtin_arm_and_bare_is_the_question_alone() -> None:
    by_procedure = {t.procedure: t for t in load_templates()}
    assert set(by_procedure) == set(PROCEDURES)
    assert by_procedure["bare"].prompt == "{query}"
    assert by_procedure["option_likelihood"].prompt == "{query}"  # scores, writes no prompt


def test_the_template_procedures_are_the_ones_the_engine_runs() -> None:
    # templates/ may not import the engine, so the list is written twice and held equal here.
    assert get_args(Procedure) == PROCEDURES
