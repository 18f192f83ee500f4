"""Does the model's rating of the reasoning paths predict which path answers right?

    python -m experiments.rating_check --home H [--set suite=development ...]

It takes the online evaluation's stream and request cache (`thinkpath experiments run online
--home H` with the same `--set` values): every template's forced answer to every task is there
already, checked by the exact checker. For each task it asks the model once to rate the paths
(`engine.stages.rating.rate_paths`, the engine's own call, through the same cache) and reports:

- the AUC of the rating: over pairs (a path right, a path wrong) of one task, how often the right
  one was rated higher (ties count one half); 0.5 is no information;
- how often the best-rated path was right, beside the mean path's accuracy;
- how the ratings spread (the share of tasks where every path got the same score, and the most
  frequent score vector).

Why: the engine once asked for this rating before exploring a cold kind (a 12-20 s call on the
embedded model); it is off where it has not been shown to predict outcomes
(`engine.domain.config.PRODUCT_RATE_COLD_PATHS`).
"""

import argparse
import json
import statistics
from collections import Counter
from pathlib import Path
from typing import Any

from engine.domain.records import PathDefinition
from engine.errors import LLMError
from engine.stages import rating
from experiments.experiment import ExperimentContext
from experiments.online import static_steps
from experiments.online_experiment import (
    OnlineParams,
    _settings,
    _templates,
    cached_collaborators,
    task_suite,
)
from experiments.registry import get_experiment, parse_overrides, resolve_params

__all__ = ["main", "rating_auc"]


def rating_auc(scores: list[int], right: list[bool]) -> tuple[float, int]:
    """The share of (right, wrong) path pairs of one task where the right one is rated higher
    (ties half), and the number of such pairs.

    >>> rating_auc([5, 3, 3], [True, False, False])
    (1.0, 2)
    >>> rating_auc([2, 2], [True, False])
    (0.5, 1)
    """
    wins, pairs = 0.0, 0
    for score_right, is_right in zip(scores, right, strict=True):
        if not is_right:
            continue
        for score_wrong, other in zip(scores, right, strict=True):
            if other:
                continue
            pairs += 1
            wins += 1.0 if score_right > score_wrong else 0.5 if score_right == score_wrong else 0
    return (wins / pairs if pairs else float("nan")), pairs


def check(params: OnlineParams, context: ExperimentContext) -> dict[str, Any]:
    """Rate every task's paths and compare the ratings with the forced answers' correctness."""
    settings = _settings(params, context)
    llm, _ = cached_collaborators(params, context, settings)
    templates = list(_templates(params))
    tasks = list(task_suite(params).tasks)
    max_tokens = settings.engine_config().answer_max_tokens  # as the evaluation's own
    forced = static_steps(llm, tasks, templates, max_tokens, lambda _n: None)
    paths = [PathDefinition.from_template(t) for t in templates]
    tools = {"none": "answer without a tool"}
    wins, pairs, top_right, mean_right, failed = 0.0, 0, 0, 0.0, 0
    vectors: Counter[tuple[int, ...]] = Counter()
    for index, task in enumerate(tasks):
        right = [forced[f"fixed:{t.id}"][index].reward >= 0.5 for t in templates]
        try:
            rated = rating.rate_paths(llm, task.query, paths, tools, retries=1, timeout_s=120)
        except LLMError:
            failed += 1
            continue
        scores = [rated.scores[path.arm_id] for path in paths]
        vectors[tuple(scores)] += 1
        auc, count = rating_auc(scores, right)
        if count:
            wins += auc * count
            pairs += count
        best = max(range(len(paths)), key=lambda i: scores[i])
        top_right += right[best]
        mean_right += statistics.mean(right)
    rated_tasks = len(tasks) - failed
    return {
        "tasks": len(tasks),
        "ratings_failed": failed,
        "pairs": pairs,
        "auc": round(wins / pairs, 3) if pairs else None,
        "best_rated_right": round(top_right / rated_tasks, 3) if rated_tasks else None,
        "mean_path_right": round(mean_right / rated_tasks, 3) if rated_tasks else None,
        "all_equal_share": round(
            sum(n for v, n in vectors.items() if len(set(v)) == 1) / max(rated_tasks, 1), 3
        ),
        "most_common_scores": [[*v, n] for v, n in vectors.most_common(3)],
        "paths": [path.arm_id for path in paths],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True, help="the evaluation's home")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    experiment = get_experiment("online")
    params = resolve_params(experiment, parse_overrides(args.set))
    assert isinstance(params, OnlineParams)
    found = check(params, ExperimentContext(data_dir=args.home))
    print(json.dumps(found, indent=1))
    if args.json:
        args.json.write_text(json.dumps(found, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
