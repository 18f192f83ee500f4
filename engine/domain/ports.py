"""The engine's ports: the small protocols that adapters implement and wrappers decorate.

Each port has one to three methods. Retry, budget, cache and tracing are wrappers that implement
the same port, so the pipeline never knows whether it talks to a bare adapter or a decorated one.
What crosses a port is a frozen record from `engine.domain.records`.
"""

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from engine.domain.kinds import KindEvent
from engine.domain.likelihood import Likelihoods
from engine.domain.models import ArmStats, TraceStep
from engine.domain.records import (
    ArmRecord,
    CheckpointRecord,
    DecisionRecord,
    LearnedOutcome,
    LLMRequest,
    LLMResponse,
    OutcomeReceipt,
    OutcomeRecord,
    ToolAnswer,
    ToolResult,
)
from retrieval.embedding.minilm import Embedder
from retrieval.port import Searcher

__all__ = [
    "LLM",
    "ArmCatalog",
    "CheckpointLog",
    "DecisionListener",
    "DecisionLog",
    "Embedder",
    "KindLog",
    "OptionScorer",
    "OutcomeLog",
    "Searcher",
    "Store",
    "TextSink",
    "Tool",
    "ToolBox",
    "Tracker",
]


# Receives each piece of an answer as the model writes it (`LLM.stream`).
TextSink = Callable[[str], None]


class LLM(Protocol):
    """A chat model. Raises `LLMError` subclasses, never a provider's own exception."""

    def complete(self, request: LLMRequest) -> LLMResponse: ...

    def stream(self, request: LLMRequest, on_text: TextSink) -> LLMResponse:
        """As `complete`, but hand each piece of text to `on_text` as the model produces it.

        The pieces joined are the response's text. An exception raised by `on_text` is the
        sink's bug: it ends the call and surfaces unchanged, never as an `LLMError`.
        """
        ...


class OptionScorer(Protocol):
    """A model's own log-probability of each continuation of a prompt (option likelihood).

    Implemented where a model exposes prompt log-probabilities: the in-process local model
    (`engine.adapters.llm.local_scoring.LocalOptionScorer`). Hosted chat providers do not, and
    where there is no scorer the option-likelihood procedure is unavailable.
    """

    def score_continuations(
        self, prompt: str, continuations: Sequence[str], timeout_s: float
    ) -> Likelihoods:
        """Score each continuation after `prompt` (plain text, no chat template), in order.

        Raises `LLMTimeoutError` past `timeout_s`, `LLMError` when the prompt and a
        continuation do not fit the model's context or a continuation is empty.
        """
        ...


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

    def outcomes_of(self, *decision_ids: str, decision_fields: bool = True) -> list[LearnedOutcome]:
        """Every outcome recorded for these decisions, in seq order (none is an empty list).

        Several decisions in one call: the learner reads the earlier outcomes of a whole batch
        in one round trip, not one per decision (the port keeps its three methods). With
        `decision_fields` False a store may leave out what the outcomes' decisions hold (choices
        empty; context, kind and seconds None): the learner folds only the scores (source,
        reward, weight, seq) and asks so, and a SQL store then reads no decision rows.
        """
        ...


class ArmCatalog(Protocol):
    def save_arm(self, arm: ArmRecord) -> None:
        """Insert or update (retire) an arm."""
        ...

    def list_arms(self, namespace: str) -> list[ArmRecord]: ...


class CheckpointLog(Protocol):
    def save_checkpoint(self, checkpoint: CheckpointRecord) -> None:
        """Keep a learner checkpoint; safe for any number of writers at once.

        A second checkpoint of the same (namespace, fingerprint, seq) is ignored: any replica's
        state as of one seq is as good as another's. Raises `StoreError` for a seq beyond the
        namespace's last outcome or a state with no JSON form. Older checkpoints may be pruned.
        """
        ...

    def latest_checkpoint(self, namespace: str, fingerprint: str) -> CheckpointRecord | None:
        """The checkpoint with the highest seq for this configuration, or None."""
        ...


class KindLog(Protocol):
    """The kinds of query of each namespace, as an append-only log of events
    (`engine.domain.kinds.KindEvent`), in one order that every process reads alike."""

    def append_kind_event(self, event: KindEvent) -> bool:
        """Append `event` at its seq; False (and nothing written) when that seq is taken.

        A writer appends at the seq after the last event it read, so this refusal is how two
        writers that meet at once learn that they must read the log again.
        """
        ...

    def kind_events_since(self, namespace: str, after_seq: int) -> list[KindEvent]:
        """The namespace's kind events with seq > `after_seq`, in seq order."""
        ...

    def kind_sizes(self, namespace: str) -> dict[str, int]:
        """How many stored decisions each kind of the namespace has."""
        ...


class Store(DecisionLog, OutcomeLog, ArmCatalog, CheckpointLog, KindLog, Protocol):
    """Everything the engine asks of its store (`InMemoryStore`, the SQL store)."""


class Tracker(Protocol):
    def log_decision(self, decision: DecisionRecord) -> None: ...

    def log_outcome(self, outcome: LearnedOutcome) -> None: ...

    def log_prob_best(self, kind: str, arms: Sequence[ArmStats]) -> None:
        """Each live arm's P(best) for `kind`, as `Engine.arms(kind=...)` gives it now."""
        ...


class Tool(Protocol):
    """A tool the answer stage may call: a name, a description for the model, and `run`.

    `run` takes one string argument and returns text for the answer prompt, or a `ToolAnswer`
    (text plus the value, its provenance and whether the whole question was parsed). It raises
    on failure (any exception); the registry turns that into a failed `ToolResult`. A tool must
    bound its own work (input size, backend timeouts), because a thread that overruns its
    deadline cannot be killed: see `engine.adapters.tools.registry`. A tool may also define
    `prepare()`, a one-time set-up (loading its libraries) that the registry runs before the first
    deadline starts, and `inline = True` when every run is pure computation bounded far below
    any deadline: the registry then runs it on the caller's thread. A tool that is not inline
    may define `precheck(argument)`, raising on the caller's thread the refusal its `run` would
    give to an argument it can tell at a glance it cannot read, and returning True when this
    argument's run is bounded computation far below any deadline (the registry then runs it
    inline), anything else when a worker should run it.
    """

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    def run(self, argument: str) -> str | ToolAnswer: ...


class ToolBox(Protocol):
    """A registry of allowed tools (`engine.adapters.tools.ToolRegistry`).

    `run` never raises for a tool's own failure."""

    def names(self) -> list[str]: ...

    def describe(self) -> Mapping[str, str]: ...

    def run(self, name: str, argument: str, timeout_s: float) -> ToolResult: ...


class DecisionListener(Protocol):
    """Hears a decision while it runs: each stage as it finishes, then the answer as it is written.

    The command line and the playground show progress with it; a streaming endpoint forwards the
    answer's tokens. Callbacks run on the deciding thread, so they must be quick and must not
    raise: an exception from a listener is a bug in the listener and surfaces as such.
    """

    def on_stage(self, step: TraceStep) -> None: ...

    def on_token(self, text: str) -> None: ...
