"""Loading templates from files: clear errors naming file and field, and a faithful TOML writer."""

import string
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from templates import Template, TemplateError, load_templates, parse_template, template_to_toml
from templates.text import hidden_character

VALID = """
id = "mine"
name = "Mine"
description = "My own strategy."
tags = ["custom"]
prompt = '''
Question: {query}
End with a line 'Answer: <answer>'.
'''
"""


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_user_templates_come_after_the_builtins(tmp_path: Path) -> None:
    write(tmp_path, "b.toml", VALID.replace('"mine"', '"second"'))
    write(tmp_path, "a.toml", VALID)
    write(tmp_path, "notes.txt", "not a template")
    builtin = load_templates()
    loaded = load_templates([tmp_path])
    assert loaded[: len(builtin)] == builtin
    assert [t.id for t in loaded[len(builtin) :]] == ["mine", "second"]
    assert loaded[-2].prompt == "Question: {query}\nEnd with a line 'Answer: <answer>'."


def test_a_user_template_may_not_take_a_builtin_id(tmp_path: Path) -> None:
    builtin_id = load_templates()[0].id
    write(tmp_path, "clash.toml", VALID.replace('"mine"', f'"{builtin_id}"'))
    with pytest.raises(TemplateError, match=rf"clash.toml: field 'id': '{builtin_id}' is already"):
        load_templates([tmp_path])


def test_two_user_files_may_not_share_an_id(tmp_path: Path) -> None:
    write(tmp_path / "one", "a.toml", VALID)
    write(tmp_path / "two", "b.toml", VALID)
    with pytest.raises(TemplateError, match=r"two/b.toml: field 'id': .*one/a.toml"):
        load_templates([tmp_path / "one", tmp_path / "two"])


def test_a_missing_folder_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(TemplateError, match="nowhere: not a folder of templates"):
        load_templates([tmp_path / "nowhere"])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('id = "x\nname = "y"', r"bad.toml: not valid TOML: .*line 1"),
        (VALID.replace('name = "Mine"\n', ""), r"bad.toml: field 'name': missing"),
        (VALID + 'promt = "x"\n', r"bad.toml: field 'promt': unknown field"),
        # the id is lower-cased before the slug check, and the message shows what was checked
        (VALID.replace('"mine"', '"My Id"'), r"bad.toml: field 'id': 'my id' is not a slug"),
        (VALID.replace("{query}", "{answer}"), r"bad.toml: field 'prompt': .*\{answer\}"),
        (VALID.replace('["custom"]', '["ok", 3]'), r"bad.toml: field 'tags\[1\]': .*string"),
        (VALID.replace('"Mine"', "42"), r"bad.toml: field 'name': .*string"),
    ],
)
def test_invalid_file_names_file_and_field(tmp_path: Path, text: str, message: str) -> None:
    write(tmp_path, "bad.toml", text)
    with pytest.raises(TemplateError, match=message):
        load_templates([tmp_path])


def test_every_problem_in_a_file_is_reported(tmp_path: Path) -> None:
    with pytest.raises(TemplateError) as caught:
        parse_template('id = "X Y"\nname = ""', "two.toml")
    lines = str(caught.value).splitlines()
    assert [line.split(":")[1].strip() for line in lines] == [
        "field 'id'",
        "field 'name'",
        "field 'description'",
        "field 'prompt'",
    ]


def test_a_file_that_is_not_utf8_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "latin.toml").write_bytes(VALID.replace("My own", "M\xe9").encode("latin-1"))
    with pytest.raises(TemplateError, match=r"latin\.toml: not UTF-8"):
        load_templates([tmp_path])


def test_a_huge_file_is_refused_before_parsing(tmp_path: Path) -> None:
    write(tmp_path, "huge.toml", VALID + "# " + "x" * 70_000 + "\n")
    with pytest.raises(TemplateError, match=r"huge\.toml: larger than"):
        load_templates([tmp_path])


def test_parse_template_refuses_non_text() -> None:
    with pytest.raises(TemplateError, match="added: expected TOML text, got bytes"):
        parse_template(b"id = 'x'", "added")  # type: ignore[arg-type]


def test_saving_a_template_gives_a_file_the_loader_reads(tmp_path: Path) -> None:
    original = load_templates()[0]
    renamed = original.model_copy(update={"id": "saved_copy"})
    write(tmp_path, "saved_copy.toml", template_to_toml(renamed))
    assert load_templates([tmp_path])[-1] == renamed


# Text that a template field may hold: printable (no control, format, private-use, unassigned
# or separator character but the space), nothing invisible, no stray braces in the prompt.
text = (
    st.text(
        alphabet=st.characters(
            blacklist_categories=("Cs", "Cc", "Cf", "Co", "Cn", "Zl", "Zp", "Zs"),
            blacklist_characters="{}\r",
            whitelist_characters=" ",
        ),
        min_size=1,
        max_size=60,
    )
    .filter(lambda s: s.strip() == s and s != "")
    .filter(lambda s: hidden_character(s) is None)
)
multiline = st.lists(text, min_size=1, max_size=4).map("\n\t".join)
# A name is printable ASCII (templates.text.check_name).
ascii_name = st.text(
    alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), min_size=1, max_size=60
).filter(lambda s: s.strip() == s and s != "")


@given(
    name=ascii_name,
    description=multiline,
    body=multiline,
    tags=st.lists(st.sampled_from(["a", "math", "x-1", "b_2"]), unique=True, max_size=4),
)
def test_toml_round_trip_is_exact(name: str, description: str, body: str, tags: list[str]) -> None:
    template = Template(
        id="round-trip",
        name=name.replace("\t", " "),
        description=description,
        prompt=body + '\n"""quoted""" \\ {query}',
        tags=tuple(tags),
    )
    assert parse_template(template_to_toml(template), "saved") == template


def test_toml_escapes_survive_control_characters() -> None:
    # Templates refuse control characters, so the writer's \\u escapes are checked directly.
    toml = template_to_toml(
        Template.model_construct(id="x", name="N", description="d", prompt="a\x7fb", tags=())
    )
    assert "\\u007F" in toml
    assert set(string.printable) >= set(toml.replace("\\u007F", ""))


def test_ids_differing_only_in_separators_collide(tmp_path: Path) -> None:
    (tmp_path / "a.toml").write_text(VALID.replace('"mine"', '"first-principles"'))
    with pytest.raises(TemplateError, match="close to 'first_principles'"):
        load_templates([tmp_path])


def test_a_name_must_be_printable(tmp_path: Path) -> None:
    (tmp_path / "a.toml").write_text(VALID.replace('name = "', 'name = "\\u200b'))
    with pytest.raises(TemplateError, match="U\\+200B"):
        load_templates([tmp_path])


def test_tags_written_as_one_string_load_as_one_tag() -> None:
    text = VALID.replace('tags = ["custom"]', 'tags = "math"')
    assert parse_template(text, "mine.toml").tags == ("math",)
    with pytest.raises(TemplateError, match="'math, x' is not a slug"):
        parse_template(VALID.replace('tags = ["custom"]', 'tags = "math, x"'), "mine.toml")


def test_errors_name_the_offending_character_and_the_limit_in_plain_words() -> None:
    lookalike = VALID.replace('id = "mine"', 'id = "сheck_units"')  # a Cyrillic "с" first
    with pytest.raises(TemplateError) as raised:
        parse_template(lookalike, "new template")
    assert "the 'с' at position 1 is CYRILLIC SMALL LETTER ES" in str(raised.value)
    long_prompt = VALID.replace("Question: {query}", "Question: {query}" + "x" * 4000)
    with pytest.raises(TemplateError) as raised:
        parse_template(long_prompt, "new template")
    assert "field 'prompt': 4,05" in str(raised.value)
    assert "characters long; at most 4,000 are allowed" in str(raised.value)
    assert "String should have" not in str(raised.value)
