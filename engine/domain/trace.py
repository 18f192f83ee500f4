"""A decision's trace as values: each stage returns what it did, and one owner adds it up.

A stage's work is a `Report`: its classified `TraceStep`, what its model calls cost, and why it
degrades the decision, if it does. A stage that runs several steps is a generator of reports
(`Steps`) whose return value is its result, so that each step reaches whoever drives it (the
pipeline, which tells the listener) the moment it finishes, and no recorder is shared between
stages. `Trace` is the immutable sum the pipeline builds from them.

>>> report = fault("answer", TimeoutError("slow"), start())
>>> trace = Trace().plus(report)
>>> trace.steps[0].reason, trace.degraded_reasons
('fault', ('answer: TimeoutError: slow',))
"""

import time
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from engine.domain.models import Reason, TraceStep
from engine.domain.records import NO_COST, Cost
from engine.errors import BudgetExceededError, LLMError

__all__ = ["LLM_FAULTS", "Report", "Steps", "Trace", "budget_stop", "fault", "report", "start"]

T = TypeVar("T")

# What an LLM stage catches: the model failed, or the decision cannot afford the call. Anything
# else is a bug and is allowed to surface.
LLM_FAULTS = (LLMError, BudgetExceededError)


@dataclass(frozen=True)
class Report:
    """What one stage did: its trace step, what its model calls cost, and why it degrades the
    decision (None: it does not)."""

    step: TraceStep
    cost: Cost = NO_COST
    degraded: str | None = None


# A stage that yields each step's report as it finishes and returns its result.
Steps = Generator[Report, None, T]


@dataclass(frozen=True)
class Trace:
    """The sum of a decision's reports so far: its steps, why it is degraded, what it cost."""

    steps: tuple[TraceStep, ...] = ()
    degraded_reasons: tuple[str, ...] = ()
    cost: Cost = field(default_factory=Cost)

    def plus(self, report: Report) -> "Trace":
        """This trace with `report` added at the end."""
        degraded = () if report.degraded is None else (report.degraded,)
        return Trace(
            (*self.steps, report.step),
            (*self.degraded_reasons, *degraded),
            self.cost + report.cost,
        )


def start() -> float:
    """The moment a stage starts: pass it to `report` (or `fault`) when the stage ends."""
    return time.perf_counter()


def report(
    stage: str,
    reason: Reason,
    started: float,
    *,
    cost: Cost | None = None,
    inputs: dict[str, Any] | None = None,
    outputs: dict[str, Any] | None = None,
    error: str | None = None,
    degraded: str | None = None,
) -> Report:
    """The report of a stage that started at `started` and ends now, having spent `cost`."""
    cost = cost or NO_COST
    # Built without validation: every field is typed here and checked by mypy, and validating
    # a dozen steps a decision was a tenth of the engine's own time (issue 40, item 6).
    step = TraceStep.model_construct(
        stage=stage,
        reason=reason,
        inputs=inputs or {},
        outputs=outputs or {},
        error=error,
        seconds=round(time.perf_counter() - started, 6),
        calls=cost.calls,
    )
    return Report(step, cost, degraded)


def fault(
    stage: str,
    error: Exception,
    started: float,
    *,
    cost: Cost | None = None,
    inputs: dict[str, Any] | None = None,
    outputs: dict[str, Any] | None = None,
    degrades: bool = True,
) -> Report:
    """The report of a failed stage: a budget stop or a fault, classified by the exception."""
    reason: Reason = "budget_stop" if isinstance(error, BudgetExceededError) else "fault"
    message = f"{type(error).__name__}: {error}"
    raw_text = getattr(error, "raw_text", None)  # what a malformed reply actually said
    if isinstance(raw_text, str):
        outputs = {**(outputs or {}), "raw_text": raw_text[:500]}
    return report(
        stage,
        reason,
        started,
        cost=cost,
        inputs=inputs,
        outputs=outputs,
        error=message,
        degraded=f"{stage}: {message}" if degrades else None,
    )


def budget_stop(stage: str, started: float, why: str) -> Report:
    """The report of a stage skipped because the decision cannot afford it."""
    return report(stage, "budget_stop", started, error=why, degraded=f"{stage}: {why}")
