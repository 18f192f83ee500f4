"""A `/v1` `response_format` whose answer is one of an `enum`: the options of the question.

OpenAI's structured outputs take a JSON schema with an object at its root. The one shape
ThinkPath honours is an object with one string property that lists its values in an `enum`:

    {"type": "json_schema", "json_schema": {"name": "verdict", "strict": true, "schema": {
        "type": "object", "properties": {"answer": {"type": "string", "enum": ["Yes", "No"]}},
        "required": ["answer"], "additionalProperties": false}}}

Its values are the options the engine answers with (`Engine.decide(options=...)`), and the reply's
content is that object with the chosen value: `{"answer": "Yes"}`. Any other schema, or
`json_object`, would be a promise of a shape ThinkPath cannot keep, so it is refused.

>>> choice = choice_format({"type": "json_schema", "json_schema": {"name": "v", "schema": {
...     "type": "object", "properties": {"answer": {"type": "string", "enum": ["Yes", "No"]}},
...     "required": ["answer"]}}})
>>> choice.options, choice.content("No")
(['Yes', 'No'], '{"answer": "No"}')
>>> choice_format({"type": "text"}) is None
True
"""

import json
from dataclasses import dataclass

__all__ = ["ChoiceFormat", "choice_format"]

_SCHEMA_KEYS = {"type", "properties", "required", "additionalProperties", "title", "description"}
_PROPERTY_KEYS = {"type", "enum", "title", "description"}


@dataclass(frozen=True)
class ChoiceFormat:
    """The property that holds the answer, and the values it may take."""

    field: str
    options: list[str]

    def content(self, answer: str) -> str:
        """The reply's content: the schema's object with the chosen value."""
        return json.dumps({self.field: answer})


def choice_format(response_format: object) -> ChoiceFormat | None:
    """The options a `response_format` asks to choose among; None for plain text (or none).

    Raises `ValueError`, saying what is supported, for any other format.
    """
    if response_format is None:
        return None
    if not isinstance(response_format, dict):
        raise ValueError("response_format must be an object")
    kind = response_format.get("type")
    if kind == "text":
        return None
    if kind != "json_schema":
        raise ValueError(f"response_format type {kind!r} is not supported; {_SUPPORTED}")
    wrapper = response_format.get("json_schema")
    schema = wrapper.get("schema") if isinstance(wrapper, dict) else None
    if not isinstance(schema, dict):
        raise ValueError(f"response_format.json_schema.schema is missing; {_SUPPORTED}")
    return _choice_of(schema)


_SUPPORTED = (
    "ThinkPath honours a json_schema whose root object has one string property with an enum "
    "of 2 to 26 values, the options to choose among (docs/openai.md)"
)


def _choice_of(schema: dict[str, object]) -> ChoiceFormat:
    properties = schema.get("properties")
    if (
        schema.get("type") != "object"
        or not set(schema) <= _SCHEMA_KEYS
        or not isinstance(properties, dict)
        or len(properties) != 1
    ):
        raise ValueError(f"this json_schema is not one ThinkPath can keep; {_SUPPORTED}")
    ((field, spec),) = properties.items()
    required = schema.get("required", [field])
    if required != [field] or not isinstance(spec, dict) or not set(spec) <= _PROPERTY_KEYS:
        raise ValueError(f"this json_schema is not one ThinkPath can keep; {_SUPPORTED}")
    values = spec.get("enum")
    if spec.get("type", "string") != "string" or not isinstance(values, list):
        raise ValueError(f"the property {field!r} has no enum of strings; {_SUPPORTED}")
    if not all(isinstance(value, str) and value == value.strip() and value for value in values):
        raise ValueError(f"the enum of {field!r} must hold non-empty strings without edge spaces")
    return ChoiceFormat(field, list(values))
