"""The arm book: the one owner of what the engine has learned and which arms it may choose.

It holds the path definitions, the learner (policies and tallies) and the lock that guards them,
and keeps them in step with the store's arm catalogue and outcome log. Nothing else holds a
reference to any of them: the pipeline reads an immutable `PolicyView` of one moment, and every
change goes through a method here (replaying outcomes, adding or retiring an arm).

The lock is held only while reading or changing the policies, never during an LLM call, so a slow
model never stalls another decision's bookkeeping.
"""

import operator
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import numpy as np

from engine.domain.config import DetourRules
from engine.domain.models import ArmStats, TraceStep
from engine.domain.option_arms import last_option_arm
from engine.domain.ports import Store
from engine.domain.pricing import CostPrice, DrawPrice
from engine.domain.records import NO_TOOL, ArmRecord, LearnedOutcome, PathDefinition
from engine.errors import TemplateError, UnknownArmError
from engine.orchestration.arm_stats import arm_stats, describe_learning
from engine.orchestration.checkpoints import Checkpoints, fingerprint
from engine.orchestration.earned import EarnedArms
from engine.orchestration.learner import NO_SEED, SEED, Learner, PolicyFactory
from engine.orchestration.pricing import CostCharger
from engine.orchestration.views import ModelChoice, PolicyView, SeedChoice, read_model, read_view
from engine.stages import referee
from engine.stages.candidates import admit_template
from engine.stages.detour import retirement_reason
from learning.streams import stream_seed
from templates.text import hidden_character

__all__ = ["ArmBook", "ModelChoice", "PolicyView", "SeedChoice"]

MAX_REASON_CHARS = 200
# Retired paths (templates and detours together) kept in memory with their statistics; older ones
# are archived (`archived_paths`). 64 is a long record of what was tried, and with the 64 live
# templates (`EngineConfig.max_templates`) stays well within the 256 templates kept.
KEEP_RETIRED = 64
REPLAY_BATCH = 10_000  # outcomes read from the log at a time
# The charged path draw's stream of the engine's seed: the policies take streams 0-2 (one per
# role), the chooser 0 and scoring's audit 1 of theirs; this one is apart from all of them.
DRAW_STREAM = 3
# The charged model draw's stream: apart from the path draw's and from the policies' own
# (`engine.compose.ROLE_STREAMS`: 0-2 and 4), so the model and path draws never move in lockstep.
MODEL_DRAW_STREAM = 5


class ArmBook:
    """Paths, policies and statistics of one namespace, behind one lock."""

    def __init__(
        self,
        *,
        store: Store,
        namespace: str,
        templates: list[PathDefinition],
        tools: list[str],
        policy_factory: PolicyFactory,
        context_dim: int,
        detour_rules: DetourRules,
        checkpoint_every: int = 0,
        cost_price: CostPrice | None = None,
        draw_price: DrawPrice | None = None,
        seed: int | None = None,
        context_of: Callable[[str], Sequence[float] | None] | None = None,
        models: Sequence[str] = (),
        keep_retired: int | None = None,
    ) -> None:
        self._store = store
        self._keep_retired = KEEP_RETIRED if keep_retired is None else keep_retired
        # The ids of archived paths (`archived_paths`): their definitions and statistics are gone
        # from memory, their ids stay taken and their late outcomes recognised.
        self._archived: set[str] = set()
        # The model role's arms: the catalogue's model ids (`engine.domain.catalogue`); an engine
        # given no catalogue learns no model choice (its decisions choose none).
        self._models = list(models)
        self._model_rng = np.random.default_rng(stream_seed(seed, MODEL_DRAW_STREAM))
        # cost at the path draw (`DrawPrice`); off unless given
        self._draw_price = draw_price or DrawPrice(0.0)
        self._draw_rng = np.random.default_rng(stream_seed(seed, DRAW_STREAM))
        # A decision's kind -> the context its outcomes teach under (the kind's anchor).
        self._context_of = context_of or (lambda _kind: None)
        self._earned = EarnedArms()
        # procedures: the policies learn rewards net of cost (`engine.orchestration.pricing`)
        self._charger = CostCharger(store, cost_price or CostPrice())
        self._namespace = namespace
        self._lock = threading.RLock()
        self._paths = {path.arm_id: path for path in templates}
        self._tools = [NO_TOOL, *(name for name in tools if name != NO_TOOL)]
        # Retirements made while replaying, shown in the trace of this process's next decision.
        self._pending: list[TraceStep] = []
        detours = self._register_catalog()
        path_arms = [arm for arm, path in self._paths.items() if path.origin == "template"]
        policies = {
            "path": policy_factory("path", [*path_arms, *detours], context_dim),
            "tool": policy_factory("tool", list(self._tools), context_dim),
            "seed": policy_factory("seed", [SEED, NO_SEED], context_dim),
        }
        if self._models:
            policies["model"] = policy_factory("model", list(self._models), context_dim)
        self._learner = Learner(
            policies,
            context_dim,
            # priced as every replayed batch is, so that a score taken out is the one put in
            # the scores alone: the ledger folds no choices or context (`Store.outcomes_of`)
            history=lambda decision_ids: self._charger.charge(
                store.outcomes_of(*decision_ids, decision_fields=False)
            ),
            retirable=lambda role, arm: role == "path" and self._is_detour(arm),
            retirement_rule=lambda _role, _arm, tally: retirement_reason(tally, detour_rules),
            archived=lambda role, arm: role == "path" and arm in self._archived,
        )
        configured = {"path": path_arms, "tool": self._tools, "seed": [SEED, NO_SEED]}
        if self._models:
            configured["model"] = list(self._models)
        self._checkpoints = Checkpoints(
            store,
            namespace,
            self._learner,
            fingerprint=fingerprint(policies, configured, context_dim, price=self._charger.price),
            every=checkpoint_every,
        )
        self._checkpoints.restore()  # then refresh() replays only the outcomes after it
        # after the restore: a checkpoint saved before an arm was archived still holds its tally
        for arm in self._archived:
            self._paths.pop(arm, None)
            self._learner.archive("path", arm)
        self._adopted: list[ArmRecord] = []  # the catalogue's records as last adopted

    # -- reading ---------------------------------------------------------------------------------

    def view(self, context: Sequence[float]) -> PolicyView:
        """Read the policies for this context once: candidates, cold arms, P(best), draws
        (`views.read_view`)."""
        with self._lock:
            return read_view(self._learner, self._paths, context, self._draw_price, self._draw_rng)

    def seed_choice(self, context: Sequence[float], *, first_of_kind: bool = False) -> SeedChoice:
        """The seed role's draw for this query: build a seed or not (learnt per kind of query
        from the outcomes of decisions that had, or had not, a brief). The first decision of a
        new kind builds none: it makes no call besides its answer."""
        if first_of_kind:
            return SeedChoice(False, 0.0)
        with self._lock:
            policy = self._learner.policies["seed"]
            policy_context = self._learner.policy_context("seed", context)
            probability = float(policy.probabilities(policy_context).get(SEED, 0.5))
            use = policy.select(policy_context) == SEED
            return SeedChoice(use, round(probability, 4))

    def model_choice(self, context: Sequence[float], *, pinned: str | None = None) -> ModelChoice:
        """The model role's draw for this query (`views.read_model`): the model the kind's
        posterior, less each model's measured seconds at the draw price, says; or the model a
        client pinned, with propensity 1."""
        with self._lock:
            return read_model(
                self._learner, context, self._draw_price, self._model_rng, pinned=pinned
            )

    def referee_reliability(
        self, context: Sequence[float] | None, *, prior: float, prior_pairs: float
    ) -> referee.Reliability:
        """How far the referee has proved reliable for this kind of query (its audit pairs in
        the log), and so the weight of its rewards."""
        with self._lock:
            own, pooled = self._learner.audits(context)
        return referee.reliability(own, pooled, prior=prior, prior_pairs=prior_pairs)

    def path(self, arm_id: str) -> PathDefinition:
        with self._lock:
            return self._paths[arm_id]

    def live_paths(self) -> list[str]:
        """The path arms that can be chosen now (retired ones are gone)."""
        with self._lock:
            return self._learner.policies["path"].arms

    def known_path_ids(self) -> frozenset[str]:
        """Every path id taken here, archived ones included (a new detour must not reuse one)."""
        with self._lock:
            return frozenset(self._paths) | self._archived

    def templates(self) -> list[PathDefinition]:
        """The template paths: built-in, from user folders, added at run time."""
        with self._lock:
            return [path for path in self._paths.values() if path.origin == "template"]

    def stats(
        self, context: Sequence[float] | None = None, *, model: str | None = None
    ) -> list[ArmStats]:
        """Every arm's statistics; with a context, also whether it is cold and P(best) for it;
        with a model, counted over the decisions that model answered (`arm_stats`)."""
        with self._lock:
            return arm_stats(self._learner, self._origin, context, model=model)

    def describe(self, label: Callable[[Sequence[float]], str]) -> dict[str, Any]:
        """The learning state as one JSON-safe document (see `Engine.snapshot`); `label` names
        each context the policies have learned from (a query family, say)."""
        with self._lock:
            names = {arm: path.name for arm, path in self._paths.items()}
            document = describe_learning(self._learner, self._origin, names, label)
            return {"namespace": self._namespace, **document}

    def take_pending_steps(self) -> list[TraceStep]:
        """Retirements since the last decision, for its trace (each is reported once)."""
        with self._lock:
            steps, self._pending = self._pending, []
            return steps

    # -- changing --------------------------------------------------------------------------------

    def begin_decision(self, decision_id: str) -> None:
        """Note a decision saved just now: its outcomes need no read of its earlier ones."""
        with self._lock:
            self._learner.begin_decision(decision_id)

    def refresh(self, *, catalog: bool = True, through: int = 0, wait: bool = True) -> int:
        """Adopt other processes' catalogue changes and apply new outcomes; return how many were
        applied. With `catalog` False the catalogue is read only when an outcome names a path
        this book does not know (reading it costs more than learning an outcome). With
        `through`, nothing is read when the outcomes up to that seq are applied already (by a
        refresh on another thread: under concurrent posts one refresh learns many). With `wait`
        False, nothing is done while another thread holds the book (`Engine.record_outcome`)."""
        # Checked first without the lock too: `last_seq` only grows, and a poster whose outcome
        # another thread learned meanwhile need not queue behind that thread's next read.
        if through and self._learner.last_seq >= through:
            return 0
        if not self._lock.acquire(blocking=wait):
            return 0
        try:
            return self._refresh_held(catalog=catalog, through=through)
        finally:
            self._lock.release()

    def _refresh_held(self, *, catalog: bool, through: int) -> int:
        """`refresh`'s work, with the book's lock held."""
        applied = 0
        if through and self._learner.last_seq >= through:
            return 0
        if catalog:
            self._sync_catalog()
        while True:
            before = self._learner.last_seq
            batch = self._store.outcomes_since(self._namespace, before, REPLAY_BATCH)
            if not batch or batch[-1].seq <= before:  # nothing new (or a store that repeats)
                self._checkpoints.save_if_due()
                return applied
            if not catalog and any(self._unknown_path(o.choices.get("path")) for o in batch):
                self._sync_catalog()  # a path another process added: know it, then learn
            report = self._learner.apply(self._charger.charge(self._in_context(batch)))
            applied += report.applied
            for role, arm, reason in report.retired:
                self._save_retirement(role, arm, reason)
            if report.retired:
                self._sync_catalog()  # the retirements may archive older retired paths
            if len(batch) < REPLAY_BATCH:  # the end of the log: no second read to learn so
                self._checkpoints.save_if_due()
                return applied

    def _unknown_path(self, arm: str | None) -> bool:
        return arm is not None and arm not in self._paths and arm not in self._archived

    def _in_context(self, batch: list[LearnedOutcome]) -> list[LearnedOutcome]:
        """Each outcome under its decision's kind's anchor (read here, never recomputed)."""
        placed = []
        for outcome in batch:
            anchor = None if outcome.kind is None else self._context_of(outcome.kind)
            placed.append(
                outcome
                if anchor is None or outcome.context is not None
                else replace(outcome, context=tuple(anchor))
            )
        return placed

    def explorable(self, role: str, context: Sequence[float]) -> frozenset[str]:
        """The arms of `role` a draw may take for this context: while the kind is new (fewer
        outcomes of its own than the learner's recent window), every arm but those dominated
        on every kind with enough evidence (`EarnedArms`); then every arm, so that an arm
        dominated elsewhere can still prove itself on a kind unlike the others."""
        with self._lock:
            policy = self._learner.policies[role]
            if len(self._learner.recent_rewards(context)) >= self._learner.recent_window:
                return frozenset(policy.arms)
            dominated = self._earned.dominated(role, self._learner)
            return frozenset(arm for arm in policy.arms if arm not in dominated)

    def add_template(
        self, path: PathDefinition, *, max_templates: int, max_kept: int | None = None
    ) -> None:
        """Add a template path as a new arm, saved in the catalogue for every process.

        Refused (`TemplateError`) for an id taken or too close to a taken one, retired and
        archived ones included, when the live templates reached `max_templates`, and when the
        templates kept, live and retired but not archived, reached `max_kept` (see
        `admit_template`).
        """
        with self._lock:
            self._sync_catalog()
            live = len(self._live_templates())
            admit_template(
                path, self._paths, live, max_templates, max_kept=max_kept, archived=self._archived
            )
            self._save(path, "template")
            self._paths[path.arm_id] = path
            self._learner.add_arm("path", path.arm_id)

    def retire_path(self, arm_id: str, reason: str) -> None:
        """Retire a path arm (template or detour) for good; its statistics stay for the record.

        Retiring a retired path again changes nothing. Raises `UnknownArmError` for an id that
        is no path or an archived one (`archived_paths`), `TemplateError` for a missing reason
        (1 to 200 characters), the last live template, or the last live path that answers with
        an option on any model (`engine.domain.option_arms`).
        """
        why = reason.strip() if isinstance(reason, str) else ""
        if not why or len(why) > MAX_REASON_CHARS:
            raise TemplateError(
                f"give a reason for retiring the path (1 to {MAX_REASON_CHARS} characters)"
            )
        hidden = hidden_character(why)  # the reason is stored and shown beside the arm
        if hidden is not None:
            raise TemplateError(f"the reason contains {hidden}, which hides or reorders text")
        with self._lock:
            self._sync_catalog()
            path = self._paths.get(arm_id)
            if arm_id in self._archived:  # no statistics left in memory to show for it
                raise UnknownArmError(
                    f"{arm_id!r} was retired and has been archived: its outcomes are in the log, "
                    "its id stays taken, and there is nothing left to retire"
                )
            if path is None:
                raise UnknownArmError(
                    f"no path with the id {arm_id!r}: no template or detour has it"
                )
            if ("path", arm_id) in self._learner.retired:
                return
            if path.origin == "template" and self._live_templates() == [arm_id]:
                raise TemplateError(
                    f"{arm_id!r} is the last live template; add another before retiring it"
                )
            last = last_option_arm(self._paths, self._learner.policies["path"].arms, arm_id)
            if last is not None:
                raise TemplateError(last)
            self._learner.retire("path", arm_id, why)
            # Archived, if it is among the oldest retired, at the next read of the catalogue:
            # the caller reads its statistics first (`Engine.retire_template`).
            self._save_retirement("path", arm_id, why, trace=False)

    def _live_templates(self) -> list[str]:
        return [
            arm
            for arm in self._learner.policies["path"].arms
            if self._paths[arm].origin == "template"
        ]

    def add_detours(self, fresh: list[PathDefinition], reason: str) -> None:
        """Adopt the paths an aha detour generated: saved with why, and live arms from now on."""
        with self._lock:
            for path in fresh:
                self._save(path, "detour", created_because=reason)
                self._paths[path.arm_id] = path
                self._learner.add_arm("path", path.arm_id)

    # -- the catalogue -------------------------------------------------------------------------

    def _save(self, path: PathDefinition, origin: str, **extra: str) -> None:
        definition = {**path.to_json(), **extra}
        now = datetime.now(UTC)
        self._store.save_arm(
            ArmRecord(self._namespace, "path", path.arm_id, origin, definition, now)  # type: ignore[arg-type]
        )

    def _register_catalog(self) -> list[str]:
        """Register templates and tools in the catalogue; return the live detour arms found."""
        now = datetime.now(UTC)
        known = {(a.role, a.arm_id): a for a in self._store.list_arms(self._namespace)}
        for arm_id, path in self._paths.items():
            if ("path", arm_id) not in known:
                self._save(path, "template")
        for tool in self._tools:
            if ("tool", tool) not in known:
                self._store.save_arm(ArmRecord(self._namespace, "tool", tool, "tool", {}, now))
        live = []
        self._archived = archived_paths(known.values(), self._keep_retired)
        for record in _in_creation_order(known.values()):
            if record.arm_id in self._archived:
                continue  # dropped once the learner is built (a template may be configured)
            if record.role == "path" and record.origin == "detour":
                self._paths[record.arm_id] = stored_path(record)
                if record.retired_at is None:
                    live.append(record.arm_id)
        return live

    def _sync_catalog(self) -> None:
        """Adopt templates added, detour arms created and retirements made by other processes.

        Every change to the catalogue, this process's own included, saves a new record (they are
        frozen), so the very records adopted last time hold nothing new: a store that hands
        them out again (the in-memory one) is not read through at every decision, some 30 us;
        one that reads them afresh (SQL) is adopted in full.
        """
        records = self._store.list_arms(self._namespace)
        if len(records) == len(self._adopted) and all(map(operator.is_, records, self._adopted)):
            return
        live = set(self._learner.policies["path"].arms)
        archived = archived_paths(records, self._keep_retired)
        for arm in archived - self._archived:
            self._paths.pop(arm, None)
            self._learner.archive("path", arm)
        self._archived |= archived  # never shrinks, whatever a store hands out
        for record in _in_creation_order(records):
            if record.role != "path" or record.origin not in ("detour", "template"):
                continue
            if record.arm_id in self._archived:
                continue
            if record.arm_id not in self._paths:
                self._paths[record.arm_id] = stored_path(record)
            # Templates and detours alike: a retired one (`retire_path`) stays retired.
            if record.retired_at is not None:
                if ("path", record.arm_id) not in self._learner.retired:
                    self._learner.retire("path", record.arm_id, record.retired_reason or "retired")
            elif record.arm_id not in live:
                self._learner.add_arm("path", record.arm_id)
        self._adopted = records

    def _save_retirement(self, role: str, arm: str, reason: str, *, trace: bool = True) -> None:
        now = datetime.now(UTC)
        # Keep what the stored record holds beyond the path (a detour's "created_because").
        stored = {a.arm_id: a for a in self._store.list_arms(self._namespace)}.get(arm)
        record = stored or ArmRecord(
            self._namespace, role, arm, "detour", self._paths[arm].to_json(), now
        )
        self._store.save_arm(replace(record, retired_at=now, retired_reason=reason))
        if not trace:  # asked for by a caller, who hears of it directly
            return
        # Shown in the trace of the next decision this process makes: the retirement happened
        # between decisions, while replaying outcomes.
        self._pending.append(
            TraceStep(
                stage="retirement", reason="retired", inputs={"arm": arm}, outputs={"why": reason}
            )
        )

    def _is_detour(self, arm: str) -> bool:
        path = self._paths.get(arm)
        return path is not None and path.origin == "detour"

    def _origin(self, role: str, arm: str) -> str:
        if role in ("tool", "seed", "model"):
            return role
        return "detour" if self._is_detour(arm) else "template"


def archived_paths(records: Iterable[ArmRecord], keep: int) -> set[str]:
    """The path arms archived: the retired ones but the `keep` created last.

    A function of the catalogue alone (which arms are retired, and their creation order, both
    stored), so every process sharing a store archives the same arms whenever it reads it. It
    only grows as arms retire: an arm archived once is among the oldest retired for good.
    Creation order, not retirement order: a learner retires a failing detour in every replica
    that replays its outcomes, each saving its own retirement time; the creation time is saved
    once, by the process that created the arm.
    """
    retired = sorted(
        (record.created_at, record.arm_id)  # `_in_creation_order`'s order
        for record in records
        if record.role == "path"
        and record.origin in ("detour", "template")
        and record.retired_at is not None
    )
    return {arm for _created, arm in retired[: max(0, len(retired) - keep)]}


def _in_creation_order(records: Iterable[ArmRecord]) -> list[ArmRecord]:
    """Arms in the order they were created: the order the process that created them added them
    to its policies, so a restart or a replica holds the arms in the same order (the catalogue
    lists them by id)."""
    return sorted(records, key=lambda record: (record.created_at, record.arm_id))


def stored_path(record: ArmRecord) -> PathDefinition:
    """A path definition as the catalogue keeps it."""
    definition = record.definition
    return PathDefinition(
        arm_id=record.arm_id,
        name=str(definition.get("name", record.arm_id)),
        description=str(definition.get("description", "")),
        prompt=str(definition.get("prompt", "{query}")),
        origin=record.origin,
        procedure=str(definition.get("procedure", "single")),  # procedures: what the path does
    )
