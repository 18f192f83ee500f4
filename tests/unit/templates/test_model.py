"""Template validation: every field checked, placeholders restricted, rendering safe."""

import re

import pytest
from pydantic import ValidationError

from templates import Template


def make(**changes: object) -> Template:
    fields: dict[str, object] = {
        "id": "plan",
        "name": "Plan",
        "description": "Plan, then solve.",
        "prompt": "Question: {query}\nEnd with a line 'Answer: <answer>'.",
        "tags": ("math",),
    }
    fields.update(changes)
    return Template.model_validate(fields)


def test_a_valid_template_is_frozen() -> None:
    template = make()
    with pytest.raises(ValidationError, match="frozen"):
        template.id = "other"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("id", "Plan Then Solve", "should match pattern"),
        ("id", "", "at least 1 character"),
        ("id", "a__b", "should match pattern"),
        ("name", "   ", "at least 1 character"),
        ("name", "two\nlines", "single line"),
        ("description", "x" * 501, "at most 500"),
        ("prompt", "{answer}", r"placeholder \{answer\}"),
        ("prompt", "{}", r"placeholder \{\}"),
        ("prompt", "{0}", r"placeholder \{0\}"),
        ("prompt", "{query.__class__}", r"placeholder \{query.__class__\}"),
        ("prompt", "{query!r}", r"placeholder \{query!r\}"),
        ("prompt", "{query:>40}", r"placeholder \{query:>40\}"),
        ("prompt", "a { lone brace", "literal braces"),
        ("prompt", "bell \x07", "U\\+0007 \\(a control character\\)"),
        ("prompt", "x" * 4001, "at most 4000"),
        ("tags", ("Math",), "should match pattern"),
        ("tags", ("math", "math"), "repeats math"),
        ("tags", tuple(f"t{i}" for i in range(13)), "at most 12"),
    ],
)
def test_invalid_field_is_refused(field: str, value: object, message: str) -> None:
    with pytest.raises(ValidationError, match=message) as caught:
        make(**{field: value})
    assert caught.value.errors()[0]["loc"][0] == field


def test_unknown_field_is_refused() -> None:
    with pytest.raises(ValidationError, match="extra"):
        make(promt="typo")


def test_windows_newlines_are_normalised() -> None:
    assert make(prompt="a\r\nb {query}\r").prompt == "a\nb {query}"


HIDDEN = {
    "zero-width space": "\u200b",
    "zero-width joiner": "\u200d",
    "word joiner": "\u2060",
    "byte order mark": "\ufeff",
    "tag letter": "\U000e0041",
    "tag cancel": "\U000e007f",
    "right-to-left override": "\u202e",
    "left-to-right isolate": "\u2066",
    "right-to-left mark": "\u200f",
    "variation selector": "\ufe0f",
    "supplementary variation selector": "\U000e0100",
    "Hangul filler": "\u3164",
    "private use": "\ue000",
}


@pytest.mark.parametrize("field", ["name", "description", "prompt"])
@pytest.mark.parametrize("char", HIDDEN.values(), ids=HIDDEN.keys())
def test_hidden_and_reordering_characters_are_refused_in_every_text_field(
    field: str, char: str
) -> None:
    text = {"name": "Plan", "description": "Plan, then solve.", "prompt": "Question: {query}"}
    with pytest.raises(ValidationError, match=f"U\\+{ord(char):04X}") as caught:
        make(**{field: text[field][:2] + char + text[field][2:]})
    assert caught.value.errors()[0]["loc"][0] == field


def test_other_languages_and_emoji_stay_welcome_outside_the_name() -> None:
    template = make(
        description="Schritt für Schritt, 一步一步 ✓",
        prompt="Réfléchis étape par étape 🙂: {query}",
    )
    assert "一步一步" in template.description


@pytest.mark.parametrize(
    ("name", "letter"),
    [
        ("D\u0456rect", "U+0456"),  # Cyrillic і in a Latin word
        ("\u0421ount", "U+0421"),  # Cyrillic С
        ("Dir\u0435ct", "U+0435"),  # Cyrillic е
        ("Direct \u03bf", "U+03BF"),  # Greek ο
        ("\uff24irect", "U+FF24"),  # fullwidth D
        ("Caf\u00e9", "U+00E9"),  # accented Latin is refused too: the rule is ASCII
    ],
)
def test_look_alike_names_are_refused(name: str, letter: str) -> None:
    with pytest.raises(ValidationError, match=f"{re.escape(letter)}.*printable ASCII"):
        make(name=name)


@pytest.mark.parametrize(
    ("tags", "kept"), [("math", ("math",)), (["math", "logic"], ("math", "logic")), ((), ())]
)
def test_tags_may_be_one_string_or_a_list(tags: object, kept: tuple[str, ...]) -> None:
    assert make(tags=tags).tags == kept


def test_a_tag_string_that_is_no_tag_says_why() -> None:
    with pytest.raises(ValidationError) as caught:
        make(tags="math, logic")
    message = str(caught.value)
    assert "should match pattern" in message
    assert "valid tuple" not in message
