"""What every stage of one decision is given: its query, features and model, what the decision
has spent so far, and the call-economy rules. A `RunState` is a value: no stage writes into it,
each returns its reports, and the pipeline hands the next stage a state that counts them."""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast

from engine.domain.budget import Budget, MeteredLLM
from engine.domain.config import SINGLE_PATH_WORST_CALLS
from engine.domain.ports import LLM, DecisionListener
from engine.domain.records import NO_COST, Cost
from engine.domain.trace import LLM_FAULTS, Steps, Trace, budget_stop, fault

T = TypeVar("T")

# procedures: retries stay within a single-call path's worst case (seed, rating, detour, answer,
# referee, one retry); a procedure's extra calls come from what the budget leaves
# (`engine.domain.config`, where both worst cases are counted once).
WORST_CASE_CALLS = SINGLE_PATH_WORST_CALLS
UNLIMITED = 1_000_000


@dataclass(frozen=True)
class RunState:
    """One decision in progress: its query and features, its model and budget, and what it has
    spent before the stage it is given to."""

    query: str
    context: tuple[float, ...]
    llm: LLM
    budget: Budget
    spent: Cost = field(default_factory=Cost)

    def after(self, cost: Cost) -> "RunState":
        """This state once a stage has spent `cost` more (itself, where that is nothing)."""
        if cost is NO_COST:
            return self
        return RunState(self.query, self.context, self.llm, self.budget, self.spent + cost)

    def meter(self) -> MeteredLLM:
        """A fresh meter for one stage's calls: it refuses, before the model is called, a call
        that would take the decision past its budget, and its `cost` is the stage's own."""
        return MeteredLLM(self.llm, self.budget, spent=self.spent)

    @property
    def calls_left(self) -> int:
        """LLM calls the decision's budget still allows (a large number when unlimited)."""
        limit = self.budget.max_calls
        return UNLIMITED if limit is None else limit - self.spent.calls

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
        ceiling = min(self.budget.max_calls or WORST_CASE_CALLS, WORST_CASE_CALLS)
        return 1 if self.spent.calls + 2 + later_calls <= ceiling else 0


@dataclass(frozen=True)
class Attempt(Generic[T]):
    """What a stage's call gave (None: it did not run or failed) and what its calls cost."""

    value: T | None
    cost: Cost = field(default_factory=Cost)


def run_stage(
    run: RunState,
    stage: str,
    call: Callable[[LLM], T],
    *,
    started: float,
    faults: type[Exception] | tuple[type[Exception], ...] = LLM_FAULTS,
    optional: str | None = None,
    inputs: dict[str, Any] | None = None,
    degrades: bool = True,
) -> Steps[Attempt[T]]:
    """One stage's work, with the rules every stage shares: `call` is given a fresh meter on the
    decision's model, and the attempt returns its value (None when it did not run or failed)
    with what its calls cost.

    An `optional` stage (its value: why it stops) runs only while the answer stays affordable,
    else it reports a budget stop. A fault of the stage's kind (`faults`: by default an LLM
    fault or a budget the call would overrun; a search, tool or checker stage names its own) is
    reported as the stage's fault, timed from `started`, and the decision goes on. Success is the
    caller's to report: what it outputs is its own.
    """
    if optional is not None and not run.can_afford_optional():
        yield budget_stop(stage, started, optional)
        return Attempt(None)
    meter = run.meter()
    try:
        return Attempt(call(meter), meter.cost)
    except faults as error:
        yield fault(stage, error, started, cost=meter.cost, inputs=inputs, degrades=degrades)
        return Attempt(None, meter.cost)


class Assembly:
    """One decision's trace and cost, added up from its stages' reports as they come.

    Owned by one `Pipeline.run` call and never handed to a stage: each stage is given the
    run state as of its start (a value counting what was spent before it) and yields its
    reports, which are added here and told to the listener the moment each step finishes.
    """

    def __init__(self, run: RunState, listener: DecisionListener | None) -> None:
        self.trace = Trace()
        self._run = run
        self._listener = listener

    def take(self, stage: Callable[[RunState], Steps[T]]) -> T:
        """Run `stage` on the state so far to its end, adding each report it yields as it
        comes; return the stage's result."""
        steps = stage(self._run)
        while True:
            try:
                done = next(steps)
            except StopIteration as finished:
                return cast("T", finished.value)
            self.trace = self.trace.plus(done)
            self._run = self._run.after(done.cost)
            if self._listener is not None:
                self._listener.on_stage(done.step)
