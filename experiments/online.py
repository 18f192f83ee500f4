"""The online evaluation's runs: every contender decides the same labelled stream, task by task.

Contenders, all on the same model through one caching wrapper (`CachingLLM`):

- `bare`: the question alone, one call;
- `fixed:<template>`: each template forced, rendered by the engine's own `answer_messages`
  (no seed, no tool), so a forced answer is byte-identical to the engine's for that path; a
  template with a procedure (`engine.domain.procedures`) runs it, as the engine would
  (`engine.stages.procedures.run_procedure`, the program arm with the sandboxed program tool);
- `random`: a template drawn uniformly per task, `oracle`: the best template per family in
  hindsight (both read from the forced answers: the same request would get the same answer);
- `engine:<variant>`: an engine from `build_engine` with everything on, learning as it goes from
  the exact checker (`checker`), from its referee only (`referee`, opted in: `REFEREE_OPT_IN`),
  or with the seed off (`seed_off`, an empty searcher), the tools off (`tools_off`) or the
  sandboxed program tool as its only tool (`program_only`: what the model's own programs give
  without the exact tools); with the path and tool policies pooled across families (`pooled`:
  `pooled_thompson`, the shipped default) or each family from zero (`from_zero`: keyed
  `thompson`, the default before); or with a price on each LLM call (`priced`:
  `PRICED_PER_CALL` taken off every reward, `engine.domain.pricing`).

Order-free contenders (bare, fixed) are computed once per task and replayed in each order; the
engine variants run once per order, because what they learn depends on the order.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from engine.adapters.llm.caching import CachingLLM, CallRecord
from engine.adapters.memory_searcher import InMemorySearcher
from engine.adapters.store.memory import InMemoryStore
from engine.compose import build_engine
from engine.domain.models import Decision
from engine.domain.options import read_options
from engine.domain.ports import Searcher
from engine.domain.records import ChatMessage, LLMRequest, PathDefinition, TemplateLike
from engine.errors import BudgetExceededError, InvalidQueryError, LLMError, LLMUnavailableError
from engine.orchestration.facade import Engine
from engine.settings import Settings
from engine.stages.answer import answer_messages
from engine.stages.option_procedures import OptionSettings
from engine.stages.procedures import AnswerSettings, run_procedure
from experiments.recorded_scorer import RecordedScorer
from experiments.regex_families import family
from experiments.replay import PROGRAM_TOOLBOX, check_task
from experiments.tasks import Task

__all__ = [
    "ENGINE_VARIANTS",
    "PRICED_PER_CALL",
    "OnlineRuns",
    "Step",
    "engine_runs",
    "engine_steps",
    "run_contenders",
    "stream_orders",
    "variant_engine",
]

ENGINE_VARIANTS = (
    "checker",
    "referee",
    "seed_off",
    "tools_off",
    "program_only",
    "pooled",
    "from_zero",
    "priced",
    "named",
    "regex",
)
# How the engine finds kinds of query: `checker` (and every other variant) discovers them from
# the queries' embeddings; `named` is told each task's true family as a named task; `regex` is
# told the regex family the engine used before kinds (`experiments.regex_families`).
_KIND_SOURCES: dict[str, Callable[[Task], str]] = {
    "named": lambda task: task.family,
    "regex": lambda task: family(task.query),
}
# The `priced` variant's price per LLM call, in reward units: a right answer from a
# three-call self-consistency then earns 0.7, from one call 0.9, from a direct tool arm 1.
PRICED_PER_CALL = 0.1

# The `referee` variant's referee weight: without a checker its audits never measure it, and the
# shipped prior is 0 (`engine.domain.config.PRODUCT_REFEREE_PRIOR`), so it opts in as a user
# would (`THINKPATH_REFEREE_WEIGHT`), at the former prior, to measure learning from the referee.
REFEREE_OPT_IN = 0.5

# What each variant changes in the settings (`referee` and `seed_off` also change the checker
# and the searcher).
_VARIANT_SETTINGS: dict[str, dict[str, object]] = {
    "referee": {"referee_weight": REFEREE_OPT_IN},
    "tools_off": {"tools": ["none"]},
    "program_only": {"tools": ["program"]},
    "pooled": {"path_policy": "pooled_thompson", "tool_policy": "pooled_thompson"},
    "from_zero": {"path_policy": "thompson", "tool_policy": "thompson"},
    "priced": {"cost_per_call": PRICED_PER_CALL},
}


@dataclass(frozen=True)
class Step:
    """One contender's decision on one task."""

    task: Task
    reward: float  # the exact checker's verdict on the answer (1 right, 0 wrong)
    calls: int
    completion_tokens: int
    seconds: float  # model seconds (a cache hit reports the original generation's)
    arm: str = ""
    tool: str = ""
    seeded: bool = False  # did the answer see a seed brief?
    referee_score: float | None = None  # the referee's reward, when it judged
    referee_valid: bool | None = None  # did its verdict validate (None: it was not asked)
    warm: bool = False  # an engine decision that needed neither the rating nor a detour call
    # The self-consistency samples' majority share (None: not a self-consistency answer), a
    # label-free signal whose AUC against the checker the report gives per family.
    agreement: float | None = None


@dataclass(frozen=True)
class OnlineRuns:
    """Each contender's steps in each stream order: label -> one list of steps per order."""

    orders: list[list[int]]  # task indices, one permutation per order
    steps: dict[str, list[list[Step]]]
    cache_hits: int
    cache_misses: int


def _cost(
    records: Sequence[CallRecord], scorer: RecordedScorer | None = None, mark: int = 0
) -> tuple[int, int, float]:
    """Calls, generated tokens and model seconds of `records`, plus the scoring passes after
    `mark` (each a call with no generated token; one served from kept baselines none)."""
    passes = [p for p in scorer.passes[mark:] if not p.reused] if scorer is not None else []
    return (
        len(records) + len(passes),
        sum(r.completion_tokens for r in records),
        sum(r.seconds for r in records) + sum(p.seconds for p in passes),
    )


def _ask(llm: CachingLLM, request: LLMRequest, task: Task, label: str) -> Step:
    mark = len(llm.calls)
    try:
        text = llm.complete(request).text
    except LLMUnavailableError:
        raise  # no answer will come from this model: stop rather than score zeros
    except LLMError:
        text = ""  # a fault is a wrong answer, and its cost is counted
    calls, tokens, seconds = _cost(llm.calls[mark:])
    return Step(task, check_task(text, task), calls, tokens, seconds, arm=label)


def static_steps(
    llm: CachingLLM,
    tasks: Sequence[Task],
    templates: Sequence[TemplateLike],
    max_tokens: int,
    advance: Callable[[int], None],
    *,
    scorer: RecordedScorer | None = None,
) -> dict[str, list[Step]]:
    """The order-free contenders' step on every task: `bare` and one `fixed:<id>` per template
    (an option procedure with the options read from the question, as the engine reads them)."""
    out: dict[str, list[Step]] = {"bare": []}
    for task in tasks:
        bare = LLMRequest(
            messages=(ChatMessage("user", task.query),), max_tokens=max_tokens, purpose="answer"
        )
        out["bare"].append(_ask(llm, bare, task, "bare"))
        advance(1)
    for template in templates:
        path = PathDefinition.from_template(template)
        label = f"fixed:{template.id}"
        out[label] = []
        for task in tasks:
            if path.procedure == "single":
                messages = answer_messages(path, task.query, None, None)
                request = LLMRequest(messages=messages, max_tokens=max_tokens, purpose="answer")
                step = replace(_ask(llm, request, task, template.id), arm=template.id)
            else:
                step = _procedure_step(llm, path, task, max_tokens, scorer)
            out[label].append(step)
            advance(1)
    return out


def _procedure_step(
    llm: CachingLLM,
    path: PathDefinition,
    task: Task,
    max_tokens: int,
    scorer: RecordedScorer | None = None,
) -> Step:
    """A forced procedure arm's step: the procedure as the engine runs it (no seed, no tool).

    An option procedure on a question whose options are not read, or option likelihood with no
    scorer, gives no answer: a wrong one, as the arm could not be asked."""
    mark, scored = len(llm.calls), len(scorer.passes) if scorer is not None else 0
    options = read_options(task.query)
    settings = AnswerSettings(
        max_tokens=max_tokens,
        timeout_s=60.0,
        toolbox=PROGRAM_TOOLBOX,
        options=None if options is None else OptionSettings(options, scorer),
    )
    agreement = None
    try:
        result = run_procedure(llm, path, task.query, settings)
        text = result.text
        share = result.outputs.get("majority_share")
        agreement = float(share) if isinstance(share, int | float) else None
    except LLMUnavailableError:
        raise  # no answer will come from this model: stop rather than score zeros
    except (LLMError, BudgetExceededError, InvalidQueryError):
        text = ""  # a fault is a wrong answer, and its cost is counted
    calls, tokens, seconds = _cost(llm.calls[mark:], scorer, scored)
    reward = check_task(text, task)
    return Step(task, reward, calls, tokens, seconds, arm=path.arm_id, agreement=agreement)


def _referee_of(decision: Decision) -> tuple[float | None, bool | None]:
    for step in decision.trace:
        if step.stage == "referee" and step.reason == "done":
            return float(step.outputs.get("reward", 0.0)), True
        if step.stage == "referee" and step.reason == "fault":
            return None, False
    return None, None


def _agreement_of(decision: Decision) -> float | None:
    """The self-consistency samples' majority share, from the answer's trace entry."""
    for step in decision.trace:
        if step.stage == "answer" and step.reason == "done":
            share = step.outputs.get("majority_share")
            return float(share) if isinstance(share, int | float) else None
    return None


def _engine_step(
    decision: Decision,
    task: Task,
    records: Sequence[CallRecord],
    scorer: RecordedScorer | None = None,
    mark: int = 0,
) -> Step:
    calls, tokens, seconds = _cost(records, scorer, mark)
    score, valid = _referee_of(decision)
    cold = any(
        step.stage in ("rating", "detour") and step.reason != "skipped" for step in decision.trace
    )
    return Step(
        task,
        check_task(decision.answer or "", task),
        calls,
        tokens,
        seconds,
        arm=decision.path.arm_id,
        tool=decision.tool.arm_id,
        seeded=decision.seed.brief is not None,
        referee_score=score,
        referee_valid=valid,
        warm=not cold,
        agreement=_agreement_of(decision),
    )


def variant_engine(
    variant: str,
    *,
    llm: CachingLLM,
    settings: Settings,
    searcher: Searcher,
    templates: Sequence[TemplateLike] | None,
    scorer: RecordedScorer | None = None,
) -> Engine:
    """A fresh engine of `variant`, with an empty in-memory store (and option likelihood on
    `scorer`, where there is one)."""
    if variant not in ENGINE_VARIANTS:
        raise ValueError(f"unknown engine variant {variant!r}; known: {ENGINE_VARIANTS}")
    return build_engine(
        settings.model_copy(update=_VARIANT_SETTINGS.get(variant, {})),
        llm=llm,
        store=InMemoryStore(),
        searcher=InMemorySearcher() if variant == "seed_off" else searcher,
        templates=templates,
        option_scorer=scorer,
    )


def engine_steps(
    variant: str,
    order: Sequence[int],
    tasks: Sequence[Task],
    *,
    llm: CachingLLM,
    settings: Settings,
    searcher: Searcher,
    templates: Sequence[TemplateLike] | None,
    advance: Callable[[int], None],
    scorer: RecordedScorer | None = None,
) -> list[Step]:
    """A fresh engine of `variant` decides the tasks in `order`, learning as it goes."""
    engine = variant_engine(
        variant, llm=llm, settings=settings, searcher=searcher, templates=templates, scorer=scorer
    )
    steps = []
    for index in order:
        task = tasks[index]
        mark, scored = len(llm.calls), len(scorer.passes) if scorer is not None else 0

        def checker(text: str, task: Task = task) -> float:
            return check_task(text, task)

        kind_source = _KIND_SOURCES.get(variant)
        decision = engine.decide(
            task.query,
            checker=None if variant == "referee" else checker,
            task=None if kind_source is None else kind_source(task),
        )
        steps.append(_engine_step(decision, task, llm.calls[mark:], scorer, scored))
        advance(1)
    return steps


def baseline_steps(
    fixed: dict[str, list[Step]], order: Sequence[int], rng: np.random.Generator
) -> dict[str, list[Step]]:
    """`random`, the per-family `oracle` and `oracle_cv`, read from the forced answers, in `order`.

    `oracle` picks each family's best arm in hindsight on the very tasks it is scored on, so
    with few tasks and close arms it also picks the luckiest arm: an upper bound inflated by
    noise. `oracle_cv` is the same rule cross-validated in two folds: a family's tasks
    alternate between folds, and each task is answered by the arm that was best on the other
    fold, so no task's own answer chose its arm (the best any per-family choice can be expected
    to reach on new tasks)."""
    labels = [label for label in fixed if label.startswith("fixed:")]
    random_steps = [fixed[labels[int(rng.integers(len(labels)))]][i] for i in order]
    first = fixed[labels[0]]
    seen: dict[str, int] = {}
    fold = []  # each task's fold: alternating within its family, in the suite's order
    for step in first:
        fold.append(seen.get(step.task.family, 0) % 2)
        seen[step.task.family] = seen.get(step.task.family, 0) + 1

    def best_on(family: str, left_out: int | None) -> str:
        """The family's best arm on its tasks outside fold `left_out` (None: on all of them)."""

        def mean(label: str) -> float:
            rewards = [
                s.reward
                for i, s in enumerate(fixed[label])
                if s.task.family == family and fold[i] != left_out
            ]
            return float(np.mean(rewards)) if rewards else 0.0

        return max(labels, key=mean)

    best = {family: best_on(family, None) for family in sorted(seen)}
    best_cv = {(family, f): best_on(family, f) for family in sorted(seen) for f in (0, 1)}
    oracle = [fixed[best[first[i].task.family]][i] for i in order]
    oracle_cv = [fixed[best_cv[first[i].task.family, fold[i]]][i] for i in order]
    return {"random": random_steps, "oracle": oracle, "oracle_cv": oracle_cv}


def stream_orders(count: int, orders: int) -> list[list[int]]:
    """The stream orders of `count` tasks: order k is a permutation seeded k (its engines' policy
    seed is k too), so another process (`experiments.online_warm`) meets the same ones."""
    return [[int(i) for i in np.random.default_rng(k).permutation(count)] for k in range(orders)]


def run_contenders(
    tasks: Sequence[Task],
    *,
    orders: int,
    variants: Sequence[str],
    llm: CachingLLM,
    settings: Settings,
    searcher: Searcher,
    templates: Sequence[TemplateLike],
    max_tokens: int,
    progress: Callable[[int, str], Callable[[int], None]],
    scorer: RecordedScorer | None = None,
) -> OnlineRuns:
    """Run every contender on `orders` shuffles of `tasks` (`stream_orders`)."""
    permutations = stream_orders(len(tasks), orders)
    static = static_steps(
        llm,
        tasks,
        templates,
        max_tokens,
        progress(len(tasks) * (1 + len(templates)), "bare model and forced templates"),
        scorer=scorer,
    )
    steps: dict[str, list[list[Step]]] = {
        label: [[row[i] for i in order] for order in permutations] for label, row in static.items()
    }
    for k, order in enumerate(permutations):
        for label, row in baseline_steps(static, order, np.random.default_rng(1000 + k)).items():
            steps.setdefault(label, []).append(row)
    for variant in variants:
        advance = progress(len(tasks) * orders, f"engine ({variant})")
        steps[f"engine:{variant}"] = engine_runs(
            variant,
            list(enumerate(permutations)),
            tasks,
            llm=llm,
            settings=settings,
            searcher=searcher,
            templates=templates,
            advance=advance,
            scorer=scorer,
        )
    return OnlineRuns(permutations, steps, llm.hits, llm.misses)


def engine_runs(
    variant: str,
    orders: Sequence[tuple[int, Sequence[int]]],
    tasks: Sequence[Task],
    *,
    llm: CachingLLM,
    settings: Settings,
    searcher: Searcher,
    templates: Sequence[TemplateLike] | None,
    advance: Callable[[int], None],
    scorer: RecordedScorer | None = None,
) -> list[list[Step]]:
    """`engine_steps` for each (k, order) in `orders`, in that sequence, the engine of order k
    seeded k (`stream_orders`), so the evaluation and its warmer decide the same streams."""
    return [
        engine_steps(
            variant,
            order,
            tasks,
            llm=llm,
            settings=settings.model_copy(update={"policy_seed": k}),
            searcher=searcher,
            templates=templates,
            advance=advance,
            scorer=scorer,
        )
        for k, order in orders
    ]
