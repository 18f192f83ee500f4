"""The state of one decision while its stages run, and the call-economy rules they share."""

from dataclasses import dataclass

from engine.metering import MeteredLLM
from engine.trace import TraceRecorder

# seed, rating, detour, answer, referee, and one structured retry
WORST_CASE_CALLS = 6


@dataclass
class RunState:
    """One decision in progress: its query, meter, trace and what earlier stages produced."""

    query: str
    meter: MeteredLLM
    trace: TraceRecorder
    context: list[float]
    warm: bool = True  # no rating and no detour call so far
    brief: str | None = None

    def can_afford_optional(self) -> bool:
        """An optional call (seed, rating, detour) may run only if the answer stays affordable."""
        return self.meter.calls_left >= 2

    def retries(self, later_calls: int) -> int:
        """Structured retries this stage may make: one, only off the warm path, and only while
        the decision stays within `WORST_CASE_CALLS` counting the `later_calls` still planned.

        A warm decision never retries, which is what keeps it at three calls: a malformed
        referee verdict degrades the decision instead.
        """
        if self.warm:
            return 0
        ceiling = min(self.meter.budget.max_calls, WORST_CASE_CALLS)
        return 1 if self.meter.cost().calls + 2 + later_calls <= ceiling else 0
