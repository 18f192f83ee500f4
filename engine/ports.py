"""The engine's ports: the small protocols that adapters implement and wrappers decorate.

Each port has one to three methods. Retry, budget, cache and tracing are wrappers that implement
the same port, so the pipeline never knows whether it talks to a bare adapter or a decorated one.
The records that cross a port are frozen dataclasses: the store and tracker see plain values,
never the engine's pydantic models.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, Protocol

from retrieval.port import Passage, Searcher

__all__ = [
    "LLM",
    "ArmCatalog",
    "ArmRecord",
    "ChatMessage",
    "DecisionLog",
    "DecisionRecord",
    "LLMRequest",
    "LLMResponse",
    "LearnedOutcome",
    "OutcomeLog",
    "OutcomeReceipt",
    "OutcomeRecord",
    "Passage",
    "Searcher",
    "Tracker",
]

# ---------------------------------------------------------------------------------------------
# Language model


@dataclass(frozen=True)
class ChatMessage:
    role: Literal["system", "user", "assistant"]
    content: str


@dataclass(frozen=True)
class LLMRequest:
    """One chat completion. `json_schema` asks for constrained decoding to that schema."""

    messages: tuple[ChatMessage, ...]
    max_tokens: int = 256
    temperature: float = 0.0
    json_schema: Mapping[str, Any] | None = None
    timeout_s: float = 60.0
    purpose: str = (
        "answer"  # the stage that asks (seed, rate, answer, referee, detour): for cost and trace
    )
    seed: int | None = None


@dataclass(frozen=True)
class LLMResponse:
    text: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    cost_usd: float | None = None  # None where the provider's price is unknown


class LLM(Protocol):
    """A chat model. Raises `LLMError` subclasses, never a provider's own exception."""

    def complete(self, request: LLMRequest) -> LLMResponse: ...


# ---------------------------------------------------------------------------------------------
# Store: decisions, outcomes (the source of truth) and the catalogue of arms


@dataclass(frozen=True)
class DecisionRecord:
    """A decision as stored: key columns for queries plus the full decision as JSON."""

    decision_id: str
    namespace: str  # one engine's learning state; replicas sharing a namespace learn together
    created_at: datetime
    query: str
    context: tuple[float, ...] | None  # the query's features, as the contextual policies saw them
    choices: Mapping[str, str]  # policy role -> chosen arm, e.g. {"path": "first_principles"}
    propensities: Mapping[str, float]  # policy role -> probability that the chosen arm was chosen
    payload: Mapping[str, Any] = field(default_factory=dict)  # candidates, trace, cost, answer


@dataclass(frozen=True)
class OutcomeRecord:
    """A reward for a decision from one source (checker, user, referee, ...)."""

    decision_id: str
    source: str
    reward: float  # in [0, 1]
    weight: float = 1.0  # in (0, 1]: how much this source counts
    created_at: datetime | None = None  # the store stamps it when None


@dataclass(frozen=True)
class OutcomeReceipt:
    seq: int  # the outcome's position in its namespace's learning order
    applied: bool  # False when this exact outcome had been recorded before (idempotent replay)


@dataclass(frozen=True)
class LearnedOutcome:
    """An outcome joined with what its decision chose: what a policy needs to learn from it."""

    seq: int
    decision_id: str
    namespace: str
    choices: Mapping[str, str]
    context: tuple[float, ...] | None
    source: str
    reward: float
    weight: float

    @classmethod
    def join(cls, seq: int, decision: DecisionRecord, outcome: OutcomeRecord) -> "LearnedOutcome":
        """The outcome with what its decision chose, at its place `seq` in the learning order."""
        return cls(
            seq=seq,
            decision_id=decision.decision_id,
            namespace=decision.namespace,
            choices=dict(decision.choices),
            context=decision.context,
            source=outcome.source,
            reward=outcome.reward,
            weight=outcome.weight,
        )


@dataclass(frozen=True)
class ArmRecord:
    """An arm of one policy role: a template's path, a generated detour path, or a tool."""

    namespace: str
    role: str  # "path" or "tool"
    arm_id: str
    origin: Literal["template", "detour", "tool"]
    definition: Mapping[str, Any]  # the template or tool description, as JSON
    created_at: datetime
    retired_at: datetime | None = None
    retired_reason: str | None = None


class DecisionLog(Protocol):
    def save_decision(self, decision: DecisionRecord) -> None: ...

    def get_decision(self, decision_id: str) -> DecisionRecord:
        """Raise `UnknownDecisionError` when there is none."""
        ...


class OutcomeLog(Protocol):
    def record_outcome(self, outcome: OutcomeRecord) -> OutcomeReceipt:
        """Append durably and idempotently; the same (decision, source) is applied once.

        Raises `UnknownDecisionError`, `InvalidRewardError`, or `OutcomeConflictError` when the
        same (decision, source) was recorded with a different reward or weight.
        """
        ...

    def outcomes_since(
        self, namespace: str, after_seq: int, limit: int = 10_000
    ) -> list[LearnedOutcome]:
        """Outcomes of `namespace` with seq > `after_seq`, in seq order.

        Seqs are assigned in commit order within a namespace, so a reader that remembers the last
        seq it applied never misses an outcome that commits later: every process replays the same
        sequence and so holds the same policy state.
        """
        ...


class ArmCatalog(Protocol):
    def save_arm(self, arm: ArmRecord) -> None:
        """Insert or update (retire) an arm."""
        ...

    def list_arms(self, namespace: str) -> list[ArmRecord]: ...


# ---------------------------------------------------------------------------------------------
# Tracker (MLflow or nothing)


class Tracker(Protocol):
    def log_decision(self, decision: DecisionRecord) -> None: ...

    def log_outcome(self, outcome: LearnedOutcome) -> None: ...
