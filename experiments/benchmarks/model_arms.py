"""Models as arms, online: the engine choosing per kind between its models, against each model
asked bare and against fixed (model, path) pairs, on the same stream (issue 38 item 5).

    python -m experiments.benchmarks.model_arms --per-family 2 --orders 3 \\
        --fixed step_by_step_check --json-out docs/benchmarks-data/model_arms.json

The stream is the development suite (`experiments.online_experiment.task_suite`, suite
"development": the public BIG-bench development families and the generated development
families; the public families issue 38 was tried on stay held out). Every contender's calls go
through one request cache per model (`CachingLLM`, under `--home`), so forced answers are asked
once for every order and a rerun asks only what changed. The engine is the shipped one
(`build_engine` with the catalogue of both models, an empty in-memory store per order, its
policies seeded by the order), learning from the exact checker as it goes.

Reported per contender: accuracy (mean over orders), model seconds per decision (a cache hit
reports the original generation's seconds), and for the engine: the paired difference against
the strongest bare model per task with a 95% bootstrap interval, its seconds as a share of that
model's, and each model's share of decisions per kind in the first and last third of the
stream. Nothing here was tuned on this stream.
"""

import argparse
import functools
import json
import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from engine.adapters.llm.caching import CachingLLM
from engine.adapters.store.memory import InMemoryStore
from engine.domain.catalogue import ModelCatalogue, ModelEntry
from experiments.online import Step, static_steps, stream_orders
from experiments.online_experiment import OnlineParams, task_suite
from experiments.replay import check_task, chosen_templates
from experiments.tasks import Task

__all__ = ["main", "paired_interval"]

DEFAULT_MODELS = ("local/smollm2", "local/qwen2.5-coder-1.5b")


def paired_interval(
    differences: Sequence[float], *, draws: int = 4000, seed: int = 0
) -> tuple[float, float, float]:
    """The mean of paired differences and its 95% bootstrap interval (resampling tasks).

    >>> paired_interval([1.0, 1.0, 1.0, 1.0])
    (1.0, 1.0, 1.0)
    """
    values = np.asarray(differences, dtype=float)
    rng = np.random.default_rng(seed)
    means = values[rng.integers(0, len(values), (draws, len(values)))].mean(axis=1)
    low, high = np.quantile(means, [0.025, 0.975])
    return float(values.mean()), round(float(low), 4), round(float(high), 4)


def _engine_run(
    order: Sequence[int],
    k: int,
    tasks: Sequence[Task],
    *,
    cached: dict[str, CachingLLM],
    scorers: dict[str, Any],
    home: Path,
) -> list[dict[str, Any]]:
    from engine import compose  # noqa: PLC0415 - the models and the index load only now
    from engine.settings import load_settings  # noqa: PLC0415

    settings = load_settings(home=home, store_url="memory", policy_seed=k, models=list(cached))
    catalogue = ModelCatalogue(
        [ModelEntry(model, llm, scorers.get(model)) for model, llm in cached.items()]
    )
    engine = compose.build_engine(
        settings, models=catalogue, store=InMemoryStore(), searcher=_searcher(home)
    )
    rows = []
    for index in order:
        task = tasks[index]
        marks = {model: len(llm.calls) for model, llm in cached.items()}
        decision = engine.decide(task.query, checker=functools.partial(check_task, task=task))
        seconds = sum(
            record.seconds for model, llm in cached.items() for record in llm.calls[marks[model] :]
        )
        rows.append(
            {
                "task": task.task_id,
                "family": task.family,
                "kind": decision.kind.id if decision.kind else None,
                "model": decision.model.arm_id if decision.model else None,
                "path": decision.path.arm_id,
                "tool": decision.tool.arm_id,
                "reward": check_task(decision.answer or "", task),
                "seconds": round(seconds, 3),
            }
        )
    return rows


_SEARCHER: dict[Path, Any] = {}


def _searcher(home: Path) -> Any:
    if home not in _SEARCHER:
        from engine import compose  # noqa: PLC0415
        from engine.settings import load_settings  # noqa: PLC0415

        _SEARCHER[home] = compose.build_searcher(load_settings(home=home))
    return _SEARCHER[home]


def _shares(runs: Sequence[Sequence[dict[str, Any]]], part: slice) -> dict[str, dict[str, float]]:
    """Each family's share of decisions per model, in `part` of every order's stream."""
    by_family: dict[str, Counter[str]] = defaultdict(Counter)
    for rows in runs:
        for row in rows[part]:
            by_family[row["family"]][row["model"]] += 1
    return {
        family: {model: round(n / sum(counts.values()), 2) for model, n in counts.items()}
        for family, counts in sorted(by_family.items())
    }


def share_curves(runs: Sequence[Sequence[dict[str, Any]]], model: str) -> dict[str, list[float]]:
    """Per family, the share of orders whose k-th decision of that family ran on `model`.

    >>> runs = [[{"family": "a", "model": "m"}, {"family": "a", "model": "n"}]] * 2
    >>> share_curves(runs, "m")
    {'a': [1.0, 0.0]}
    """
    counts: dict[str, list[list[float]]] = defaultdict(list)
    for rows in runs:
        seen: Counter[str] = Counter()
        for row in rows:
            k = seen[row["family"]]
            seen[row["family"]] += 1
            column = counts[row["family"]]
            if len(column) <= k:
                column.append([])
            column[k].append(float(row["model"] == model))
    return {
        family: [round(statistics.fmean(at), 3) for at in column]
        for family, column in sorted(counts.items())
    }


def _plot(curves: dict[str, list[float]], model: str, path: Path) -> None:
    import matplotlib  # noqa: PLC0415 - only when a plot is asked for

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    figure, axes = plt.subplots(figsize=(8, 4.5))
    for family, shares in curves.items():
        axes.plot(range(1, len(shares) + 1), shares, marker="o", label=family)
    axes.set_xlabel("the family's k-th decision along the stream")
    axes.set_ylabel(f"share of orders on {model}")
    axes.set_ylim(-0.05, 1.05)
    axes.set_title("Where the engine learns that the big model pays")
    axes.legend(fontsize=7, ncol=2)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def _track(home: Path, document: dict[str, Any], curves: dict[str, list[float]]) -> None:
    """One MLflow run: the big model's share per family as metrics with steps, and the summary."""
    from engine import compose  # noqa: PLC0415
    from engine.adapters.tracking import metric_key  # noqa: PLC0415
    from engine.settings import load_settings  # noqa: PLC0415

    store = compose.build_tracking_store(load_settings(home=home))
    summary = document["summary"]
    with store.start_run("model-arms", "engine on the catalogue") as run:
        run.log_series(
            {
                metric_key("share_big", family): (list(range(1, len(v) + 1)), v)
                for family, v in curves.items()
            }
        )
        run.log_metrics(
            {
                "engine_accuracy": summary["engine"]["accuracy"],
                "engine_mean_seconds": summary["engine"]["mean_seconds"],
                "engine_minus_strongest_bare": summary["engine_minus_strongest_bare"]["mean"],
            }
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--model", action="append", help="a catalogue model (repeat); default both")
    parser.add_argument("--per-family", type=int, default=2)
    parser.add_argument("--orders", type=int, default=3)
    parser.add_argument(
        "--fixed", default="", help="templates forced per model, comma-separated (default none)"
    )
    parser.add_argument("--home", type=Path, default=Path("/tmp/thinkpath-model-arms"))
    parser.add_argument("--json-out", type=Path)
    parser.add_argument("--plot", type=Path, help="a PNG of the big model's share per family")
    parser.add_argument("--track", action="store_true", help="log to MLflow under --home")
    args = parser.parse_args(argv)
    from engine import compose  # noqa: PLC0415
    from engine.settings import load_settings  # noqa: PLC0415

    models = tuple(args.model or DEFAULT_MODELS)
    tasks = list(task_suite(OnlineParams(suite="development", per_family=args.per_family)).tasks)
    settings = load_settings(home=args.home, store_url="memory")
    max_tokens = settings.engine_config().answer_max_tokens
    fixed = tuple(t for t in args.fixed.split(",") if t)
    templates = list(chosen_templates(fixed)) if fixed else []  # none given: bare alone
    cached, scorers, static = {}, {}, {}
    for model in models:
        raw = compose.build_llm(settings.model_copy(update={"model": model}))
        cached[model] = CachingLLM(raw, args.home / "cache", model=f"{model}|stop_early=True")
        scorers[model] = compose.build_option_scorer(raw)
        for label, steps in static_steps(
            cached[model], tasks, templates, max_tokens, lambda _n: None
        ).items():
            static[f"{label}@{model}"] = steps
    runs = [
        _engine_run(order, k, tasks, cached=cached, scorers=scorers, home=args.home)
        for k, order in enumerate(stream_orders(len(tasks), args.orders))
    ]
    document = _report(tasks, static, runs)
    big = models[-1]
    curves = share_curves(runs, big)
    document["share_curves"] = {"model": big, "families": curves}
    if args.plot:
        _plot(curves, big, args.plot)
    if args.track:
        _track(args.home, document, curves)
    print(json.dumps(document["summary"], indent=2))
    if args.json_out:
        args.json_out.write_text(json.dumps(document, indent=2) + "\n")
    return 0


def _report(
    tasks: Sequence[Task], static: dict[str, list[Step]], runs: list[list[dict[str, Any]]]
) -> dict[str, Any]:
    index = {task.task_id: i for i, task in enumerate(tasks)}
    contenders = {
        label: {
            "accuracy": round(statistics.fmean(s.reward for s in steps), 4),
            "mean_seconds": round(statistics.fmean(s.seconds for s in steps), 3),
        }
        for label, steps in static.items()
    }
    bare = {label: c for label, c in contenders.items() if label.startswith("bare@")}
    strongest = max(bare, key=lambda label: bare[label]["accuracy"])
    best_fixed = max(contenders, key=lambda label: contenders[label]["accuracy"])
    engine_rewards = [row["reward"] for run in runs for row in run]
    engine_seconds = [row["seconds"] for run in runs for row in run]
    differences = [
        row["reward"] - static[strongest][index[row["task"]]].reward for run in runs for row in run
    ]
    mean, low, high = paired_interval(differences)
    families: dict[str, dict[str, Any]] = {}
    for family in sorted({task.family for task in tasks}):
        members = [i for i, task in enumerate(tasks) if task.family == family]
        options = [len(tasks[i].options) for i in members if tasks[i].options]
        rows = [row for run in runs for row in run if row["family"] == family]
        families[family] = {
            "tasks": len(members),
            "chance": round(statistics.fmean(1 / n for n in options), 3) if options else None,
            "engine": round(statistics.fmean(row["reward"] for row in rows), 3),
            **{
                label: round(statistics.fmean(static[label][i].reward for i in members), 3)
                for label in bare
            },
        }
    third = max(1, len(tasks) // 3)
    return {
        "summary": {
            "tasks": len(tasks),
            "orders": len(runs),
            "contenders": contenders,
            "engine": {
                "accuracy": round(statistics.fmean(engine_rewards), 4),
                "mean_seconds": round(statistics.fmean(engine_seconds), 3),
            },
            "strongest_bare": strongest,
            "best_fixed": best_fixed,
            "engine_minus_strongest_bare": {"mean": round(mean, 4), "ci95": [low, high]},
            "engine_seconds_share_of_strongest_bare": round(
                statistics.fmean(engine_seconds) / max(contenders[strongest]["mean_seconds"], 1e-9),
                3,
            ),
            "families": families,
            "model_share_first_third": _shares(runs, slice(0, third)),
            "model_share_last_third": _shares(runs, slice(-third, None)),
        },
        "runs": runs,
    }


if __name__ == "__main__":
    raise SystemExit(main())
