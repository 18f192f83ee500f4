"""The records that cross the engine's ports: frozen values, never the edge's pydantic models.

The store and the tracker see plain values; LLM adapters see requests and give responses; a
path definition is what a template (or an aha detour) becomes once it is an arm.
"""

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, Protocol

from engine.domain.procedures import PROCEDURES
from retrieval.port import Passage

__all__ = [
    "NO_COST",
    "NO_TOOL",
    "PROGRAM_TOOL",
    "ArmRecord",
    "ArmTally",
    "ChatMessage",
    "ChatOptions",
    "CheckpointRecord",
    "Cost",
    "DecisionRecord",
    "LLMRequest",
    "LLMResponse",
    "LearnedOutcome",
    "OutcomeReceipt",
    "OutcomeRecord",
    "Passage",
    "PathDefinition",
    "TemplateLike",
    "ToolAnswer",
    "ToolResult",
    "cost_of_payload",
    "tokens_of_payload",
]

# The tool arm that means "answer without a tool", so that the tool policy can learn that tools
# do not help for some kinds of query.
NO_TOOL = "none"
# The tool whose argument is a program the model wrote (`engine.stages.program` writes it,
# `engine.adapters.tools.program` runs it), not the query: the pipeline must ask for one first.
PROGRAM_TOOL = "program"

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
class ChatOptions:
    """What a chat client adds to its query (the OpenAI-compatible endpoint): for the answer only.

    `history` holds the conversation's earlier turns and `instructions` the application's own
    system message; both go into the answer prompt after ThinkPath's rule that fenced text is
    data, which they cannot override. `max_tokens` and `temperature` replace the engine's answer
    settings, still within the decision's budget. Seed, rating and referee see the query alone.
    """

    history: tuple[ChatMessage, ...] = ()
    instructions: str | None = None
    max_tokens: int | None = None
    temperature: float | None = None


@dataclass(frozen=True)
class LLMResponse:
    text: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    cost_usd: float | None = None  # None where the provider's price is unknown
    # Why the text ended, as the provider says ("stop", "length" at the token limit, "loop"
    # where the local model cut a looping tail); None where it said nothing.
    finish_reason: str | None = None


@dataclass(frozen=True)
class Cost:
    """What one decision spent on language models. Adds up with `+`.

    `cost_usd` sums the calls whose price is known (None when none was); `unpriced_calls` counts
    the others, so a non-zero count means `cost_usd` is a lower bound. Failed calls count as
    calls and take their seconds.
    """

    calls: int = 0
    failed_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    cost_usd: float | None = None  # None until a call reports a price
    unpriced_calls: int = 0  # calls without a known price: when > 0, cost_usd is a lower bound

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: "Cost") -> "Cost":
        # Most trace steps make no call: adding nothing is the same value, not a new one.
        if other is NO_COST:
            return self
        if self is NO_COST:
            return other
        prices = [price for price in (self.cost_usd, other.cost_usd) if price is not None]
        return Cost(
            calls=self.calls + other.calls,
            failed_calls=self.failed_calls + other.failed_calls,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            seconds=self.seconds + other.seconds,
            cost_usd=sum(prices) if prices else None,
            unpriced_calls=self.unpriced_calls + other.unpriced_calls,
        )

    @classmethod
    def of_response(cls, response: LLMResponse, seconds: float) -> "Cost":
        """The cost of one answered call that took `seconds` end to end."""
        return cls(
            calls=1,
            prompt_tokens=response.prompt_tokens,
            completion_tokens=response.completion_tokens,
            seconds=seconds,
            cost_usd=response.cost_usd,
            unpriced_calls=int(response.cost_usd is None),
        )

    @classmethod
    def of_failure(cls, seconds: float) -> "Cost":
        """The cost of a call that raised: tokens unknown, time spent."""
        return cls(calls=1, failed_calls=1, seconds=seconds)


# What a stage that made no call spent: adding it gives back the same Cost, not a copy.
NO_COST = Cost()


# ---------------------------------------------------------------------------------------------
# Store: decisions, outcomes (the source of truth) and the catalogue of arms


def cost_of_payload(payload: Mapping[str, Any]) -> tuple[int, float] | None:
    """(calls, seconds) from a stored decision's payload; None when it holds no usable cost.

    >>> cost_of_payload({"cost": {"calls": 3, "seconds": 1.5, "prompt_tokens": 40}})
    (3, 1.5)
    >>> cost_of_payload({"answer": "4"}) is None
    True
    """
    cost = payload.get("cost")
    if not isinstance(cost, Mapping):
        return None
    calls, seconds = cost.get("calls"), cost.get("seconds")
    if isinstance(calls, bool) or not isinstance(calls, int) or calls < 0:
        return None
    if isinstance(seconds, bool) or not isinstance(seconds, int | float):
        return None
    if not math.isfinite(seconds):
        return None
    return calls, float(seconds)


def tokens_of_payload(payload: Mapping[str, Any]) -> tuple[int, int] | None:
    """(prompt tokens, completion tokens) from a stored decision's payload; None when absent.

    >>> tokens_of_payload({"cost": {"calls": 1, "prompt_tokens": 40, "completion_tokens": 7}})
    (40, 7)
    >>> tokens_of_payload({"cost": {"calls": 1, "prompt_tokens": -1, "completion_tokens": 7}})
    """
    cost = payload.get("cost")
    if not isinstance(cost, Mapping):
        return None
    counts = cost.get("prompt_tokens"), cost.get("completion_tokens")
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in counts):
        return None
    return int(counts[0]), int(counts[1])  # type: ignore[arg-type]


@dataclass(frozen=True)
class DecisionRecord:
    """A decision as stored: key columns for queries plus the full decision as JSON."""

    decision_id: str
    namespace: str  # one engine's learning state; replicas sharing a namespace learn together
    created_at: datetime
    query: str
    # The query's context as the policies saw it, when it is not its kind's anchor (decisions
    # made before kinds, or by an engine given its own features); None for a kind's decision.
    context: tuple[float, ...] | None
    choices: Mapping[str, str]  # policy role -> chosen arm, e.g. {"path": "first_principles"}
    propensities: Mapping[str, float]  # policy role -> probability that the chosen arm was chosen
    payload: Mapping[str, Any] = field(default_factory=dict)  # candidates, trace, cost, answer
    # The kind of query it was decided for (`engine.domain.kinds`), stored once, never recomputed:
    # the policies learn its outcomes under that kind's anchor.
    kind: str | None = None

    @property
    def seconds(self) -> float | None:
        """The model seconds the decision spent (`Decision.cost`), None where not stored: a
        column of its own, so that the policies' replay reads it without the payload."""
        cost = cost_of_payload(self.payload)
        return None if cost is None else cost[1]

    @property
    def tokens(self) -> tuple[int, int] | None:
        """The decision's (prompt, completion) tokens (`Decision.cost`), None where not stored:
        columns of their own, read by the replay that prices each model (`ModelSeconds`)."""
        return tokens_of_payload(self.payload)


@dataclass(frozen=True)
class OutcomeRecord:
    """A reward for a decision from one source (checker, user, referee, ...)."""

    decision_id: str
    source: str
    reward: float  # in [0, 1]
    weight: float = 1.0  # in (0, 1]: how much this source counts
    created_at: datetime | None = None  # the store stamps it when None
    # The store refuses a client source's first score (`OutcomeLimitError`) when its decision
    # holds this many client sources already (`evidence.takes_a_place`). Checked
    # in the transaction that writes it, where concurrent posts cannot both take the last place,
    # and with no read of the decision's history before the write. None: no bound.
    max_sources: int | None = None
    # Set: a correction. `source` is then a client source, and the store keeps the outcome at
    # that source's next revision (`evidence.next_revision`, `source_key`), resolved in the
    # transaction that writes it, so that a correction makes no read before its write; past
    # this many revisions it refuses (`OutcomeLimitError`), and a value equal to the standing
    # revision's is no new row (not applied). None: the outcome is kept at `source` itself.
    max_revisions: int | None = None


@dataclass(frozen=True)
class OutcomeReceipt:
    seq: int  # the outcome's position in its namespace's learning order
    applied: bool  # False when this exact outcome had been recorded before (idempotent replay)
    revision: int = 0  # a correction's revision: the one it took, or the standing one (not applied)


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
    kind: str | None = None  # the decision's kind: its anchor is the context the policies learn
    seconds: float | None = None  # the decision's model seconds: what a draw charges its path
    # the decision's (prompt, completion) tokens: with its seconds, its model's speed
    tokens: tuple[int, int] | None = None

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
            kind=decision.kind,
            seconds=decision.seconds,
            tokens=decision.tokens,
        )


@dataclass(frozen=True)
class ArmTally:
    """The outcome-weighted tally of one arm: what the learner keeps and the store caches.

    >>> ArmTally().plus(1.0, 0.5).plus(0.0, 1.0)
    ArmTally(pulls=1.5, reward_sum=0.5, outcomes=2)
    """

    pulls: float = 0.0  # sum of weights
    reward_sum: float = 0.0  # sum of weight * reward
    outcomes: int = 0

    @property
    def mean(self) -> float | None:
        """The weighted mean reward, or None before the first outcome."""
        return self.reward_sum / self.pulls if self.pulls > 0 else None

    def plus(self, reward: float, weight: float) -> "ArmTally":
        """The tally with one more outcome (accumulated the same way everywhere, so a rebuild
        from the log agrees with the live tally to the last bit)."""
        return ArmTally(self.pulls + weight, self.reward_sum + weight * reward, self.outcomes + 1)

    def minus(self, reward: float, weight: float) -> "ArmTally":
        """The tally without one outcome it counted (one a correction or a more trusted source
        replaced); back to exactly empty when none is left, so no rounding dust stays.

        >>> ArmTally().plus(0.25, 0.5).minus(0.25, 0.5)
        ArmTally(pulls=0.0, reward_sum=0.0, outcomes=0)
        """
        if self.outcomes <= 1:
            return ArmTally()
        return ArmTally(self.pulls - weight, self.reward_sum - weight * reward, self.outcomes - 1)


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


# ---------------------------------------------------------------------------------------------
# Paths and tools


class TemplateLike(Protocol):
    """A reasoning-path template (`templates.Template`)."""

    @property
    def id(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def prompt(self) -> str: ...


@dataclass(frozen=True)
class PathDefinition:
    """A candidate reasoning path: a template's, or one generated by an aha detour.

    `procedure` is what the path does to answer (`engine.domain.procedures`): one call with the
    prompt ("single"), or the question alone, self-consistency, a program, plan then solve.
    """

    arm_id: str
    name: str
    description: str
    prompt: str  # may hold {query} and {seed} placeholders
    origin: str = "template"  # "template" or "detour"
    procedure: str = "single"

    def __post_init__(self) -> None:
        if self.procedure not in PROCEDURES:
            raise ValueError(
                f"path {self.arm_id!r}: unknown procedure {self.procedure!r}; "
                f"known: {', '.join(PROCEDURES)}"
            )

    @classmethod
    def from_template(cls, template: TemplateLike) -> "PathDefinition":
        return cls(
            arm_id=template.id,
            name=template.name,
            description=template.description,
            prompt=template.prompt,
            origin="template",
            # A template type without procedures (an experiment's own) makes single-call paths.
            procedure=str(getattr(template, "procedure", "single")),
        )

    def to_json(self) -> dict[str, str]:
        """The definition as the arm catalogue keeps it; "procedure" only when not "single", so
        a single-call path's stored definition is what it was before procedures existed."""
        stored = {
            "name": self.name,
            "description": self.description,
            "prompt": self.prompt,
        }
        if self.procedure != "single":
            stored["procedure"] = self.procedure
        return stored


@dataclass(frozen=True)
class ToolAnswer:
    """What an exact tool returns besides plain text: its output and what it did to get it.

    `value` is the answer alone ("18"), `provenance` a sentence saying how it was found ("parsed
    the whole question and computed 30 - 12 = 18"), and `fully_parsed` is True only when the
    tool accounted for the whole question (`engine.adapters.tools.reading`): only then may the
    answer prompt call the result exact, or the engine answer with it directly.
    """

    output: str
    value: str
    provenance: str
    fully_parsed: bool


@dataclass(frozen=True)
class ToolResult:
    """The outcome of one tool call: output on success, the reason on failure, and its duration.

    `value`, `provenance` and `fully_parsed` come from a tool that returns a `ToolAnswer`; a tool
    that returns plain text (search) leaves them empty and False.
    """

    ok: bool
    output: str
    error: str | None
    seconds: float
    value: str | None = None
    provenance: str | None = None
    fully_parsed: bool = False


# ---------------------------------------------------------------------------------------------
# Learner checkpoints


@dataclass(frozen=True)
class CheckpointRecord:
    """The learning state of a namespace as of outcome `seq`, for one policy configuration.

    `fingerprint` names the configuration the state was learned under (policy names, parameters,
    configured arms, context size): a process with another configuration ignores the checkpoint
    and replays the log instead. `state` is JSON-safe (`engine.orchestration.checkpoints`).
    """

    namespace: str
    fingerprint: str
    seq: int
    state: Mapping[str, Any]
    created_at: datetime | None = None
