"""The facade: `Engine.decide`, `Engine.record_outcome`, `Engine.arms`, `Engine.snapshot`.

    engine = build_engine()                                # engine.compose
    decision = engine.decide("What is 17 * 23?", checker=my_checker)
    engine.record_outcome(decision.id, reward=1.0, source="user")

The engine learns only by replaying the store's outcome log (`outcomes_since`) into its in-memory
policies, in seq order. Its own outcomes take the same road as everyone else's, so several
processes sharing one store apply the same sequence and hold the same statistics. The learning
state belongs to one `ArmBook`; the facade runs the pipeline and commits what it produced.
"""

from collections.abc import Callable, Sequence
from typing import Any

from engine.domain import evidence
from engine.domain.budget import Budget
from engine.domain.catalogue import ModelCatalogue
from engine.domain.config import EngineConfig
from engine.domain.kinds import FALLBACK_DIMENSION
from engine.domain.models import ArmStats, Decision, OutcomeResult
from engine.domain.ports import (
    LLM,
    DecisionListener,
    Embedder,
    OptionScorer,
    Searcher,
    Store,
    ToolBox,
    Tracker,
)
from engine.domain.records import (
    ArmRecord,
    ChatOptions,
    DecisionRecord,
    LearnedOutcome,
    PathDefinition,
    TemplateLike,
)
from engine.errors import ConfigError
from engine.orchestration.arm_book import ArmBook
from engine.orchestration.decide_input import (
    check_decision_id,
    check_forced,
    check_query,
    checked_source,
    offered_options,
)
from engine.orchestration.kind_book import KindBook, KindSettings, describe_kinds
from engine.orchestration.learner import PolicyFactory
from engine.orchestration.outcome_posts import OutcomePosts, result_of
from engine.orchestration.pipeline import Checker, Draft, Pipeline
from engine.stages import tools
from engine.stages.candidates import paths_from_templates


class Engine:
    """Decides, records outcomes and learns from them; safe to share between threads."""

    def __init__(
        self,
        *,
        llm: LLM | None = None,
        searcher: Searcher,
        store: Store,
        templates: Sequence[TemplateLike],
        embedder: Embedder | None,
        policy_factory: PolicyFactory,
        toolbox: ToolBox | None = None,
        program_toolbox: ToolBox | None = None,
        config: EngineConfig | None = None,
        tracker: Tracker | None = None,
        option_scorer: OptionScorer | None = None,
        models: ModelCatalogue | None = None,
    ) -> None:
        """`models` is the catalogue the engine chooses from per kind of query; without it,
        `llm` (and its `option_scorer`) is the one model, named by its `model` attribute.
        Given both, `models` wins."""
        self.config = config or EngineConfig()
        if models is None:
            if llm is None:
                raise ConfigError("an engine needs a model: give `llm` or a `models` catalogue")
            models = ModelCatalogue.of_one(llm, option_scorer)
        self.models = models
        self._store = store
        self._tracker = tracker
        self._posts = OutcomePosts(store, self.config, tracker)
        dimension = embedder.dimension if embedder is not None else FALLBACK_DIMENSION
        self._kinds = KindBook(
            log=store,
            namespace=self.config.namespace,
            embedder=embedder,
            dimension=dimension,
            settings=KindSettings(self.config.kind_threshold, self.config.max_kinds),
        )
        self._book = ArmBook(
            store=store,
            namespace=self.config.namespace,
            templates=paths_from_templates(templates),
            tools=tools.tool_arms(toolbox.names()) if toolbox else [],
            policy_factory=policy_factory,
            context_dim=dimension,
            detour_rules=self.config.detour,
            checkpoint_every=self.config.checkpoint_every,
            cost_price=self.config.cost_price,  # procedures: cost in the reward
            draw_price=self.config.draw_price,  # and each path's seconds at the draw
            seed=self.config.seed,
            context_of=self._kinds.context_of,
            models=self.models.ids,
        )
        self._pipeline = Pipeline(
            models=self.models,
            searcher=searcher,
            toolbox=toolbox,
            # procedures: runs the program arm's programs, whatever the tool allow-list says
            program_toolbox=program_toolbox or toolbox,
            kinds=self._kinds,
            book=self._book,
            config=self.config,
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
        chat: ChatOptions | None = None,
        force_path: str | None = None,
        decision_id: str | None = None,
        task: str | None = None,
        checked_by: str | None = None,
        options: Sequence[str] | None = None,
        model: str | None = None,
    ) -> Decision:
        """Choose a model, a path and a tool for `query`, answer it, score it, and learn from
        the score.

        `task` names the kind of query (a slug such as "ticket-triage"; `InvalidKindError`
        otherwise): a named task is a kind of its own, and the engine learns for it apart.
        Without one, the query joins the known kind its embedding is nearest to, or starts a
        new kind (`engine.domain.kinds`); the decision says which, and why.

        `checker(answer_text) -> reward in [0, 1]` is an exact checker when the task has one;
        without it an LLM referee judges the answer. `checked_by` ("user" or "user:<name>")
        says the checker was built from that client's expected answer: its score is then the
        client's claim, recorded as that source's score (trusted as a user's, and corrected by
        the same source with `record_outcome(..., replace=True)`), never the engine's `checker`
        (`engine.domain.evidence`). A `listener` hears each stage as it finishes
        (progress for a user who waits) and the answer's text as it is written. LLM, retrieval
        and tool faults never raise: the decision comes back with `degraded=True` and the fault
        in its trace.

        For chat clients (the OpenAI-compatible endpoint): `chat` adds earlier turns, the
        application's instructions and answer settings to the answer prompt; `force_path` takes
        that live path arm with propensity 1 (reason "forced"), and its outcomes are recorded
        and learned from as any decision's; `decision_id` names the decision in advance (a
        stream labels its chunks before the decision ends), unique and URL-safe.

        `options` are the answers the question allows, in order (2 to 26 distinct strings):
        without them they are read from the question where it offers some ("(A) ... (B) ...",
        a yes/no question, "X or Y?"). Where there are options, the paths that answer with one
        of them are candidates (`engine.stages.option_procedures`), and their answer is always
        one of the options, in the form the question asks for (its letter, or its text).
        """
        query = check_query(query)
        if model is not None:
            self.models.resolve(model)  # an unknown model raises before any work
        offered = offered_options(query, options)
        checked_by = checked_source(checked_by, has_checker=checker is not None)
        check_decision_id(decision_id)
        self.refresh()  # outcomes other processes recorded since this one last looked
        if force_path is not None:
            check_forced(
                force_path,
                self._book.live_paths(),
                lambda arm: self._book.path(arm).procedure,
                offered,
                given=options is not None,
            )
        draft = self._pipeline.run(
            query,
            checker=checker,
            budget=budget,
            listener=listener,
            chat=chat,
            force_path=force_path,
            decision_id=decision_id,
            task=task,
            checked_by=checked_by,
            options=offered,
            model=model,
        )
        return self._commit(draft)

    def record_outcome(
        self,
        decision_id: str,
        source: str = "user",
        reward: float | None = None,
        weight: float | None = None,
        *,
        replace: bool = False,
    ) -> OutcomeResult:
        """Record a reward in [0, 1] for a decision from one source (now or hours later), and
        learn from it: `record_outcome(decision.id, reward=1.0, source="user")`.

        `source` is "user" or "user:<name>", normalised (case and spacing do not matter); the
        engine's own sources (checker, tool, referee) are refused. Posting the same (decision,
        source) again applies it once; a different value raises `OutcomeConflictError`, unless
        `replace=True`: then it is recorded as a correction of that source's score, which
        replaces the old value in what the engine learned. However many outcomes a decision
        gets, one of them teaches each role (`engine.domain.evidence`). Raises
        `UnknownDecisionError` and `InvalidRewardError` for bad input, with nothing recorded,
        and `OutcomeLimitError` past `config.max_outcome_sources` client sources on the decision
        or `config.max_outcome_revisions` revisions of one source (what stands, stays).
        """
        result = self._posts.post(
            decision_id, evidence.client_source(source), reward, weight, replace=replace
        )
        # Learn it now, unless another thread holds the book: then that thread's read of the
        # log, or the next decision, `arms()` or `snapshot()` (each refreshes first), learns it,
        # as outcomes from other processes are learned. Posters never queue behind one another's
        # learning: 16 threads posting to PostgreSQL made one refresh each, one at a time, each
        # a round trip under the lock. The catalogue is read only if the log names a path
        # unknown here (other processes' retirements are adopted at the next decision).
        self._book.refresh(catalog=False, through=result.seq, wait=False)
        return result

    def refresh(self) -> int:
        """Apply outcomes recorded since the last refresh (by any process); return how many."""
        return self._book.refresh()

    # -- reading ----------------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """What the engine has learned, as one JSON-serialisable document.

        For each policy role ("path", "tool", "seed", "model"): the policy's name, and for every
        arm its pulls, mean reward and outcomes (decisions in force), whether it is retired and
        why, and, for each kind of query it has learned from, whether it is still cold or
        confident and its P(best) (`engine.PROB_BEST_MEANING`: the same number
        `arms(kind=...)` gives). Under "referee": the referee's measured reliability per kind
        of query. Under "kinds": every kind of query, with its origin, name, size (decisions)
        and the query that created it.
        """
        self.refresh()
        described = self._book.describe(self._label_anchor())
        sizes = self._store.kind_sizes(self.config.namespace)
        described["kinds"] = describe_kinds(self._kinds, sizes)
        return described

    def kinds(self) -> list[dict[str, Any]]:
        """The kinds of query, oldest first: id, name, former names, origin, decisions, example,
        and whether it faded (`engine.domain.kinds.fading_kind`)."""
        self._kinds.sync()
        return describe_kinds(self._kinds, self._store.kind_sizes(self.config.namespace))

    def rename_kind(self, kind_id: str, name: str) -> dict[str, Any]:
        """Name a kind of query (a slug); it keeps all it learned, and the name then works as a
        task name (`decide(query, task=name)` joins it). Raises `UnknownKindError` and
        `InvalidKindError` (not a slug, or the name is another kind's)."""
        kind = self._kinds.rename(kind_id, name)
        return next(row for row in self.kinds() if row["kind"] == kind.kind_id)

    def _label_anchor(self) -> Callable[[Sequence[float]], str]:
        labels = {kind.anchor: kind.label for kind in self._kinds.kinds}
        return lambda context: labels.get(tuple(context), _plain_label(context))

    def outcome_log(self, limit: int = 10_000) -> list[LearnedOutcome]:
        """The namespace's outcomes in learning order (the first `limit`)."""
        return self._store.outcomes_since(self.config.namespace, 0, limit)

    def get_decision(self, decision_id: str) -> Decision:
        """A stored decision, with every outcome recorded for it so far (by any process)."""
        decision = Decision.model_validate(self._store.get_decision(decision_id).payload)
        outcomes = [result_of(outcome) for outcome in self._store.outcomes_of(decision_id)]
        return decision.model_copy(update={"outcomes": outcomes})

    def arms(
        self,
        query: str | None = None,
        *,
        kind: str | None = None,
        task: str | None = None,
        model: str | None = None,
    ) -> list[ArmStats]:
        """Every arm's statistics; for a kind (its id), a named `task`, or the kind a query
        would join, also whether each arm is cold there and its P(best) there
        (`engine.PROB_BEST_MEANING`). With a catalogue `model`, pulls, mean reward and outcomes
        count only the decisions it answered (`UnknownModelError` for another name)."""
        if model is not None:
            self.models.resolve(model)
        self.refresh()  # what every process has recorded so far, as `snapshot` reads it
        if kind is not None:
            return self._book.stats(self._kinds.kind(kind).anchor, model=model)
        if query is not None:
            return self._book.stats(self._kinds.peek(check_query(query), task=task), model=model)
        return self._book.stats(None, model=model)

    def templates(self) -> list[PathDefinition]:
        """The template paths to choose among: built-in, from user folders, added at run time."""
        return self._book.templates()

    def add_template(self, template: TemplateLike) -> PathDefinition:
        """Add a template as a new path arm, saved in the store so other processes adopt it too.

        Raises `TemplateError` when a path with that id (or one differing only in '-' against
        '_') exists already, retired and archived ones included: templates are not edited in
        place, an arm's statistics belong to the prompt that earned them. Also when the live
        templates reach `config.max_templates`, which bounds the rating prompt, or when the
        namespace keeps
        `config.max_templates_kept` templates, live and retired (retired paths past the newest 64
        are archived and count no more: `arm_book.archived_paths`).
        """
        path = PathDefinition.from_template(template)
        self._book.add_template(
            path,
            max_templates=self.config.max_templates,
            max_kept=self.config.max_templates_kept,
        )
        return path

    def retire_template(self, arm_id: str, reason: str) -> ArmStats:
        """Stop choosing a path arm (a template or a detour), for good; its statistics and
        history stay, and its id stays taken.

        Saved as retired in the store's arm catalogue, so every process sharing the store stops
        choosing it at its next refresh. Retiring a retired path again changes nothing. Raises
        `UnknownArmError` for an id that is no path or an archived one, and `TemplateError` for
        an empty reason or the last live template (the path policy needs an arm to choose).
        """
        self._book.retire_path(arm_id, reason)
        return next(row for row in self.arms() if row.role == "path" and row.arm_id == arm_id)

    def path_records(self) -> list[ArmRecord]:
        """The stored path arms (templates and detours), with why each detour was created."""
        return [a for a in self._store.list_arms(self.config.namespace) if a.role == "path"]

    # -- the commit step --------------------------------------------------------------------------

    def _commit(self, draft: Draft) -> Decision:
        """Store the decision and its outcomes, then learn from them: one refresh per decision."""
        decision = draft.decision
        retirements = self._book.take_pending_steps()
        if retirements:  # rare: a copy of the whole decision is not free
            decision = decision.model_copy(update={"trace": [*retirements, *decision.trace]})
        record = DecisionRecord(
            decision_id=decision.id,
            namespace=decision.namespace,
            created_at=decision.created_at,
            query=decision.query,
            context=tuple(decision.context) if decision.context is not None else None,
            kind=decision.kind.id if decision.kind is not None else None,
            choices={
                "path": decision.path.arm_id,
                "tool": decision.tool.arm_id,
                "seed": draft.seed_arm,
                **({"model": decision.model.arm_id} if decision.model else {}),
            },
            propensities={
                "path": decision.path.propensity,
                "tool": decision.tool.propensity,
                "seed": draft.seed_propensity,
                **({"model": decision.model.propensity} if decision.model else {}),
            },
            payload=decision.model_dump(mode="json"),
        )
        self._store.save_decision(record)
        self._book.begin_decision(decision.id)  # no outcome yet: none to read back when they come
        if self._tracker is not None:
            self._tracker.log_decision(record)
        results = [
            self._posts.record(decision.id, score.source, score.reward, score.weight)
            for score in draft.outcomes
        ]
        # The catalogue was read when this decision began, and its own new arms are in already.
        self._book.refresh(catalog=False)
        if self._tracker is not None and decision.kind is not None:
            # MLflow's P(best) for the kind is the one `arms(kind=...)` gives, once the
            # decision's own outcomes are learned (`arm_stats.PROB_BEST_MEANING`).
            anchor = self._kinds.kind(decision.kind.id).anchor
            self._tracker.log_prob_best(decision.kind.id, self._book.stats(anchor))
        return decision.model_copy(update={"outcomes": results})


def _plain_label(context: Sequence[float]) -> str:
    """A context no kind stands for (decisions made before kinds), by its first values."""
    values = list(context)
    shown = ",".join(f"{value:g}" for value in values[:4])
    return f"context {shown}{',...' if len(values) > 4 else ''}"
