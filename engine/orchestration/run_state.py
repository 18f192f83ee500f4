"""What every stage of one decision shares: its query, meter, trace and features, and the
call-economy rules. Stages never write into it: each returns its result to the pipeline."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from engine.domain.budget import MeteredLLM
from engine.domain.config import SINGLE_PATH_WORST_CALLS
from engine.domain.trace import LLM_FAULTS, TraceRecorder

T = TypeVar("T")

# procedures: retries stay within a single-call path's worst case (seed, rating, detour, answer,
# referee, one retry); a procedure's extra calls come from what the budget leaves
# (`engine.domain.config`, where both worst cases are counted once).
WORST_CASE_CALLS = SINGLE_PATH_WORST_CALLS
UNLIMITED = 1_000_000


@dataclass(frozen=True)
class RunState:
    """One decision in progress: its query, its meter and trace, and the query's features."""

    query: str
    meter: MeteredLLM
    trace: TraceRecorder
    context: list[float]

    @property
    def calls_left(self) -> int:
        """LLM calls the decision's budget still allows (a large number when unlimited)."""
        limit = self.meter.budget.max_calls
        return UNLIMITED if limit is None else limit - self.meter.cost.calls

    def can_afford_optional(self) -> bool:
        """An optional call (seed, rating, detour) may run only if the answer stays affordable."""
        return self.calls_left >= 2

    def retries(self, later_calls: int, *, warm: bool) -> int:
        """Structured retries this stage may make: one, only off the warm path (`warm` is False
        once a rating or detour call was made), and only while the decision stays within
        `WORST_CASE_CALLS` counting the `later_calls` still planned.

        A warm decision never retries, which is what keeps it at three calls: a malformed
        referee verdict degrades the decision instead.
        """
        if warm:
            return 0
        ceiling = min(self.meter.budget.max_calls or WORST_CASE_CALLS, WORST_CASE_CALLS)
        return 1 if self.meter.cost.calls + 2 + later_calls <= ceiling else 0


def run_stage(
    run: RunState,
    stage: str,
    call: Callable[[], T],
    *,
    started: float,
    faults: type[Exception] | tuple[type[Exception], ...] = LLM_FAULTS,
    optional: str | None = None,
    inputs: dict[str, Any] | None = None,
    degrades: bool = True,
) -> T | None:
    """One stage's work, with the rules every stage shares; None when it did not run or failed.

    An `optional` stage (its value: why it stops) runs only while the answer stays affordable,
    else it is traced as a budget stop. A fault of the stage's kind (`faults`: by default an LLM
    fault or a budget the call would overrun; a search, tool or checker stage names its own) is
    traced as the stage's fault, timed from `started`, and the decision goes on. Success is the
    caller's to trace: what it outputs is its own.
    """
    if optional is not None and not run.can_afford_optional():
        run.trace.budget_stop(stage, started, optional)
        return None
    try:
        return call()
    except faults as error:
        run.trace.fault(stage, error, started, inputs=inputs, degrades=degrades)
        return None
