"""Option likelihood alone, under each normalisation and content-free prompt: a cheap check.

    .venv/bin/python -m experiments.option_normalisations --home /tmp/optnorm --per-family 30 \\
        [--model local//abs/path/other.gguf] [--suite heldout --seed 39]

On the development families that give options (`experiments.option_families.option_tasks`),
each question is scored once by the in-process model `--model` names (`local/smollm2`, the
embedded SmolLM2, by default), after "Question: ...\\nAnswer:" (the prompt of
`engine.stages.option_procedures`) and each option set once after every candidate content-free
prompt; every normalisation of `engine.domain.likelihood` then chooses from those same scores,
so the comparison costs one pass a question plus one a new option set and a prompt, no
generation and no engine. Printed: accuracy per family and overall beside chance, the families
below chance, and each variant's paired lead over `token_mean` (the default before
calibration) and over the shipped prompt (`calibrated:na`), each with a 95% bootstrap interval
over tasks; the JSON adds every task's reward per variant. This chose the engine's content-free
prompt (`CONTENT_FREE_PROMPT`) on the development suite; the public families this issue was
tried on stay held out. `--suite heldout` scores the generated option families of
`experiments.option_heldout` instead, on which the prompt was not chosen (issue 39, item 6).
"""

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.domain.likelihood import Likelihoods, Normalisation, best_option
from engine.domain.options import answer_in_form, read_options
from engine.domain.ports import OptionScorer
from experiments.option_families import (
    add_suite_arguments,
    mean_of,
    paired_interval,
    tasks_from_arguments,
)
from experiments.replay import check_task
from experiments.tasks import Task

__all__ = ["CONTENT_FREE_PROMPTS", "SHIPPED", "compare", "main", "summarise"]

UNCALIBRATED: tuple[Normalisation, ...] = ("token_mean", "sum", "char_mean")
SHIPPED = "calibrated:na"  # the engine's CONTENT_FREE_PROMPT, chosen on the development suite
CONTENT_FREE_PROMPTS = {
    "answer": "Answer:",  # Holtzman et al. 2021's domain premise, the answer slot alone
    "na": "Question: N/A\nAnswer:",  # Zhao et al. 2021's "N/A" in the question's place
    "empty": "Question: \nAnswer:",
    "mask": "Question: [MASK]\nAnswer:",
}


def compare(scorer: OptionScorer, tasks: Sequence[Task]) -> dict[str, list[float]]:
    """Each variant's reward per task, in task order (0 where the options are not read)."""
    rewards: dict[str, list[float]] = {}
    kept: dict[tuple[str, frozenset[str]], Likelihoods] = {}
    for task in tasks:
        options = read_options(task.query)
        chosen: dict[str, int | None] = {}
        if options is not None:
            continuations = [f" {text}" for text in options.texts]
            prompt = f"Question: {options.stem or task.query}\nAnswer:"
            scored = scorer.score_continuations(prompt, continuations, 60.0)
            for how in UNCALIBRATED:
                chosen[how] = best_option(scored, how)
            for name, free in CONTENT_FREE_PROMPTS.items():
                key = (free, frozenset(continuations))
                if key not in kept:
                    kept[key] = scorer.score_continuations(free, continuations, 60.0)
                by_text = {s.continuation: s for s in kept[key].scores}
                baseline = Likelihoods(0, tuple(by_text[text] for text in continuations))
                chosen[f"calibrated:{name}"] = best_option(scored, "calibrated", baseline=baseline)
        for variant in [*UNCALIBRATED, *(f"calibrated:{name}" for name in CONTENT_FREE_PROMPTS)]:
            index = chosen.get(variant)
            text = "" if options is None or index is None else answer_in_form(options, index)
            rewards.setdefault(variant, []).append(check_task(text, task))
    return rewards


def summarise(tasks: Sequence[Task], rewards: dict[str, list[float]]) -> dict[str, Any]:
    """Accuracy per family and overall, families below chance, the lead over token_mean and
    over the shipped content-free prompt (`calibrated:na`), and each task's reward."""
    families = sorted({task.family for task in tasks})
    chance = {
        family: mean_of([1 / len(t.options) for t in tasks if t.family == family])
        for family in families
    }
    out: dict[str, Any] = {"tasks": len(tasks), "chance": chance, "variants": {}}
    for variant, values in rewards.items():
        by_family = {
            family: mean_of([v for v, t in zip(values, tasks, strict=True) if t.family == family])
            for family in families
        }
        out["variants"][variant] = {
            "families": by_family,
            "overall": mean_of(values),
            "below_chance": [f for f in families if by_family[f] < chance[f]],
            **{
                f"minus_{against}": _lead(values, rewards[key])
                for against, key in (("token_mean", "token_mean"), ("chosen", SHIPPED))
                if key in rewards
            },
        }
    out["rewards"] = {
        "task_ids": [task.task_id for task in tasks],
        **{variant: [int(v) for v in values] for variant, values in rewards.items()},
    }
    return out


def _lead(values: Sequence[float], against: Sequence[float]) -> dict[str, Any]:
    differences = [v - b for v, b in zip(values, against, strict=True)]
    return {"mean": mean_of(differences), "ci95": paired_interval(differences)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, required=True, help="the evaluation's data folder")
    add_suite_arguments(parser, per_family=30)
    parser.add_argument("--json", type=Path, help="write the summary here as JSON")
    parser.add_argument(
        "--model", default="local/smollm2", help="an in-process model (local/<alias or path>)"
    )
    args = parser.parse_args(argv)
    tasks = tasks_from_arguments(parser, args)
    from engine.compose import build_llm, build_option_scorer  # noqa: PLC0415 - the model loads
    from engine.settings import load_settings  # noqa: PLC0415

    settings = load_settings(home=args.home, model=args.model, store_url="memory")
    scorer = build_option_scorer(build_llm(settings))
    if scorer is None:
        parser.error("option likelihood needs the in-process model")
    summary = summarise(tasks, compare(scorer, tasks))
    for variant, row in summary["variants"].items():
        lead = row["minus_token_mean"]
        low, high = (100 * bound for bound in lead["ci95"])
        chosen = row["minus_chosen"]
        print(
            f"{variant:18} {100 * row['overall']:5.1f}%  below chance "
            f"{len(row['below_chance'])}/{len(summary['chance'])}  vs token_mean "
            f"{100 * lead['mean']:+.1f} [{low:+.1f}, {high:+.1f}]  vs {SHIPPED} "
            f"{100 * chosen['mean']:+.1f} [{100 * chosen['ci95'][0]:+.1f}, "
            f"{100 * chosen['ci95'][1]:+.1f}]"
        )
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
