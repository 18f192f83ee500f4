"""Answers in the options' own space, online, on the development families that give options.

    .venv/bin/python -m experiments.option_families --home /tmp/options --per-family 20 \\
        --orders 3 --json docs/benchmarks-data/options_online.json

On every public BIG-bench development family whose tasks give options (multiple choice, posed
as lettered options: `experiments.bigbench.suite`), side by side on the same embedded model:

- `bare`: the question alone, one call, free text;
- `fixed:<template>`: each option procedure forced (`choose_an_option`: constrained choice,
  `likeliest_option`: option likelihood, `reason_then_choose`), with the options the engine
  would read from the question;
- `engine`: the engine as shipped (every template, kinds discovered, learning from the exact
  checker), once per stream order.

Printed and written (`--json`): accuracy per family and overall beside chance (the mean of one
over the number of options), the engine's lead over bare with a 95% paired bootstrap interval
over tasks (each task's engine score is its mean over the orders), calls and model seconds per
decision, and what option likelihood costs per option. The development families only: the
public families this issue was tried on stay held out. `--suite heldout` runs the same on the
generated option families of `experiments.option_heldout` instead (`--seed` draws them), on
which option likelihood's content-free prompt was not chosen (issue 39, item 6).
"""

import argparse
import json
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from engine.errors import ConfigError
from experiments.bigbench.suite import bigbench_suite
from experiments.online import Step, engine_runs, static_steps, stream_orders
from experiments.option_heldout import option_heldout_suite
from experiments.recorded_scorer import RecordedScorer, ScoringPass
from experiments.tasks import Task

__all__ = [
    "OPTION_SUITES",
    "OPTION_TEMPLATES",
    "add_suite_arguments",
    "main",
    "mean_of",
    "option_tasks",
    "paired_interval",
    "summarise",
    "tasks_from_arguments",
]

OPTION_TEMPLATES = ("choose_an_option", "likeliest_option", "reason_then_choose")
OPTION_SUITES = ("development", "heldout")
BOOTSTRAP_RESAMPLES = 10_000


def option_tasks(per_family: int, suite: str = "development", seed: int = 39) -> list[Task]:
    """The first `per_family` tasks of every development family whose tasks all give options,
    or with `suite="heldout"` of each family of `experiments.option_heldout` (drawn from `seed`),
    on which option likelihood's content-free prompt was not chosen."""
    if suite == "heldout":
        return list(option_heldout_suite(seed, per_family).tasks)
    if suite != "development":
        raise ConfigError(f"unknown option suite {suite!r}: one of {list(OPTION_SUITES)}")
    tasks = bigbench_suite(per_family).tasks
    families = {task.family for task in tasks}
    chosen = {f for f in families if all(t.options for t in tasks if t.family == f)}
    return [task for task in tasks if task.family in chosen]


def add_suite_arguments(parser: argparse.ArgumentParser, per_family: int) -> None:
    """`--per-family` (`per_family` by default), `--suite` and `--seed`, as both option
    experiments take them."""
    parser.add_argument(
        "--per-family",
        type=int,
        default=per_family,
        help="tasks per family (<= 30 on the development suite)",
    )
    parser.add_argument(
        "--suite",
        choices=OPTION_SUITES,
        default="development",
        help="the BIG-bench development families, or the held-out option families "
        "(experiments.option_heldout: the content-free prompt was not chosen on them)",
    )
    parser.add_argument("--seed", type=int, default=39, help="the held-out suite's seed")


def tasks_from_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[Task]:
    """The tasks `add_suite_arguments`' options name, or the parser's error on a bad size."""
    most = 30 if args.suite == "development" else 1000
    if not 1 <= args.per_family <= most:
        parser.error(f"--per-family must be 1 to {most} on the {args.suite} suite")
    return option_tasks(args.per_family, args.suite, args.seed)


def mean_of(values: Sequence[float]) -> float:
    return round(float(statistics.fmean(values)), 4) if values else 0.0


def paired_interval(differences: Sequence[float], seed: int = 0) -> tuple[float, float]:
    """The 95% percentile interval of the mean difference, resampling tasks."""
    values = np.asarray(differences, dtype=float)
    rng = np.random.default_rng(seed)
    means = values[rng.integers(len(values), size=(BOOTSTRAP_RESAMPLES, len(values)))].mean(1)
    low, high = np.percentile(means, [2.5, 97.5])
    return round(float(low), 4), round(float(high), 4)


def summarise(
    tasks: Sequence[Task], static: dict[str, list[Step]], engine: list[list[Step]]
) -> dict[str, Any]:
    """Accuracy per family and overall, chance, the engine's lead over bare and its interval,
    and calls and seconds per decision, from the contenders' steps."""
    by_task_engine: dict[str, list[float]] = {}
    for order in engine:
        for step in order:
            by_task_engine.setdefault(step.task.task_id, []).append(step.reward)
    engine_score = {task_id: mean_of(values) for task_id, values in by_task_engine.items()}
    families = sorted({task.family for task in tasks})
    rows = []
    for family in families:
        members = [i for i, task in enumerate(tasks) if task.family == family]
        row: dict[str, Any] = {
            "family": family,
            "tasks": len(members),
            "chance": mean_of([1 / len(tasks[i].options) for i in members]),
        }
        for label, steps in static.items():
            row[label] = mean_of([steps[i].reward for i in members])
        row["engine"] = mean_of([engine_score[tasks[i].task_id] for i in members])
        rows.append(row)
    bare = [step.reward for step in static["bare"]]
    engine_scores = [engine_score[task.task_id] for task in tasks]
    differences = [e - b for e, b in zip(engine_scores, bare, strict=True)]
    engine_steps = [step for order in engine for step in order]
    return {
        "families": rows,
        "overall": {
            "tasks": len(tasks),
            "chance": mean_of([1 / len(task.options) for task in tasks]),
            **{label: mean_of([s.reward for s in steps]) for label, steps in static.items()},
            "engine": mean_of(engine_scores),
            "engine_by_order": [mean_of([s.reward for s in order]) for order in engine],
        },
        "engine_minus_bare": {
            "mean": mean_of(differences),
            "ci95": paired_interval(differences),
        },
        "cost_per_decision": {
            **{
                label: {
                    "calls": mean_of([s.calls for s in steps]),
                    "seconds": mean_of([s.seconds for s in steps]),
                }
                for label, steps in static.items()
            },
            "engine": {
                "calls": mean_of([s.calls for s in engine_steps]),
                "seconds": mean_of([s.seconds for s in engine_steps]),
            },
        },
        "engine_arms": _arm_shares(engine_steps),
    }


def _arm_shares(steps: Sequence[Step]) -> dict[str, float]:
    counts: dict[str, int] = {}
    for step in steps:
        counts[step.arm] = counts.get(step.arm, 0) + 1
    return {arm: round(count / len(steps), 4) for arm, count in sorted(counts.items())}


def likelihood_cost(passes: Sequence[ScoringPass]) -> dict[str, float]:
    """What option likelihood cost per option: forward tokens and seconds over the passes that
    ran (the question's, and a content-free baseline not kept yet), and how many were kept."""
    ran = [p for p in passes if not p.reused]
    if not ran:
        return {}
    options = sum(p.options for p in ran)
    return {
        "passes": len(ran),
        "passes_reused": len(passes) - len(ran),
        "options_per_pass": round(options / len(ran), 2),
        "forward_tokens_per_pass": mean_of([p.forward_tokens for p in ran]),
        "forward_tokens_per_option": round(sum(p.forward_tokens for p in ran) / options, 2),
        "seconds_per_pass": mean_of([p.seconds for p in ran]),
        "seconds_per_option": round(sum(p.seconds for p in ran) / options, 4),
    }


def markdown(summary: dict[str, Any]) -> str:
    """The per-family table and the overall row, as printed."""
    labels = [key for key in summary["overall"] if key.startswith(("bare", "fixed:"))]
    head = ["family", "tasks", "chance", *labels, "engine"]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for row in [*summary["families"], {"family": "**all**", **summary["overall"]}]:
        cells = [str(row["family"]), str(row["tasks"])] + [
            f"{100 * row[key]:.1f}" for key in ["chance", *labels, "engine"]
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, required=True, help="the evaluation's data folder")
    add_suite_arguments(parser, per_family=20)
    parser.add_argument("--orders", type=int, default=3, help="stream orders of the engine")
    parser.add_argument("--json", type=Path, help="write the summary here as JSON")
    args = parser.parse_args(argv)
    if args.orders < 1:
        parser.error("--orders must be at least 1")
    tasks = tasks_from_arguments(parser, args)
    from engine.adapters.llm.caching import CachingLLM  # noqa: PLC0415 - the model loads now
    from engine.compose import build_llm, build_option_scorer, build_searcher  # noqa: PLC0415
    from engine.settings import load_settings  # noqa: PLC0415
    from templates import load_templates  # noqa: PLC0415

    settings = load_settings(home=args.home, model="local/smollm2", store_url="memory")
    raw = build_llm(settings)
    llm = CachingLLM(raw, args.home / "online" / "cache", model="local/smollm2|stop_early=True")
    inner = build_option_scorer(raw)
    scorer = RecordedScorer(inner) if inner is not None else None
    chosen = [t for t in load_templates() if t.id in OPTION_TEMPLATES]
    max_tokens = settings.engine_config().answer_max_tokens
    static = static_steps(llm, tasks, chosen, max_tokens, lambda _n: None, scorer=scorer)
    fixed_passes = list(scorer.passes) if scorer is not None else []
    engine = engine_runs(
        "checker",
        list(enumerate(stream_orders(len(tasks), args.orders))),
        tasks,
        llm=llm,
        settings=settings,
        searcher=build_searcher(settings),
        templates=None,  # as shipped: every template
        advance=lambda _n: None,
        scorer=scorer,
    )
    summary = summarise(tasks, static, engine)
    if scorer is not None:
        summary["likelihood_cost"] = likelihood_cost(fixed_passes)
    print(markdown(summary))
    print(json.dumps({k: v for k, v in summary.items() if k != "families"}, indent=2))
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
