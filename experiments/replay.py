"""Replay: score every strategy on every task once with a real model, then replay bandits over it.

Running a model is slow (a second per answer on a laptop core) and a bandit comparison needs
thousands of runs, so the model's outcomes are computed once into an `OutcomeMatrix` (strategy x
task -> reward, tokens, seconds, extracted answer), cached as JSON under a key made of the model,
the strategies' prompts, the suite's fingerprint and the generation settings. Any change to one of
them is a new key, never a stale hit. A build checkpoints after each strategy, so an interrupted
build resumes where it stopped.

Each replay run then draws a stream of tasks, lets a policy pick a strategy for each and pays it
that cell's reward: exactly the outcome the model gave, at microseconds per step.
"""

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.adapters.tools import ToolRegistry
from engine.adapters.tools.program import ProgramTool
from engine.domain.budget import MeteredLLM
from engine.domain.checkers import check_answer
from engine.domain.ports import LLM
from engine.domain.records import LLMRequest, PathDefinition, TemplateLike
from engine.errors import ConfigError, LLMError, LLMUnavailableError
from engine.stages.answer import answer_messages
from engine.stages.procedures import AnswerSettings, run_procedure
from experiments.bigbench.checks import check_targets
from experiments.tasks import Task, TaskSuite

__all__ = [
    "Baselines",
    "OutcomeMatrix",
    "Scorer",
    "Strategy",
    "build_outcome_matrix",
    "cache_key",
    "cached_outcome_matrix",
    "check_task",
    "chosen_templates",
]

FORMAT_VERSION = 2  # 2: prompts rendered by the engine's `answer_messages`


# A reasoning-path template as replay sees it: the engine's own shape of one.
Strategy = TemplateLike


def chosen_templates(ids: Sequence[str]) -> list[TemplateLike]:
    """The built-in templates named by `ids` (all of them when empty), in that order.

    Raises `ConfigError` naming the unknown ones.
    """
    from templates import load_templates  # noqa: PLC0415 - only when an experiment runs

    loaded = {template.id: template for template in load_templates()}
    wanted = list(ids) or list(loaded)
    unknown = [name for name in wanted if name not in loaded]
    if unknown:
        raise ConfigError(f"unknown templates {unknown}; the templates are {sorted(loaded)}")
    return [loaded[name] for name in wanted]


Scorer = Callable[[str, Task], float]
# The forced program arm's sandbox, as `engine.compose` gives the engine's program arm.
PROGRAM_TOOLBOX = ToolRegistry([ProgramTool()])
"""Scores a model's raw answer text for a task, in [0, 1] (an exact checker)."""


def check_task(answer_text: str, task: Task) -> float:
    """The engine's exact checker for the task's kind: 1.0 for the right answer, else 0.0.

    A task with several accepted answers (`targets`, a public task) is scored by
    `experiments.bigbench.checks`, the one place for the public formats.
    """
    if task.targets:
        return check_targets(answer_text, task.targets, task.kind, options=task.options or None)
    return check_answer(answer_text, task.expected, task.kind, options=task.options or None)


Progress = Callable[[int, int], None]
"""Called with (cells done, cells in all) as a build advances."""


@dataclass(frozen=True)
class Baselines:
    """What fixed choices earn per task on average under uniform task sampling."""

    uniform: float  # a strategy drawn uniformly at random for each task
    best_fixed: float  # the single strategy that is best over all tasks (in hindsight)
    best_fixed_strategy: str
    family_oracle: float  # the best strategy for each family (in hindsight)
    family_best: dict[str, str]  # family -> its best strategy


@dataclass(frozen=True)
class OutcomeMatrix:
    """Strategy x task outcomes of one model: reward, tokens, seconds and the extracted answer."""

    model: str
    strategies: tuple[str, ...]
    tasks: tuple[Task, ...]
    rewards: np.ndarray  # (S, N) in [0, 1]
    tokens: np.ndarray  # (S, N) completion tokens
    seconds: np.ndarray  # (S, N)
    answers: tuple[tuple[str, ...], ...]  # (S, N) raw answer text, cut to 200 characters
    faults: int = 0  # cells where the model failed (scored 0)

    @property
    def families(self) -> tuple[str, ...]:
        return tuple(task.family for task in self.tasks)

    def baselines(self) -> Baselines:
        """Uniform random, best single strategy and the per-family oracle, exactly."""
        means = self.rewards.mean(axis=1)
        best = int(np.argmax(means))
        family_best: dict[str, str] = {}
        oracle_total = 0.0
        families = np.array(self.families)
        for family in dict.fromkeys(self.families):
            columns = families == family
            family_means = self.rewards[:, columns].mean(axis=1)
            family_best[family] = self.strategies[int(np.argmax(family_means))]
            oracle_total += float(family_means.max()) * int(columns.sum())
        return Baselines(
            uniform=float(self.rewards.mean()),
            best_fixed=float(means[best]),
            best_fixed_strategy=self.strategies[best],
            family_oracle=oracle_total / len(self.tasks),
            family_best=family_best,
        )

    def to_json(self) -> str:
        return json.dumps(
            {
                "format_version": FORMAT_VERSION,
                "model": self.model,
                "strategies": list(self.strategies),
                "tasks": [task.__dict__ for task in self.tasks],
                "rewards": self.rewards.tolist(),
                "tokens": self.tokens.tolist(),
                "seconds": self.seconds.tolist(),
                "answers": [list(row) for row in self.answers],
                "faults": self.faults,
            }
        )

    @classmethod
    def from_json(cls, text: str) -> "OutcomeMatrix":
        data = json.loads(text)
        if data.get("format_version") != FORMAT_VERSION:
            raise ConfigError(f"outcome matrix format {data.get('format_version')!r} is unknown")
        return cls(
            model=data["model"],
            strategies=tuple(data["strategies"]),
            tasks=tuple(
                Task(
                    **{
                        **task,
                        "options": tuple(task.get("options", ())),
                        "targets": tuple(task.get("targets", ())),
                    }
                )
                for task in data["tasks"]
            ),
            rewards=np.array(data["rewards"], dtype=float),
            tokens=np.array(data["tokens"], dtype=np.int64),
            seconds=np.array(data["seconds"], dtype=float),
            answers=tuple(tuple(row) for row in data["answers"]),
            faults=int(data["faults"]),
        )


def cache_key(model: str, strategies: Sequence[Strategy], suite: TaskSuite, max_tokens: int) -> str:
    """A hash of everything that decides the matrix's contents."""
    identity = {
        "format_version": FORMAT_VERSION,
        "model": model,
        "strategies": [[strategy.id, strategy.prompt] for strategy in strategies],
        "suite": suite.fingerprint,
        "max_tokens": max_tokens,
    }
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:20]


def _check_inputs(strategies: Sequence[Strategy], suite: TaskSuite, max_tokens: int) -> None:
    ids = [strategy.id for strategy in strategies]
    if len(ids) < 2 or len(set(ids)) != len(ids):
        raise ConfigError(f"replay needs at least two strategies with distinct ids, got {ids}")
    if not suite.tasks:
        raise ConfigError("the task suite is empty")
    if max_tokens < 1:
        raise ConfigError(f"max_tokens must be positive, got {max_tokens}")


Cell = tuple[float, int, float, str, bool]  # reward, tokens, seconds, answer, faulted


def _load_checkpoint(path: Path) -> dict[str, list[Cell]]:
    if not path.exists():
        return {}
    return {
        strategy: [(float(r), int(t), float(s), str(a), bool(f)) for r, t, s, a, f in row]
        for strategy, row in json.loads(path.read_text()).items()
    }


def _answer(llm: LLM, strategy: Strategy, task: Task, max_tokens: int, scorer: Scorer) -> Cell:
    # The engine's own renderer, with no seed and no tool output: what replay measures is what
    # the engine sends for that path (a test holds the two byte-identical).
    path = PathDefinition.from_template(strategy)
    if path.procedure != "single":
        return _procedure_cell(llm, path, task, max_tokens, scorer)
    request = LLMRequest(
        messages=answer_messages(path, task.query, None, None),
        max_tokens=max_tokens,
        temperature=0.0,
        purpose="answer",
        seed=0,
    )
    try:
        response = llm.complete(request)
    except LLMUnavailableError:
        raise  # no answer will come from this model: stop the build rather than score zeros
    except LLMError as error:
        return 0.0, 0, 0.0, f"<fault: {type(error).__name__}>", True
    reward = float(scorer(response.text, task))
    if not 0.0 <= reward <= 1.0:
        raise ConfigError(f"the scorer returned {reward!r} for {task.task_id}; need [0, 1]")
    return reward, response.completion_tokens, response.seconds, response.text[:200], False


def _procedure_cell(
    llm: LLM, path: PathDefinition, task: Task, max_tokens: int, scorer: Scorer
) -> Cell:
    """A procedure arm's cell: the procedure as the engine runs it (no seed, no tool), its tokens
    and seconds summed over its calls."""
    meter = MeteredLLM(llm)
    settings = AnswerSettings(max_tokens=max_tokens, timeout_s=60.0, toolbox=PROGRAM_TOOLBOX)
    try:
        text = run_procedure(meter, path, task.query, settings).text
    except LLMUnavailableError:
        raise  # no answer will come from this model: stop the build rather than score zeros
    except LLMError as error:
        spent = meter.cost
        fault = f"<fault: {type(error).__name__}>"
        return 0.0, spent.completion_tokens, spent.seconds, fault, True
    reward = float(scorer(text, task))
    if not 0.0 <= reward <= 1.0:
        raise ConfigError(f"the scorer returned {reward!r} for {task.task_id}; need [0, 1]")
    return reward, meter.cost.completion_tokens, meter.cost.seconds, text[:200], False


def build_outcome_matrix(
    llm: LLM,
    model: str,
    strategies: Sequence[Strategy],
    suite: TaskSuite,
    scorer: Scorer,
    *,
    max_tokens: int = 96,
    checkpoint: Path | None = None,
    progress: Progress | None = None,
) -> OutcomeMatrix:
    """Ask `llm` every task under every strategy once (temperature 0) and score each answer.

    With `checkpoint`, finished strategy rows are saved there after each row and reused on the
    next call with the same checkpoint path, so a build can be interrupted and resumed.
    """
    _check_inputs(strategies, suite, max_tokens)
    rows = _load_checkpoint(checkpoint) if checkpoint is not None else {}
    total, done = len(strategies) * len(suite.tasks), 0
    for strategy in strategies:
        if strategy.id not in rows:
            row: list[Cell] = []
            for task in suite.tasks:
                row.append(_answer(llm, strategy, task, max_tokens, scorer))
                done += 1
                if progress is not None:
                    progress(done, total)
            rows[strategy.id] = row
            if checkpoint is not None:
                checkpoint.parent.mkdir(parents=True, exist_ok=True)
                checkpoint.write_text(json.dumps(rows))
        else:
            done += len(suite.tasks)
    ordered = [rows[strategy.id] for strategy in strategies]
    return OutcomeMatrix(
        model=model,
        strategies=tuple(strategy.id for strategy in strategies),
        tasks=suite.tasks,
        rewards=np.array([[cell[0] for cell in row] for row in ordered], dtype=float),
        tokens=np.array([[cell[1] for cell in row] for row in ordered], dtype=np.int64),
        seconds=np.array([[cell[2] for cell in row] for row in ordered], dtype=float),
        answers=tuple(tuple(str(cell[3]) for cell in row) for row in ordered),
        faults=sum(bool(cell[4]) for row in ordered for cell in row),
    )


def cached_outcome_matrix(
    cache_dir: Path,
    llm_factory: Callable[[], LLM],
    model: str,
    strategies: Sequence[Strategy],
    suite: TaskSuite,
    *,
    scorer: Scorer,
    max_tokens: int = 96,
    progress: Progress | None = None,
) -> tuple[OutcomeMatrix, Path, bool]:
    """The matrix from the cache, or built (and cached) now; returns (matrix, file, was_cached).

    The model is only built (`llm_factory`) on a cache miss: loading it takes seconds.
    """
    _check_inputs(strategies, suite, max_tokens)
    key = cache_key(model, strategies, suite, max_tokens)
    path = cache_dir / f"outcomes-{key}.json"
    if path.exists():
        return OutcomeMatrix.from_json(path.read_text()), path, True
    checkpoint = cache_dir / f"outcomes-{key}.partial.json"
    matrix = build_outcome_matrix(
        llm_factory(),
        model,
        strategies,
        suite,
        scorer,
        max_tokens=max_tokens,
        checkpoint=checkpoint,
        progress=progress,
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(matrix.to_json())
    temporary.replace(path)  # atomic: a reader never sees half a matrix
    checkpoint.unlink(missing_ok=True)
    return matrix, path, False
