"""The `Template` record: one reasoning path, validated when it is built.

A template is data, not code: an id that the bandit learns under, a name and description for
people, tags, and a prompt that steers the answer. The prompt may place the query and the thinking
seed with the placeholders `{query}` and `{seed}`; no other placeholder is allowed (literal braces
are written `{{` and `}}`), so rendering can never reach an attribute or a format spec. The
engine renders a prompt with `engine.stages.answer.answer_messages`, the one renderer that the
engine, replay and the online evaluation share.

>>> t = Template(
...     id="direct",
...     name="Direct",
...     description="Answer at once.",
...     prompt="Question: {query}\\nEnd with a line 'Answer: <answer>'.",
... )
>>> sorted(t.placeholders)
['query']
"""

import string
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

from templates.text import check_name, check_visible

__all__ = ["PLACEHOLDERS", "Procedure", "Template", "template_key"]
# What an arm does with its prompt; the engine runs each (`engine.domain.procedures`, whose list
# a test holds equal to this one: templates/ may not import the engine).
Procedure = Literal[
    "single",
    "bare",
    "self_consistency",
    "program",
    "plan_solve",
    "constrained_choice",
    "option_likelihood",
    "reason_choose",
]

PLACEHOLDERS = frozenset({"query", "seed"})

SLUG = r"^[a-z0-9]+(?:[_-][a-z0-9]+)*$"
MAX_PROMPT_CHARS = 4000
MAX_TAGS = 12

Slug = Annotated[str, StringConstraints(pattern=SLUG, min_length=1, max_length=64)]
Tag = Annotated[str, StringConstraints(pattern=SLUG, min_length=1, max_length=32)]


def template_key(template_id: str) -> str:
    """The id as people read it: '-' and '_' are one separator, so near-duplicates collide.

    >>> template_key("first-principles") == template_key("first_principles")
    True
    """
    return template_id.replace("-", "_")


def _placeholders(prompt: str) -> frozenset[str]:
    """Return the names the prompt formats in; raise ValueError on anything but bare names."""
    found: set[str] = set()
    try:
        parsed = list(string.Formatter().parse(prompt))
    except ValueError as error:  # a lone '{' or '}'
        raise ValueError(f"{error}; write literal braces as '{{{{' and '}}}}'") from None
    for _, field_name, format_spec, conversion in parsed:
        if field_name is None:
            continue
        if field_name not in PLACEHOLDERS or format_spec or conversion:
            shown = field_name + (f"!{conversion}" if conversion else "")
            shown += f":{format_spec}" if format_spec else ""
            raise ValueError(
                f"uses the placeholder {{{shown}}}; only {{query}} and {{seed}} are allowed "
                "(write literal braces as '{{' and '}}')"
            )
        found.add(field_name)
    return frozenset(found)


class Template(BaseModel):
    """A reasoning-path template; immutable, and valid by construction."""

    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True)

    id: Slug
    name: Annotated[str, StringConstraints(min_length=1, max_length=80)]
    description: Annotated[str, StringConstraints(min_length=1, max_length=500)]
    prompt: Annotated[str, StringConstraints(min_length=1, max_length=MAX_PROMPT_CHARS)]
    tags: tuple[Tag, ...] = Field(default=(), max_length=MAX_TAGS)
    # What the arm does with the prompt (`engine.domain.procedures`): one call ("single"), the
    # question alone ("bare"), sampled answers and a vote ("self_consistency"), a program
    # ("program"), or a plan call before the solve call ("plan_solve").
    procedure: Procedure = "single"

    @field_validator("id", mode="before")
    @classmethod
    def _normalise_id(cls, value: object) -> object:
        # "First_Principles " means first_principles: take the id as the slug it names.
        if isinstance(value, str):
            return value.strip().lower()
        return value

    @field_validator("name", "description", "prompt", mode="before")
    @classmethod
    def _normalise_newlines(cls, value: object) -> object:
        # Files written on Windows must load like the same file written elsewhere.
        if isinstance(value, str):
            return value.replace("\r\n", "\n").replace("\r", "\n")
        return value

    @field_validator("name")
    @classmethod
    def _single_line(cls, value: str) -> str:
        if "\n" in value or "\t" in value:
            raise ValueError("must be a single line")
        return value

    @field_validator("name")
    @classmethod
    def _no_look_alikes(cls, value: str) -> str:
        return check_name(value)  # printable ASCII: see templates.text

    @field_validator("name", "description")
    @classmethod
    def _printable(cls, value: str) -> str:
        # Names and descriptions are shown to people: zero-width, bidi, format and private-use
        # characters (not printable to Python) would let two templates look alike.
        for char in value:
            if char not in "\n\t" and not char.isprintable():
                raise ValueError(
                    f"contains the unprintable character U+{ord(char):04X}; use printable text"
                )
        return value

    @field_validator("name", "description", "prompt")
    @classmethod
    def _no_hidden_characters(cls, value: str) -> str:
        # Controls (but tab and newline; carriage returns are normalised to newlines above),
        # zero-width, tag, bidi, variation selectors...: text that cannot be typed, breaks TOML,
        # or says one thing to a reader and another to the model (templates.text).
        return check_visible(value)

    @field_validator("tags", mode="before")
    @classmethod
    def _one_tag_as_text(cls, value: object) -> object:
        # `tags = "math"` means the one tag "math"; a list is what several tags need.
        return (value,) if isinstance(value, str) else value

    @field_validator("prompt")
    @classmethod
    def _only_known_placeholders(cls, value: str) -> str:
        _placeholders(value)
        return value

    @field_validator("tags")
    @classmethod
    def _unique_tags(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        repeated = sorted({tag for tag in value if value.count(tag) > 1})
        if repeated:
            raise ValueError(f"repeats {', '.join(repeated)}")
        return value

    @property
    def placeholders(self) -> frozenset[str]:
        """The placeholders the prompt uses: a subset of {"query", "seed"}."""
        return _placeholders(self.prompt)
