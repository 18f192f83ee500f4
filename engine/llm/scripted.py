"""A scripted LLM: a first-class test double that answers from a Python function.

>>> from engine.ports import ChatMessage, LLMRequest
>>> llm = ScriptedLLM(lambda request: "4" if "2 + 2" in request.messages[-1].content else "?")
>>> llm.complete(LLMRequest(messages=(ChatMessage("user", "2 + 2?"),))).text
'4'
>>> [request.purpose for request in llm.requests]
['answer']
"""

from collections.abc import Callable

from engine.ports import LLMRequest, LLMResponse

Script = Callable[[LLMRequest], str]


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
        text = self._script(request)
        prompt_tokens = sum(len(message.content.split()) for message in request.messages)
        return LLMResponse(
            text=text,
            model=self.model,
            prompt_tokens=prompt_tokens,
            completion_tokens=len(text.split()),
            seconds=0.0,
            cost_usd=0.0,
        )
