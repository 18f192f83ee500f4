"""Learner checkpoints: start from the newest saved state and replay only the outcomes after it.

An engine's learning state is a pure function of the outcome log, so replaying the log from the
start is always right, and slow once the log is long (about 17 us an outcome). A checkpoint is the
learner's state as of a seq, kept in the store (`CheckpointLog`); an engine that finds one for its
configuration takes it over and replays the outcomes after it, which gives the same statistics,
arm for arm, as replaying everything.

The checkpoint is a cache, never the truth. It is keyed by a fingerprint of the configuration
that learned it (policy names and parameters, configured template arms and tools, context size),
so an engine configured differently ignores it and replays the log; a checkpoint that cannot be
read back is skipped the same way, with a warning. `thinkpath store rebuild` never reads one.

Any replica may write one: every process replays the same sequence, so their states as of one seq
agree (the store keeps the first). Saving is best effort: a failure costs a longer replay at the
next start, so it is logged and the decision that triggered it goes on.
"""

import hashlib
import json
import logging
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from engine.domain.ports import CheckpointLog
from engine.domain.pricing import CostPrice
from engine.domain.records import CheckpointRecord
from engine.errors import StoreError
from engine.orchestration.learner import Learner
from learning import KeyedPolicy, PolicyLike, load_policy

__all__ = ["FORMAT", "Checkpoints", "PolicyLoader", "fingerprint", "restore_policy"]

log = logging.getLogger(__name__)

# Raised when the layout of `Learner.state()` changes: older checkpoints then stop matching.
# 2: the seed role, the referee's audit counts and each decision's evidence in force. The
# evidence has since left the state (the ledger reads it from the store), which a format-2
# checkpoint still serves: its "evidence" is ignored, so an upgrade needs no full replay.
# 3: each path's seconds per kind (`PathSeconds`), which a format-2 checkpoint lacks.
# 4: one anchor per kind (`engine.domain.kinds.distinct_anchor`): a checkpoint of format 3 may
# hold two kinds' outcomes under one shared anchor, which only a replay of the log tells apart.
# 5: each model's seconds with its work (`ModelSeconds`: [seconds, work, count]), where format
# 4 kept a model's mean seconds a decision ([seconds, count]); each tool's seconds per kind;
# each arm's tally per model that answered (`model_tallies`).
FORMAT = 5
# The keys of a policy's `to_dict()` that say how it is configured, not what it has learned.
CONFIGURATION_KEYS = ("format_version", "policy", "params", "keyed_by_context")

# Rebuilds one plain policy from its `to_dict()` output (`learning.load_policy`).
PolicyLoader = Callable[[Mapping[str, Any]], PolicyLike]


def fingerprint(
    policies: Mapping[str, PolicyLike],
    configured_arms: Mapping[str, Iterable[str]],
    context_dim: int,
    *,
    price: CostPrice | None = None,
) -> str:
    """A short hash of what a checkpoint's state depends on besides the outcomes.

    `configured_arms` are each role's arms from configuration (template paths, tools), not those
    found in the store: detours come and go with the log, and the checkpoint carries them. An
    active `price` (cost in the reward) changes what was learned from the same log, so it is
    named too; an inactive one is left out, so that prices off keep earlier fingerprints.

    The embedder is not named, by design: the contexts a checkpoint holds are the kinds'
    anchors, read from the kind log, never embedded again, so a replay by any process gives
    the same state. Which embedder the log's vectors come from is recorded in the log itself,
    and a process with another refuses to match queries against them (`kind_book`).
    """
    described: dict[str, Any] = {
        "format": FORMAT,
        "context_dim": context_dim,
        "policies": {role: _configuration(policy.to_dict()) for role, policy in policies.items()},
        "arms": {role: sorted(arms) for role, arms in configured_arms.items()},
    }
    if price is not None and price.active:
        described["price"] = [price.per_call, price.per_second, price.max_calls, price.max_seconds]
    text = json.dumps(described, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _configuration(state: Mapping[str, Any]) -> dict[str, Any]:
    return {key: state[key] for key in CONFIGURATION_KEYS if key in state}


def restore_policy(fresh: PolicyLike, saved: Mapping[str, Any], load: PolicyLoader) -> PolicyLike:
    """The policy that `saved` describes, with the random state that `fresh` starts from.

    Replaying the log draws no random numbers, so a full replay leaves a policy with its seed's
    random state; taking `fresh`'s keeps a restored engine's decisions the same as a replayed
    one's (and the same seed gives the same decisions with or without a checkpoint).
    """
    if saved.get("keyed_by_context"):
        if not isinstance(fresh, KeyedPolicy):
            raise TypeError(f"{type(fresh).__name__} cannot take over a keyed policy's state")
        contexts = [
            {**entry, "state": {**entry["state"], "rng": fresh.initial_rng(entry["context"])}}
            for entry in saved["stats"]["contexts"]
        ]
        saved = {**saved, "stats": {**saved["stats"], "contexts": contexts}}
    return load({**saved, "rng": fresh.to_dict()["rng"]})


class Checkpoints:
    """Loads the newest checkpoint into a learner, and saves one every `every` outcomes."""

    def __init__(
        self,
        store: CheckpointLog,
        namespace: str,
        learner: Learner,
        *,
        fingerprint: str,
        every: int,
        load: PolicyLoader = load_policy,
    ) -> None:
        if every < 0:
            raise ValueError(f"checkpoint interval must be 0 (never) or positive, got {every}")
        self._store = store
        self._namespace = namespace
        self._learner = learner
        self._fingerprint = fingerprint
        self._load = load
        self._every = every
        self._saved_seq = 0

    def restore(self) -> int:
        """Take over the newest checkpoint of this configuration; return its seq (0: none).

        Call it on a learner that has applied nothing yet.
        """
        checkpoint = self._store.latest_checkpoint(self._namespace, self._fingerprint)
        if checkpoint is None:
            return 0
        state = checkpoint.state
        try:
            policies = {
                role: restore_policy(fresh, state["policies"][role], self._load)
                for role, fresh in self._learner.policies.items()
            }
            self._learner.restore(state, policies)
        except (KeyError, TypeError, ValueError) as error:
            # A damaged or foreign state: the log is the truth, so replay it from the start.
            log.warning(
                "checkpoint at seq %d of namespace %r is unreadable (%s: %s); replaying the log",
                checkpoint.seq,
                self._namespace,
                type(error).__name__,
                error,
            )
            return 0
        self._saved_seq = self._learner.last_seq
        return self._learner.last_seq

    def save_if_due(self) -> bool:
        """Save the learner's state when `every` outcomes have been applied since the last one."""
        seq = self._learner.last_seq
        if self._every == 0 or seq - self._saved_seq < self._every:
            return False
        record = CheckpointRecord(self._namespace, self._fingerprint, seq, self._learner.state())
        try:
            self._store.save_checkpoint(record)
        except StoreError as error:
            log.warning("could not save a checkpoint at seq %d: %s", seq, error)
            return False
        finally:
            self._saved_seq = seq  # a failing store is not retried on every refresh
        return True
