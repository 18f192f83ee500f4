"""Saved prompt states (`engine.adapters.llm.prefix_states`) on and off, side by side.

    .venv/bin/python -m experiments.benchmarks.prefix_states --questions 12

Two copies of the embedded model in this process, one saving and restoring prompt states and
one with llama.cpp's own reuse only (what the context last held: the reference), answer the
same calls in the same order, interleaved call by call so that the shared machine's noise falls
on both alike. The calls are what a decision stream makes: for each question, one bare call
(the question alone) and one answer prompt of a built-in path, the paths taken in turn
(`engine.stages.answer.answer_messages`, the engine's own rendering). Decoding is greedy, so
both copies should write the same text; the report says how often they did.

Printed: each kind of call's median seconds and prompt tokens on each copy, the ratio of the
two, and the ratio of an answer prompt to the bare call on each (what issue 25 (f) compares).
"""

import argparse
import json
import statistics
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from engine.adapters.llm.local_model import LocalModels
from engine.adapters.llm.local_settings import LocalModelSettings
from engine.domain.records import PathDefinition
from engine.stages.answer import answer_messages
from templates.loader import load_templates

COUNTRIES = (
    "Spain", "Japan", "Peru", "Kenya", "Norway", "Chile", "Egypt", "Canada", "Italy", "Ghana",
    "Poland", "Nepal", "Cuba", "Iran", "Mali", "Laos", "Fiji", "Oman", "Chad", "Togo",
)  # fmt: skip
# One-call paths that answer a factual question (the option procedures answer only options).
PATHS = ("direct_answer", "bare_question", "elimination", "analogy", "first_principles")
MODEL = "smollm2"


def calls(questions: int) -> list[tuple[str, list[dict[str, str]]]]:
    """(kind of call, messages) in the order a stream makes them."""
    templates = {template.id: template for template in load_templates()}
    made: list[tuple[str, list[dict[str, str]]]] = []
    for index in range(questions):
        query = f"What is the capital of {COUNTRIES[index % len(COUNTRIES)]}?"
        made.append(("bare", [{"role": "user", "content": query}]))
        path = templates[PATHS[index % len(PATHS)]]
        rendered = answer_messages(PathDefinition.from_template(path), query, None, None)
        made.append(("answer", [{"role": m.role, "content": m.content} for m in rendered]))
    return made


def run(questions: int, max_tokens: int, capacity_mb: int) -> dict[str, Any]:
    copies = {
        "states": LocalModels(LocalModelSettings(prefix_cache_bytes=capacity_mb * 2**20)),
        "reference": LocalModels(LocalModelSettings(prefix_cache_bytes=0)),
    }
    seconds: dict[str, dict[str, list[float]]] = {name: {} for name in copies}
    tokens: dict[str, dict[str, list[int]]] = {name: {} for name in copies}
    texts: dict[str, list[str]] = {name: [] for name in copies}
    try:
        for models in copies.values():
            models.load(MODEL)
        for index, (kind, messages) in enumerate(calls(questions)):
            order = list(copies) if index % 2 == 0 else list(reversed(copies))
            for name in order:
                started = time.perf_counter()
                generation = copies[name].generate(
                    MODEL, messages, max_tokens=max_tokens, timeout_s=120
                )
                seconds[name].setdefault(kind, []).append(time.perf_counter() - started)
                tokens[name].setdefault(kind, []).append(generation.prompt_tokens)
                texts[name].append(generation.text)
    finally:
        for models in copies.values():
            models.close()
    return _report(seconds, tokens, texts)


def _report(
    seconds: Mapping[str, Mapping[str, Sequence[float]]],
    tokens: Mapping[str, Mapping[str, Sequence[int]]],
    texts: Mapping[str, Sequence[str]],
) -> dict[str, Any]:
    medians = {
        name: {kind: round(statistics.median(values), 4) for kind, values in by_kind.items()}
        for name, by_kind in seconds.items()
    }
    same = sum(a == b for a, b in zip(texts["states"], texts["reference"], strict=True))
    return {
        "median_s": medians,
        "prompt_tokens": {
            name: {kind: statistics.median(values) for kind, values in by_kind.items()}
            for name, by_kind in tokens.items()
        },
        "states_over_reference": {
            kind: round(medians["states"][kind] / medians["reference"][kind], 3)
            for kind in medians["states"]
        },
        "answer_over_bare": {
            name: round(by_kind["answer"] / by_kind["bare"], 3) for name, by_kind in medians.items()
        },
        "same_text": f"{same}/{len(texts['states'])}",
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=12, help="questions (two calls each)")
    parser.add_argument("--max-tokens", type=int, default=160, help="the answer's token limit")
    parser.add_argument("--capacity-mb", type=int, default=64, help="the saved states' budget")
    parser.add_argument("--json", type=Path, help="write the figures here as JSON")
    args = parser.parse_args(argv)
    if args.questions < 2 or args.max_tokens < 1 or args.capacity_mb < 1:
        parser.error("--questions must be at least 2, --max-tokens and --capacity-mb at least 1")
    figures = run(args.questions, args.max_tokens, args.capacity_mb)
    text = json.dumps(figures, indent=2)
    print(text)
    if args.json is not None:
        args.json.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
