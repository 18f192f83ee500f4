"""The whole decision pipeline in a simulated world: does it learn the right path per kind of task?

A scripted model stands in for the LLM (so the run takes seconds and measures the engine, not a
model): each built-in template has a success probability per task family, with a different best
template in each family, as measured for the embedded model (docs: OFFLINE.md, "the effect
differs by task family"). Every decision goes through the real engine: features, seed, rating,
detours, both policies, the exact checker, outcomes replayed from the store.

    .venv/bin/python -m experiments.benchmarks.engine --decisions 800 --seeds 3

It prints, per policy and per window of decisions: accuracy, LLM calls per decision, the share of
warm decisions, and the engine's own time per decision (the scripted model costs ~0), beside the
best single template and the per-family oracle.
"""

import argparse
import functools
import json
import re
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.adapters.llm.scripted import ScriptedLLM
from engine.adapters.memory_searcher import InMemorySearcher
from engine.adapters.store.memory import InMemoryStore
from engine.compose import build_engine
from engine.domain.records import LLMRequest, Passage
from engine.settings import load_settings
from templates import load_templates

FAMILIES = ("arithmetic", "letters", "multiple_choice", "comparison")
WORDS = ("banana", "cherry", "orange", "melon", "grape", "lemon", "peach", "plum")
PASSAGES = [
    Passage("Addition: the sum of two numbers. Seven plus five is twelve.", "notes/sum.md"),
    Passage("The first letter of a word is its initial letter.", "notes/letters.md"),
    Passage("Multiple choice: pick the option letter that fits.", "notes/choice.md"),
    Passage("Comparing numbers: the greater number is larger.", "notes/compare.md"),
]


@dataclass(frozen=True)
class Task:
    query: str
    answer: str
    family: str


def make_task(family: str, rng: np.random.Generator) -> Task:
    """A task of `family` with its exact answer."""
    a, b = (int(x) for x in rng.integers(2, 60, size=2))
    if family == "arithmetic":
        return Task(f"What is {a} + {b}?", str(a + b), family)
    if family == "letters":
        word = WORDS[int(rng.integers(len(WORDS)))]
        return Task(f"What is the first letter of the word '{word}'?", word[0], family)
    if family == "multiple_choice":
        return Task("Which is a fruit? (A) car (B) apple (C) stone", "B", family)
    return Task(f"Is {a} greater than {b}?", "yes" if a > b else "no", family)


def success_table(
    template_ids: Sequence[str], rng: np.random.Generator
) -> dict[tuple[str, str], float]:
    """P(correct) per (template, family): one best (0.9), two good (0.6), the rest weak (0.25)."""
    table = {}
    for family in FAMILIES:
        order = rng.permutation(len(template_ids))
        for rank, index in enumerate(order):
            table[(template_ids[index], family)] = 0.9 if rank == 0 else 0.6 if rank < 3 else 0.25
    return table


class SimulatedModel:
    """Plays every LLM role; answers right with the chosen template's probability."""

    def __init__(self, table: dict[tuple[str, str], float], prompts: dict[str, str], seed: int):
        self.table = table
        self.prompts = prompts  # template id -> a distinctive line of its prompt
        self.rng = np.random.default_rng(seed)
        self.current: Task | None = None
        self.detours = 0

    def __call__(self, request: LLMRequest) -> str:
        if request.purpose == "seed":
            return "Background: the notes cover sums, letters, choices and comparisons [notes]."
        if request.purpose == "rate":
            numbered = re.findall(r"^(\d+)\. ", request.messages[-1].content, re.MULTILINE)
            return json.dumps({"scores": [3] * len(numbered), "tool": "none"})
        if request.purpose == "detour":
            self.detours += 1
            paths = [
                {"name": f"Fresh idea {self.detours}", "approach": "Try a new angle, then answer."}
            ]
            return json.dumps({"paths": paths})
        if request.purpose == "referee":
            return json.dumps({"score": 2, "reason": "simulated"})
        return self._answer(request.messages[-1].content)

    def _answer(self, prompt: str) -> str:
        assert self.current is not None
        template = next((t for t, line in self.prompts.items() if line in prompt), None)
        p = self.table.get((template, self.current.family), 0.25) if template else 0.25
        correct = self.rng.random() < p
        return f"Answer: {self.current.answer if correct else 'unsure'}"


def run(policy: str, decisions: int, seed: int, window: int) -> list[dict[str, float]]:
    templates = load_templates()
    rng = np.random.default_rng(seed)
    table = success_table([t.id for t in templates], rng)
    prompts = {t.id: _signature(t.prompt) for t in templates}
    model = SimulatedModel(table, prompts, seed)
    settings = load_settings(store_url="memory", path_policy=policy, policy_seed=seed, tools=[])
    engine = build_engine(
        settings,
        llm=ScriptedLLM(model),
        store=InMemoryStore(),
        searcher=InMemorySearcher(PASSAGES),
    )
    rows: list[dict[str, float]] = []
    rewards: list[float] = []
    calls: list[int] = []
    warm: list[bool] = []
    seconds: list[float] = []
    for step in range(decisions):
        task = make_task(FAMILIES[step % len(FAMILIES)], rng)
        model.current = task
        started = time.perf_counter()
        decision = engine.decide(task.query, checker=functools.partial(_check, task=task))
        seconds.append(time.perf_counter() - started)
        rewards.append(decision.outcomes[-1].reward if decision.outcomes else 0.0)
        calls.append(decision.cost.calls)
        warm.append(
            decision.step("rating").reason == "skipped"
            and decision.step("detour").reason == "skipped"
        )
        if (step + 1) % window == 0:
            rows.append(
                {
                    "until": step + 1,
                    "accuracy": float(np.mean(rewards[-window:])),
                    "calls": float(np.mean(calls[-window:])),
                    "max_calls": float(max(calls[-window:])),
                    "warm": float(np.mean(warm[-window:])),
                    "ms": 1000 * statistics.median(seconds[-window:]),
                }
            )
    best_single = max(np.mean([table[(t.id, f)] for f in FAMILIES]) for t in templates)
    for row in rows:
        row["best_single"] = float(best_single)
        row["oracle"] = 0.9
    return rows


def _signature(prompt: str) -> str:
    """A line of the template that survives placeholder filling: how the model recognises it."""
    lines = [line for line in prompt.splitlines() if "{" not in line and len(line) > 15]
    return max(lines, key=len) if lines else prompt


def _check(text: str, task: Task) -> float:
    return 1.0 if text.strip().endswith(f"Answer: {task.answer}") else 0.0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=800)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--window", type=int, default=200)
    parser.add_argument("--policies", default="thompson,glr_thompson,lints")
    parser.add_argument("--quick", action="store_true", help="a small smoke run")
    args = parser.parse_args(argv)
    if args.quick:
        args.decisions, args.seeds, args.window = 80, 1, 40
    print(
        "| policy | decisions | accuracy | best single template | oracle | calls/decision "
        "(max) | warm share | engine ms/decision (median) |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for policy in args.policies.split(","):
        per_seed = [run(policy, args.decisions, seed, args.window) for seed in range(args.seeds)]
        for index, row in enumerate(per_seed[0]):
            rows = [runs[index] for runs in per_seed]
            mean = {k: float(np.mean([r[k] for r in rows])) for k in row}
            print(
                f"| {policy} | {int(mean['until']) - args.window + 1}-{int(mean['until'])} "
                f"| {mean['accuracy']:.2f} | {mean['best_single']:.2f} | {mean['oracle']:.2f} "
                f"| {mean['calls']:.2f} ({int(max(r['max_calls'] for r in rows))}) "
                f"| {mean['warm']:.0%} | {mean['ms']:.1f} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
