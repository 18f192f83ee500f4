"""A per-decision meter and budget around any LLM: the pipeline's stand-in for `engine.llm.budget`.

It implements the LLM port, so the pipeline cannot tell it from a bare model. It refuses a call
*before* making it when the call would exceed the decision's budget, so a budget is a hard limit
rather than an after-the-fact report. When the LLM engineer's `BudgetedLLM` lands, compose.py can
hand the pipeline that instead: the pipeline needs only `.complete`, `.cost()` and `.calls_left`.
"""

import math
import time
from dataclasses import dataclass, replace

from engine.errors import BudgetExceededError, ConfigError, LLMError, LLMUnavailableError
from engine.models import Cost
from engine.ports import LLM, LLMRequest, LLMResponse


@dataclass(frozen=True)
class Budget:
    """Per-decision limits on LLM use. Tokens count prompt and completion together."""

    max_calls: int = 6
    max_tokens: int = 8192
    max_seconds: float = 120.0

    def __post_init__(self) -> None:
        if self.max_calls < 1:
            raise ConfigError(f"budget max_calls must be at least 1, got {self.max_calls}")
        if self.max_tokens < 1:
            raise ConfigError(f"budget max_tokens must be at least 1, got {self.max_tokens}")
        if not (math.isfinite(self.max_seconds) and self.max_seconds > 0):
            raise ConfigError(f"budget max_seconds must be positive, got {self.max_seconds}")


class MeteredLLM:
    """Counts calls, tokens, seconds and money of one decision and enforces its `Budget`.

    >>> from engine.llm.scripted import ScriptedLLM
    >>> from engine.ports import ChatMessage
    >>> meter = MeteredLLM(ScriptedLLM(lambda request: "ok"), Budget(max_calls=1))
    >>> meter.complete(LLMRequest(messages=(ChatMessage("user", "hi"),))).text
    'ok'
    >>> meter.cost().calls, meter.calls_left
    (1, 0)
    """

    def __init__(self, llm: LLM, budget: Budget) -> None:
        self._llm = llm
        self.budget = budget
        self._started = time.monotonic()
        self._calls = 0
        self._prompt_tokens = 0
        self._completion_tokens = 0
        self._seconds = 0.0
        self._cost_usd: float | None = None

    @property
    def calls_left(self) -> int:
        return self.budget.max_calls - self._calls

    def complete(self, request: LLMRequest) -> LLMResponse:
        """Make the call if the budget allows it; count it, even when the model fails."""
        tokens_used = self._prompt_tokens + self._completion_tokens
        elapsed = time.monotonic() - self._started
        if self._calls >= self.budget.max_calls:
            raise BudgetExceededError(
                f"call budget spent: {self._calls} of {self.budget.max_calls} LLM calls made"
            )
        if tokens_used >= self.budget.max_tokens:
            raise BudgetExceededError(
                f"token budget spent: {tokens_used} of {self.budget.max_tokens} tokens used"
            )
        seconds_left = self.budget.max_seconds - elapsed
        if seconds_left <= 0:
            raise BudgetExceededError(
                f"time budget spent: {elapsed:.1f} s of {self.budget.max_seconds:.1f} s"
            )
        # A call may not outlive the decision's time budget nor write past its token budget.
        bounded = replace(
            request,
            timeout_s=min(request.timeout_s, seconds_left),
            max_tokens=max(1, min(request.max_tokens, self.budget.max_tokens - tokens_used)),
        )
        self._calls += 1
        started = time.monotonic()
        try:
            response = self._llm.complete(bounded)
        except LLMError:
            self._seconds += time.monotonic() - started
            raise
        except Exception as error:
            # The port promises LLMError only, but an adapter bug or a provider SDK can still leak
            # its own exception; the pipeline must be able to degrade on it rather than crash.
            self._seconds += time.monotonic() - started
            raise LLMUnavailableError(
                f"the model raised {type(error).__name__}: {error}"
            ) from error
        self._seconds += max(response.seconds, time.monotonic() - started)
        self._prompt_tokens += response.prompt_tokens
        self._completion_tokens += response.completion_tokens
        if response.cost_usd is not None:
            self._cost_usd = (self._cost_usd or 0.0) + response.cost_usd
        return response

    def cost(self) -> Cost:
        """The decision's spending so far."""
        return Cost(
            calls=self._calls,
            prompt_tokens=self._prompt_tokens,
            completion_tokens=self._completion_tokens,
            seconds=round(self._seconds, 6),
            cost_usd=self._cost_usd,
        )
