"""The facade: `Engine.decide`, `Engine.record_outcome`, `Engine.arms`, `Engine.refresh`.

    engine = build_engine(Settings())                      # engine.compose
    decision = engine.decide("What is 17 * 23?", checker=my_checker)
    engine.record_outcome(decision.id, "user", 1.0)

The engine learns only by replaying the store's outcome log (`outcomes_since`) into its in-memory
policies, in seq order. Its own outcomes take the same road as everyone else's, so several
processes sharing one store apply the same sequence and hold the same statistics.
"""

import threading
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

import numpy as np

from engine.adapters.llm.budget import Budget
from engine.core.config import EngineConfig
from engine.core.learner import ROLES, ArmTally, Learner, PolicyFactory, roles_taught_by
from engine.core.models import ArmStats, Decision, OutcomeResult, TraceStep
from engine.core.pipeline import Checker, Draft, Pipeline
from engine.core.ports import LLM, DecisionListener, Featurizer, Searcher, Store, ToolBox, Tracker
from engine.core.records import (
    NO_TOOL,
    ArmRecord,
    DecisionRecord,
    LearnedOutcome,
    OutcomeRecord,
    PathDefinition,
    TemplateLike,
)
from engine.errors import InvalidQueryError, InvalidRewardError, TemplateError
from engine.stages.candidates import paths_from_templates
from engine.stages.detour import retirement_reason

MAX_QUERY_CHARS = 8000


class Engine:
    """Decides, records outcomes and learns from them; safe to share between threads."""

    def __init__(
        self,
        *,
        llm: LLM,
        searcher: Searcher,
        store: Store,
        templates: Sequence[TemplateLike],
        featurizer: Featurizer,
        policy_factory: PolicyFactory,
        toolbox: ToolBox | None = None,
        family_of: Callable[[str], str] | None = None,
        config: EngineConfig | None = None,
        tracker: Tracker | None = None,
    ) -> None:
        self.config = config or EngineConfig()
        self._store = store
        self._tracker = tracker
        self._lock = threading.RLock()
        self._paths: dict[str, PathDefinition] = {
            p.arm_id: p for p in paths_from_templates(templates)
        }
        self._featurizer = featurizer
        self._context_dim = int(np.asarray(featurizer("probe")).shape[0])
        # "none" is always an arm, whether or not the toolbox lists it.
        listed = toolbox.names() if toolbox else []
        self._tools = [NO_TOOL, *(name for name in listed if name != NO_TOOL)]
        self._pending_retirements: list[TraceStep] = []
        detours = self._load_catalog()
        path_arms = [arm for arm in self._paths if self._paths[arm].origin == "template"]
        policies = {
            "path": policy_factory("path", [*path_arms, *detours], self._context_dim),
            "tool": policy_factory("tool", list(self._tools), self._context_dim),
        }
        rules = self.config.detour
        self._learner = Learner(
            policies,
            self._context_dim,
            retirable=lambda role, arm: role == "path" and self._is_detour(arm),
            retirement_rule=lambda _role, _arm, tally: retirement_reason(tally, rules),
        )
        self._pipeline = Pipeline(
            llm=llm,
            searcher=searcher,
            toolbox=toolbox,
            featurizer=featurizer,
            family_of=family_of,
            learner=self._learner,
            paths=self._paths,
            config=self.config,
            lock=self._lock,
        )
        self.refresh()

    # -- the three-line API ---------------------------------------------------------------------

    def decide(
        self,
        query: str,
        *,
        checker: Checker | None = None,
        budget: Budget | None = None,
        listener: DecisionListener | None = None,
    ) -> Decision:
        """Choose a path and a tool for `query`, answer it, score it, and learn from the score.

        `checker(answer_text) -> reward in [0, 1]` is an exact checker when the task has one;
        without it an LLM referee judges the answer. A `listener` hears each stage as it finishes
        (progress for a user who waits). LLM, retrieval and tool faults never raise:
        the decision comes back with `degraded=True` and the fault in its trace.
        """
        query = _check_query(query)
        self.refresh()
        draft = self._pipeline.run(query, checker=checker, budget=budget, listener=listener)
        decision = self._persist(draft)
        self.refresh()
        return decision

    def record_outcome(
        self, decision_id: str, source: str, reward: float, weight: float | None = None
    ) -> OutcomeResult:
        """Record a reward for a decision from one source (now or hours later) and learn from it.

        Posting the same (decision, source) again applies it once; a different value for the
        same key raises `OutcomeConflictError`. Raises `UnknownDecisionError` and
        `InvalidRewardError` for bad input, with nothing recorded.
        """
        if not isinstance(source, str) or not source.strip():
            raise InvalidRewardError("source must be a non-empty name such as 'user'")
        weight = self.config.weight_for(source) if weight is None else weight
        record = OutcomeRecord(decision_id, source, float(reward), float(weight))
        receipt = self._store.record_outcome(record)
        if receipt.applied and self._tracker is not None:
            self._log_outcome(receipt.seq, record)
        self.refresh()
        return OutcomeResult(
            decision_id=decision_id,
            source=source,
            reward=record.reward,
            weight=record.weight,
            seq=receipt.seq,
            applied=receipt.applied,
            roles=list(roles_taught_by(source)),
        )

    def refresh(self) -> int:
        """Apply outcomes recorded since the last refresh (by any process); return how many."""
        applied = 0
        with self._lock:
            self._sync_catalog()
            while True:
                before = self._learner.last_seq
                batch = self._store.outcomes_since(self.config.namespace, before)
                if not batch or batch[-1].seq <= before:  # nothing new (or a store that repeats)
                    return applied
                report = self._learner.apply(batch)
                applied += report.applied
                for role, arm, reason in report.retired:
                    self._save_retirement(role, arm, reason)

    def outcome_log(self, limit: int = 10_000) -> list[LearnedOutcome]:
        """The namespace's outcomes in learning order (the first `limit`)."""
        return self._store.outcomes_since(self.config.namespace, 0, limit)

    def get_decision(self, decision_id: str) -> Decision:
        """A stored decision, as it was returned (outcomes recorded later are in the log)."""
        return Decision.model_validate(self._store.get_decision(decision_id).payload)

    def arms(self, query: str | None = None) -> list[ArmStats]:
        """Every arm's statistics; with a query, also whether it is cold and P(best) for it."""
        with self._lock:
            context = self._featurize(query) if query is not None else None
            rows = []
            for role in ROLES:
                policy = self._learner.policies[role]
                live = policy.arms
                known = live + [a for (r, a) in self._learner.retired if r == role]
                policy_context = self._learner.policy_context(role, context)
                prob_best = policy.prob_best(policy_context) if context is not None else {}
                for arm in known:
                    tally = self._learner.tallies.get((role, arm), ArmTally())
                    rows.append(
                        ArmStats(
                            role=role,
                            arm_id=arm,
                            origin=self._origin(role, arm),
                            pulls=round(tally.pulls, 6),
                            mean_reward=tally.mean,
                            outcomes=tally.outcomes,
                            retired=arm not in live,
                            retired_reason=self._learner.retired.get((role, arm)),
                            cold=policy.is_cold(arm, policy_context)
                            if context is not None and arm in live
                            else None,
                            prob_best=prob_best.get(arm),
                        )
                    )
            return rows

    def templates(self) -> list[PathDefinition]:
        """The template paths to choose among: built-in, from user folders, added at run time."""
        with self._lock:
            return [path for path in self._paths.values() if path.origin == "template"]

    def add_template(self, template: TemplateLike) -> PathDefinition:
        """Add a template as a new path arm, saved in the store so other processes adopt it too.

        Raises `TemplateError` when a path with that id exists already (templates are not edited
        in place: an arm's statistics belong to the prompt that earned them).
        """
        path = PathDefinition.from_template(template)
        with self._lock:
            self._sync_catalog()
            if path.arm_id in self._paths:
                raise TemplateError(f"a path with the id {path.arm_id!r} exists already")
            self._store.save_arm(
                ArmRecord(
                    self.config.namespace,
                    "path",
                    path.arm_id,
                    "template",
                    path.to_json(),
                    datetime.now(UTC),
                )
            )
            self._paths[path.arm_id] = path
            self._learner.add_arm("path", path.arm_id)
        return path

    # -- persistence ----------------------------------------------------------------------------

    def _persist(self, draft: Draft) -> Decision:
        decision = draft.decision
        with self._lock:
            now = datetime.now(UTC)
            for path in draft.new_paths:
                definition = {**path.to_json(), "created_because": draft.detour_reason or ""}
                self._store.save_arm(
                    ArmRecord(self.config.namespace, "path", path.arm_id, "detour", definition, now)
                )
            retirements, self._pending_retirements = self._pending_retirements, []
        decision = decision.model_copy(update={"trace": [*retirements, *decision.trace]})
        record = DecisionRecord(
            decision_id=decision.id,
            namespace=decision.namespace,
            created_at=decision.created_at,
            query=decision.query,
            context=tuple(decision.context) if decision.context is not None else None,
            choices={"path": decision.path.arm_id, "tool": decision.tool.arm_id},
            propensities={"path": decision.path.propensity, "tool": decision.tool.propensity},
            payload=decision.model_dump(mode="json"),
        )
        self._store.save_decision(record)
        if self._tracker is not None:
            self._tracker.log_decision(record)
        results = [
            self.record_outcome(decision.id, source, reward, draft.weights.get(source))
            for source, reward in draft.outcomes
        ]
        return decision.model_copy(update={"outcomes": results})

    def _log_outcome(self, seq: int, record: OutcomeRecord) -> None:
        decision = self._store.get_decision(record.decision_id)
        assert self._tracker is not None
        self._tracker.log_outcome(LearnedOutcome.join(seq, decision, record))

    def _load_catalog(self) -> list[str]:
        """Register the templates in the catalogue; return the live detour arms found there."""
        now = datetime.now(UTC)
        known = {(a.role, a.arm_id): a for a in self._store.list_arms(self.config.namespace)}
        for arm_id, path in self._paths.items():
            if ("path", arm_id) not in known:
                self._store.save_arm(
                    ArmRecord(
                        self.config.namespace, "path", arm_id, "template", path.to_json(), now
                    )
                )
        for tool in self._tools:
            if ("tool", tool) not in known:
                self._store.save_arm(
                    ArmRecord(self.config.namespace, "tool", tool, "tool", {}, now)
                )
        live = []
        for record in known.values():
            if record.role == "path" and record.origin == "detour":
                self._paths[record.arm_id] = _stored_path(record)
                if record.retired_at is None:
                    live.append(record.arm_id)
        return live

    def _sync_catalog(self) -> None:
        """Adopt templates added, detour arms created and retirements made by other processes."""
        for record in self._store.list_arms(self.config.namespace):
            if record.role != "path" or record.origin not in ("detour", "template"):
                continue
            if record.arm_id not in self._paths:
                self._paths[record.arm_id] = _stored_path(record)
            if record.origin == "template":
                self._learner.add_arm("path", record.arm_id)
                continue
            if record.retired_at is not None:
                if ("path", record.arm_id) not in self._learner.retired:
                    self._learner.retire("path", record.arm_id, record.retired_reason or "retired")
            else:
                self._learner.add_arm("path", record.arm_id)

    def _save_retirement(self, role: str, arm: str, reason: str) -> None:
        now = datetime.now(UTC)
        path = self._paths[arm]
        self._store.save_arm(
            ArmRecord(self.config.namespace, role, arm, "detour", path.to_json(), now, now, reason)
        )
        # Shown in the trace of the next decision this process makes: the retirement happened
        # between decisions, while replaying outcomes.
        self._pending_retirements.append(
            TraceStep(
                stage="retirement", reason="retired", inputs={"arm": arm}, outputs={"why": reason}
            )
        )

    def _is_detour(self, arm: str) -> bool:
        path = self._paths.get(arm)
        return path is not None and path.origin == "detour"

    def _origin(self, role: str, arm: str) -> str:
        if role == "tool":
            return "tool"
        return "detour" if self._is_detour(arm) else "template"

    def _featurize(self, query: str) -> list[float]:
        return [float(x) for x in np.asarray(self._featurizer(_check_query(query)), dtype=float)]


def _stored_path(record: ArmRecord) -> PathDefinition:
    definition = record.definition
    return PathDefinition(
        arm_id=record.arm_id,
        name=str(definition.get("name", record.arm_id)),
        description=str(definition.get("description", "")),
        prompt=str(definition.get("prompt", "{query}")),
        origin=record.origin,
    )


def _check_query(query: object) -> str:
    if not isinstance(query, str):
        raise InvalidQueryError(f"the query must be text, got {type(query).__name__}")
    text = query.strip()
    if not text:
        raise InvalidQueryError("the query is empty")
    if len(text) > MAX_QUERY_CHARS:
        raise InvalidQueryError(
            f"the query has {len(text)} characters; the limit is {MAX_QUERY_CHARS}"
        )
    return text
