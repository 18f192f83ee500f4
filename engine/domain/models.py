"""The engine's edge models: what `Engine.decide` returns and what `record_outcome` takes back.

These are pydantic models because they cross the library's edge (the REST service serialises
them as they are). The core passes frozen dataclasses and numpy arrays; only the pipeline turns
them into these models.
"""

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from engine.domain.records import Cost

__all__ = [
    "PROB_BEST_MEANING",
    "ArmStats",
    "Candidate",
    "Choice",
    "Cost",
    "Decision",
    "OutcomeResult",
    "QueryKind",
    "Reason",
    "Seed",
    "SeedSource",
    "ToolRun",
    "TraceStep",
]

# Every trace step is classified by one of these, so that a reader (or a test) can ask "why?"
# without parsing free text.
Reason = Literal[
    "done",  # the stage ran and did its job
    "skipped",  # the stage was not needed (e.g. no cold arm, a checker made the referee moot)
    "cached",  # the stage reused its earlier result (the rating, once per family and candidates)
    "chose_by_posterior",  # the policy chose from its posterior
    "cold_start",  # arms were cold: the LLM's own pick led
    "forced",  # the caller named the arm (a `thinkpath:<template>` model): propensity 1
    "detour_trigger",  # an aha detour was triggered (its trigger is in the outputs)
    "retired",  # a detour arm was retired (its reason is in the outputs)
    "weak_seed",  # the seed failed its check: rebuilt once, then flagged
    "budget_stop",  # a per-decision budget ran out
    "fault",  # the LLM, a tool or a checker failed; the decision went on degraded
]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TraceStep(_Frozen):
    """One stage of a decision: what went in, what came out, why, and how long it took."""

    stage: str
    reason: Reason
    inputs: dict[str, Any] = Field(default_factory=dict)
    outputs: dict[str, Any] = Field(default_factory=dict)
    error: str | None = None  # the fault's class and message, when reason is fault/budget_stop
    seconds: float = 0.0
    calls: int = 0  # LLM calls the stage made (failed ones included)


class SeedSource(_Frozen):
    """A retrieved passage that the seed drew on."""

    source: str
    title: str = ""
    score: float = 0.0
    relevance: float = 0.0  # the seed check's share of query terms the passage covers
    flags: list[str] = Field(default_factory=list)  # e.g. "instruction-like", from the sanitiser


class Seed(_Frozen):
    """The thinking seed: a short brief on the query, built from retrieval, and its check."""

    brief: str | None = None  # None when no usable brief exists (no sources, weak, or a fault)
    sources: list[SeedSource] = Field(default_factory=list)
    relevance: float = 0.0  # the seed check's score in [0, 1]
    weak: bool = False  # the check failed even after one rebuild: the brief was not used
    rebuilt: bool = False
    check_reasons: list[str] = Field(default_factory=list)


class Candidate(_Frozen):
    """A candidate reasoning path, with what the rating call and the policy said about it."""

    arm_id: str
    name: str
    origin: Literal["template", "detour"]
    rating: int | None = None  # 1-5 from the one batched rating call; a prior, never a reward
    filtered: bool = False  # rated too low to be explored while cold
    cold: bool = False
    prob_best: float | None = None  # the policy's posterior probability that this arm is best
    propensity: float | None = None  # the policy's probability of selecting it at this step


class Choice(_Frozen):
    """The arm chosen for one policy role, with the probability that it was chosen."""

    role: Literal["path", "tool", "model"]
    arm_id: str
    propensity: float
    reason: Reason


class ToolRun(_Frozen):
    """What running the chosen tool gave."""

    tool: str
    argument: str
    ok: bool
    output: str = ""
    error: str | None = None
    seconds: float = 0.0
    value: str | None = None  # the answer alone, from a tool that states one
    provenance: str | None = None  # how the tool found it, in a sentence for people
    fully_parsed: bool = False  # the tool accounted for the whole question: exact


class OutcomeResult(_Frozen):
    """What recording an outcome did."""

    decision_id: str
    source: str
    reward: float
    weight: float
    seq: int  # its place in the namespace's learning order
    applied: bool  # False when the same (decision, source) had been recorded before
    roles: list[str]  # the roles this source can teach (`engine.domain.evidence` says which wins)
    revision: int = 0  # 0: the source's first score; n: its n-th correction (`replace=True`)


class QueryKind(_Frozen):
    """The kind of query a decision was made for, and why it is that kind (the card shows it)."""

    id: str  # "k<seq>" (discovered), "task:<name>" (named), "unsorted"
    label: str  # its name if it has one, else its id
    origin: Literal["task", "discovered"]
    new: bool  # this query created it
    similarity: float | None = None  # the cosine with the kind's anchor, where one was compared
    why: str
    example: str  # the query that created the kind
    size: int | None = None  # its decisions before this one, where known


class Decision(_Frozen):
    """One decision: the path and tools chosen for a query, the answer, and why and at what cost."""

    id: str
    namespace: str
    created_at: datetime
    query: str
    kind: QueryKind | None = None  # None only for decisions made before kinds existed
    family: str | None = None  # the regex family of a decision made before kinds (read only)
    context: list[float] | None = None  # that decision's features (read only)
    seed: Seed
    candidates: list[Candidate]
    path: Choice
    tool: Choice  # "none" when the decision used no tool
    # The model every call of the decision ran on (`engine.domain.catalogue`); None only for
    # decisions made before models were arms.
    model: Choice | None = None
    tool_run: ToolRun | None = None
    answer: str | None = None
    outcomes: list[OutcomeResult] = Field(default_factory=list)  # recorded while deciding
    trace: list[TraceStep]
    cost: Cost
    degraded: bool = False
    degraded_reasons: list[str] = Field(default_factory=list)

    def step(self, stage: str) -> TraceStep:
        """Return the trace step of `stage` (the last one, if it ran twice)."""
        for item in reversed(self.trace):
            if item.stage == stage:
                return item
        raise KeyError(f"decision {self.id} has no {stage!r} step")


# The one P(best) (`engine.orchestration.arm_stats` computes it): the Arms tab, /api/v1/arms (its
# schema's description), `Engine.snapshot()` and MLflow read that number and say this of it.
PROB_BEST_MEANING = (
    "P(best) is, for one kind of query, the chance that an arm has the highest mean reward of "
    "its role (path or tool) on that kind, under the engine's policy for the kind as it stands "
    "now: the number its choices draw on. It is defined for a kind only; pulls and mean count "
    "every question together."
)


class ArmStats(_Frozen):
    """Learning statistics of one arm, as learned from outcomes only."""

    role: str
    arm_id: str
    origin: str
    pulls: float  # effective observations: the sum of outcome weights
    mean_reward: float | None
    outcomes: int
    retired: bool = False
    retired_reason: str | None = None
    cold: bool | None = None  # for the query given to `Engine.arms`, if any
    prob_best: float | None = Field(default=None, description=PROB_BEST_MEANING)
