"""Collects a decision's trace: one classified step per stage, with its timing and any fault."""

import time
from collections.abc import Callable
from typing import Any

from engine.domain.models import Reason, TraceStep
from engine.domain.ports import DecisionListener
from engine.errors import BudgetExceededError, LLMError

# What an LLM stage catches: the model failed, or the decision cannot afford the call. Anything
# else is a bug and is allowed to surface.
LLM_FAULTS = (LLMError, BudgetExceededError)


class TraceRecorder:
    """Appends `TraceStep`s and remembers why the decision is degraded, if it is.

    >>> trace = TraceRecorder()
    >>> trace.fault("answer", TimeoutError("slow"), trace.start())
    >>> trace.steps[0].reason, trace.degraded_reasons
    ('fault', ['answer: TimeoutError: slow'])
    """

    def __init__(
        self,
        listener: DecisionListener | None = None,
        calls_so_far: Callable[[], int] = lambda: 0,
    ) -> None:
        self.steps: list[TraceStep] = []
        self.degraded_reasons: list[str] = []
        self._listener = listener
        # The decision's LLM calls so far (its meter's count): each step records how many calls
        # were made between its `start()` and its `add()`.
        self._calls_so_far = calls_so_far
        self._calls_at: dict[float, int] = {}

    def start(self) -> float:
        """The moment a stage starts: pass it to `add` (or `fault`) when the stage ends."""
        started = time.perf_counter()
        self._calls_at[started] = self._calls_so_far()
        return started

    def add(
        self,
        stage: str,
        reason: Reason,
        started: float,
        *,
        inputs: dict[str, Any] | None = None,
        outputs: dict[str, Any] | None = None,
        error: str | None = None,
    ) -> None:
        calls_now = self._calls_so_far()
        step = TraceStep(
            stage=stage,
            reason=reason,
            inputs=inputs or {},
            outputs=outputs or {},
            error=error,
            seconds=round(time.perf_counter() - started, 6),
            calls=calls_now - self._calls_at.pop(started, calls_now),
        )
        self.steps.append(step)
        if self._listener is not None:
            self._listener.on_stage(step)

    def fault(
        self,
        stage: str,
        error: Exception,
        started: float,
        *,
        inputs: dict[str, Any] | None = None,
        outputs: dict[str, Any] | None = None,
        degrades: bool = True,
    ) -> None:
        """Record a failed stage: a budget stop or a fault, classified by the exception."""
        reason: Reason = "budget_stop" if isinstance(error, BudgetExceededError) else "fault"
        message = f"{type(error).__name__}: {error}"
        raw_text = getattr(error, "raw_text", None)  # what a malformed reply actually said
        if isinstance(raw_text, str):
            outputs = {**(outputs or {}), "raw_text": raw_text[:500]}
        self.add(stage, reason, started, inputs=inputs, outputs=outputs, error=message)
        if degrades:
            self.degraded_reasons.append(f"{stage}: {message}")

    def budget_stop(self, stage: str, started: float, why: str) -> None:
        """Record a stage skipped because the decision cannot afford it."""
        self.add(stage, "budget_stop", started, error=why)
        self.degraded_reasons.append(f"{stage}: {why}")
