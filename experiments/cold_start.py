"""A new kind's cold start: how many decisions until it picks its top arm, and how many arms it
explores, when it resembles a known kind and when it does not.

    python -m experiments.cold_start [--arms 13] [--known 6] [--seeds 200] [--json out.json]

A simulated namespace (no model: rewards are Bernoulli draws) holds `--known` kinds, each with
its own best arm, taught 40 decisions each by the shipped path policy (`pooled_thompson`, the
kinds' anchors as contexts). Then a new kind arrives:

- *like* a known kind: its anchor at cosine 0.9 with that kind's, the same best arm;
- *unlike* every known kind: an anchor orthogonal to all of them, a best arm no known kind has.

For each, beside the same policy from zero (`prior_strength=0`), it reports the decisions until
the new kind's draws pick its top arm at least 80% of the time (over a window of 10 decisions,
averaged over `--seeds` runs), and how many arms the new kind's exploration set holds: every
arm before, the arms not dominated on every known kind after (`engine.orchestration.earned`).
Seconds follow from a decision's measured time (docs/benchmarks.md, "Kinds of query").
"""

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from engine.orchestration.earned import dominated_arms
from learning import make_policy

__all__ = ["cold_start", "main"]

DIMENSION = 16
TAUGHT = 40  # decisions per known kind before the new one arrives
WINDOW = 10
TARGET = 0.8
HORIZON = 120
GOOD, OTHERS = 0.8, 0.3  # the best arm's success rate, and every other arm's


def _anchor(index: int) -> np.ndarray:
    anchor: np.ndarray = np.eye(DIMENSION)[index]
    return anchor


def _run(seed: int, arms: list[str], known: int, like: bool, strength: float) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    policy = make_policy(
        "pooled_thompson", arms, seed=seed, context_dim=DIMENSION, prior_strength=strength
    )
    for kind in range(known):
        for _ in range(TAUGHT):
            arm = policy.select(context=_anchor(kind))
            best = arms[kind % len(arms)]
            policy.update(
                arm, float(rng.random() < (GOOD if arm == best else OTHERS)), context=_anchor(kind)
            )
    dominated = dominated_arms([policy.prob_best(context=_anchor(k)) for k in range(known)])
    if like:
        new = 0.9 * _anchor(0) + np.sqrt(1 - 0.81) * _anchor(DIMENSION - 1)
        best = arms[0]
    else:
        new = _anchor(DIMENSION - 2)
        best = arms[known % len(arms)]
    hits = []
    for _ in range(HORIZON):
        arm = policy.select(context=new)
        hits.append(arm == best)
        policy.update(arm, float(rng.random() < (GOOD if arm == best else OTHERS)), context=new)
    rolling = np.convolve(hits, np.ones(WINDOW) / WINDOW, mode="valid")
    return {"rolling": rolling, "explored": len(arms) - len(dominated)}


def cold_start(arms: int, known: int, seeds: int) -> dict[str, Any]:
    names = [f"arm{i}" for i in range(arms)]
    result: dict[str, Any] = {"arms": arms, "known_kinds": known, "seeds": seeds}
    for label, like in (("like", True), ("unlike", False)):
        for policy, strength in (("pooled", 4.0), ("from_zero", 0.0)):
            runs = [_run(seed, names, known, like, strength) for seed in range(seeds)]
            mean = np.mean([run["rolling"] for run in runs], axis=0)
            reached = np.flatnonzero(mean >= TARGET)
            result[f"{label}/{policy}"] = {
                "decisions_to_80pct": int(reached[0] + WINDOW) if len(reached) else None,
                "top_arm_share_first_10": round(float(mean[0]), 3),
                "arms_explored_mean": round(float(np.mean([r["explored"] for r in runs])), 1),
            }
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arms", type=int, default=13)
    parser.add_argument("--known", type=int, default=6)
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    if not args.arms >= 2 or not 1 <= args.known < DIMENSION - 2 or args.seeds < 1:
        parser.error(f"--arms >= 2, --known in [1, {DIMENSION - 3}], --seeds >= 1")
    found = cold_start(args.arms, args.known, args.seeds)
    print(json.dumps(found, indent=1))
    if args.json:
        args.json.write_text(json.dumps(found, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
