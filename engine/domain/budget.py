"""Per-decision LLM cost and budget: the one place where calls, tokens, seconds and money add up.

`MeteredLLM` wraps any LLM (it implements the same port). Each stage of a decision gets a fresh
wrapper, told what the decision `spent` before it; its `cost` (this stage's own) goes into the
stage's report, and its `Budget` refuses, before the model is called, a call that would take the
decision past its allowance of calls, tokens or seconds.

>>> from engine.adapters.llm.scripted import ScriptedLLM
>>> from engine.domain.records import ChatMessage, LLMRequest
>>> llm = MeteredLLM(ScriptedLLM(lambda request: "four"), Budget(max_calls=1))
>>> llm.complete(LLMRequest(messages=(ChatMessage("user", "two plus two?"),))).text
'four'
>>> llm.cost.calls, llm.cost.prompt_tokens, llm.cost.completion_tokens
(1, 3, 1)
>>> llm.complete(LLMRequest(messages=(ChatMessage("user", "again?"),)))
Traceback (most recent call last):
...
engine.errors.BudgetExceededError: LLM call budget spent: 1 of 1 calls used; refused a 'answer' call
"""

import dataclasses
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from engine.domain.ports import LLM, TextSink
from engine.domain.records import Cost, LLMRequest, LLMResponse
from engine.errors import BudgetExceededError, ConfigError

__all__ = ["Budget", "MeteredLLM", "estimate_prompt_tokens"]

# Refuse rather than send a call whose answer the budget would cut to a few tokens.
MIN_COMPLETION_TOKENS = 16


@dataclass(frozen=True)
class Budget:
    """A decision's allowance; `None` means no limit on that measure."""

    max_calls: int | None = None
    max_tokens: int | None = None  # prompt + completion, over all calls
    max_seconds: float | None = None  # time spent inside LLM calls

    def __post_init__(self) -> None:
        for name in ("max_calls", "max_tokens"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise ConfigError(f"budget {name} must be an integer or None, got {value!r}")
            if value is not None and value < 1:
                raise ConfigError(f"budget {name} must be >= 1 or None, got {value}")
        seconds = self.max_seconds
        if seconds is not None and not (math.isfinite(seconds) and seconds > 0):
            raise ConfigError(
                f"budget max_seconds must be a positive number or None, got {seconds}"
            )


def estimate_prompt_tokens(request: LLMRequest) -> int:
    """A tokenizer-free estimate of a request's prompt tokens (about 4 characters a token).

    >>> from engine.domain.records import ChatMessage
    >>> estimate_prompt_tokens(LLMRequest(messages=(ChatMessage("user", "x" * 40),)))
    14
    """
    # +4 per message for the chat template's role markers.
    return sum(math.ceil(len(message.content) / 4) + 4 for message in request.messages)


class MeteredLLM:
    """Implements the LLM port around `inner`, counting its cost and enforcing a `Budget`.

    A call is admitted only if the calls, tokens and seconds left allow it, counting what the
    decision `spent` before this wrapper: its `max_tokens` is cut to the tokens left after the
    estimated prompt, and its `timeout_s` to the seconds left. A refused call raises
    `BudgetExceededError` and changes nothing. Thread-safe: concurrent calls reserve their
    share before they run.

    >>> from engine.adapters.llm.scripted import ScriptedLLM
    >>> from engine.domain.records import ChatMessage, LLMRequest
    >>> model = ScriptedLLM(lambda request: "no")
    >>> later = MeteredLLM(model, Budget(max_calls=2), spent=Cost(calls=2))
    >>> later.complete(LLMRequest(messages=(ChatMessage("user", "more?"),)))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    engine.errors.BudgetExceededError: LLM call budget spent: 2 of 2 calls used; ...
    """

    def __init__(
        self,
        inner: LLM,
        budget: Budget | None = None,
        *,
        spent: Cost | None = None,
        clock: Callable[[], float] = time.perf_counter,
        estimate_prompt: Callable[[LLMRequest], int] = estimate_prompt_tokens,
    ) -> None:
        self.inner = inner
        self.budget = budget or Budget()
        self._clock = clock
        self._estimate_prompt = estimate_prompt
        self._lock = threading.Lock()
        self._spent = spent or Cost()  # by the decision before this wrapper: counts, not ours
        self._cost = Cost()
        self._reserved_calls = 0
        self._reserved_tokens = 0

    @property
    def cost(self) -> Cost:
        """What this wrapper's calls spent so far (a snapshot; without `spent`)."""
        with self._lock:
            return self._cost

    def complete(self, request: LLMRequest) -> LLMResponse:
        """Admit, call and account; raise `BudgetExceededError` instead of overspending."""
        return self._metered(request, self.inner.complete)

    def stream(self, request: LLMRequest, on_text: TextSink) -> LLMResponse:
        """As `complete`, streaming: admitted and accounted exactly like a plain call."""
        return self._metered(request, lambda admitted: self.inner.stream(admitted, on_text))

    def _metered(
        self, request: LLMRequest, call: Callable[[LLMRequest], LLMResponse]
    ) -> LLMResponse:
        with self._lock:
            admitted, reserved_tokens = self._admit(request)
            self._reserved_calls += 1
            self._reserved_tokens += reserved_tokens
        started = self._clock()
        try:
            response = call(admitted)
        except Exception:  # an LLMError, or a bug in a wrapped adapter: account, then re-raise
            self._settle(reserved_tokens, Cost.of_failure(self._clock() - started))
            raise
        self._settle(reserved_tokens, Cost.of_response(response, self._clock() - started))
        return response

    def _admit(self, request: LLMRequest) -> tuple[LLMRequest, int]:
        budget, spent = self.budget, self._spent + self._cost
        where = f"refused a {request.purpose!r} call"
        if budget.max_calls is not None:
            used = spent.calls + self._reserved_calls
            if used >= budget.max_calls:
                raise BudgetExceededError(
                    f"LLM call budget spent: {used} of {budget.max_calls} calls used; {where}"
                )
        changes: dict[str, float | int] = {}
        reserved_tokens = 0
        if budget.max_tokens is not None:
            used = spent.total_tokens + self._reserved_tokens
            prompt = self._estimate_prompt(request)
            room = budget.max_tokens - used - prompt
            if room < min(MIN_COMPLETION_TOKENS, request.max_tokens):
                raise BudgetExceededError(
                    f"LLM token budget spent: {used} of {budget.max_tokens} tokens used and the "
                    f"prompt needs about {prompt}; {where}"
                )
            changes["max_tokens"] = min(request.max_tokens, room)
            reserved_tokens = prompt + int(changes["max_tokens"])
        if budget.max_seconds is not None:
            left = budget.max_seconds - spent.seconds
            if left <= 0:
                raise BudgetExceededError(
                    f"LLM time budget spent: {spent.seconds:.2f} of {budget.max_seconds:g} s "
                    f"used; {where}"
                )
            changes["timeout_s"] = min(request.timeout_s, left)
        return dataclasses.replace(request, **changes), reserved_tokens  # type: ignore[arg-type]

    def _settle(self, reserved_tokens: int, cost: Cost) -> None:
        with self._lock:
            self._reserved_calls -= 1
            self._reserved_tokens -= reserved_tokens
            self._cost = self._cost + cost
