"""A scripted LLM: a first-class test double that answers from a Python function.

>>> from engine.domain.records import ChatMessage, LLMRequest
>>> llm = ScriptedLLM(lambda request: "4" if "2 + 2" in request.messages[-1].content else "?")
>>> llm.complete(LLMRequest(messages=(ChatMessage("user", "2 + 2?"),))).text
'4'
>>> [request.purpose for request in llm.requests]
['answer']
>>> pieces = []
>>> llm.stream(LLMRequest(messages=(ChatMessage("user", "2 + 2 is?"),)), pieces.append).text
'4'
>>> ScriptedLLM(lambda request: "two words").stream(
...     LLMRequest(messages=(ChatMessage("user", "hi"),)), pieces.append).text
'two words'
>>> pieces
['4', 'two ', 'words']
"""

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from engine.domain.records import LLMRequest, LLMResponse

Script = Callable[[LLMRequest], str]

# A word with the spaces after it: the pieces a streamed answer arrives in, several per answer.
_PIECE = re.compile(r"\s*\S+\s*|\s+")


class ScriptedLLM:
    """Implements the LLM port by calling `script`; records every request it was sent.

    The script may raise an `LLMError` to simulate a fault. Token counts are whitespace word
    counts: deterministic, and enough for budget and cost accounting in tests.
    """

    def __init__(self, script: Script, model: str = "scripted") -> None:
        self._script = script
        self.model = model
        self.requests: list[LLMRequest] = []

    def complete(self, request: LLMRequest) -> LLMResponse:
        self.requests.append(request)
        return self._response(request, self._script(request))

    def stream(self, request: LLMRequest, on_text: Callable[[str], None]) -> LLMResponse:
        """The scripted text, handed to `on_text` a word at a time (spaces kept)."""
        self.requests.append(request)
        text = self._script(request)
        for piece in _PIECE.findall(text):
            on_text(piece)
        return self._response(request, text)

    def _response(self, request: LLMRequest, text: str) -> LLMResponse:
        prompt_tokens = sum(len(message.content.split()) for message in request.messages)
        return LLMResponse(
            text=text,
            model=self.model,
            prompt_tokens=prompt_tokens,
            completion_tokens=len(text.split()),
            seconds=0.0,
            cost_usd=0.0,
            # As a provider reports it: a reply as long as the limit was cut there.
            finish_reason="length"
            if request.max_tokens is not None and len(text.split()) >= request.max_tokens
            else "stop",
        )


def schema_example(schema: Mapping[str, Any], root: Mapping[str, Any] | None = None) -> Any:
    """The simplest value that satisfies a JSON schema: what a constrained decoder could emit.

    >>> schema_example({"type": "object", "properties": {"score": {"enum": [1, 2, 3]}}})
    {'score': 1}
    """
    root = root or schema
    if "$ref" in schema:
        name = str(schema["$ref"]).rsplit("/", 1)[-1]
        return schema_example(root["$defs"][name], root)
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    for combinator in ("anyOf", "oneOf", "allOf"):
        if combinator in schema:
            return schema_example(schema[combinator][0], root)
    return _EXAMPLE_OF_TYPE[schema.get("type", "object")](schema, root)


_EXAMPLE_OF_TYPE: dict[str, Callable[[Mapping[str, Any], Mapping[str, Any]], Any]] = {
    "object": lambda schema, root: {
        name: schema_example(sub, root) for name, sub in schema.get("properties", {}).items()
    },
    "array": lambda schema, root: (
        [schema_example(schema.get("items", {}), root)] * int(schema.get("minItems", 0))
    ),
    "integer": lambda schema, _: schema.get("minimum", 0),
    "number": lambda schema, _: schema.get("minimum", 0),
    "boolean": lambda _schema, _root: False,
    "null": lambda _schema, _root: None,
    "string": lambda schema, _: "x" * int(schema.get("minLength", 1)),
}


_SUM = re.compile(r"(-?\d+)\s*([-+*])\s*(-?\d+)")


def canned_script(request: LLMRequest) -> str:
    """A stand-in model for demos, load checks and browser tests: valid, instant, deterministic.

    Structured requests get the simplest instance of their schema; an answer request works out
    the first `a + b`, `a - b` or `a * b` in the prompt, and says so on an "Answer:" line.
    """
    if request.json_schema is not None:
        return json.dumps(schema_example(request.json_schema))
    match = _SUM.search(request.messages[-1].content)
    if match is None:
        return "I am a scripted stand-in model.\nAnswer: unknown"
    left, operator, right = int(match.group(1)), match.group(2), int(match.group(3))
    value = {"+": left + right, "-": left - right, "*": left * right}[operator]
    return f"Working it out step by step.\nAnswer: {value}"
