"""Benchmark: the embedded model through raw llama-cpp-python vs through ThinkPath's litellm path.

Both sides run the same GGUF file in this process with the same thread count, on the same short
prompts, interleaved (the side that goes first alternates) so that a machine that gets busier
or quieter mid-run affects both alike. Decoding is greedy, so both sides should generate the
same tokens; the report says how often they did. A second part records what SmolLM2 does when
asked to rate reasoning strategies under a JSON schema, and without one.

    source scripts/offline-env
    .venv/bin/python -m experiments.benchmarks.llm --rounds 3 --json-out /tmp/llm-bench.json
"""

import argparse
import json
import statistics
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from engine.adapters.llm.litellm_chat import LiteLLMChat
from engine.adapters.llm.local_model import resolve_model_path
from engine.adapters.llm.local_provider import register_local_provider
from engine.adapters.llm.local_settings import LocalModelSettings
from engine.domain.records import ChatMessage, LLMRequest
from engine.domain.structured import ask_structured, parse_structured
from engine.errors import LLMError

PROMPTS = (
    "What is the capital of France?",
    "Give one tip for writing clear code.",
    "What is 7 plus 5?",
    "Name three primary colors.",
    "Explain what a bandit algorithm is in one sentence.",
    "Is a tomato a fruit or a vegetable?",
)

TASKS = (
    "What is 17 + 25?",
    "Which word comes first alphabetically: pear or apple?",
    "Is the sentence 'I loved this film' positive or negative?",
    "A train travels 60 km in 1.5 hours. What is its speed?",
)
STRATEGIES = (
    "think step by step",
    "answer directly",
    "work backwards from the goal",
)


class StrategyRating(BaseModel):
    """The rating stage's reply: how well a strategy fits a task."""

    rating: int = Field(ge=1, le=5)
    reason: str = Field(max_length=80)


@dataclass(frozen=True)
class Sample:
    side: str  # "raw" or "litellm"
    prompt: int
    seconds: float
    completion_tokens: int
    text: str


def _raw_llama(path: Path, settings: LocalModelSettings) -> Any:
    from llama_cpp import Llama  # noqa: PLC0415 - heavy, and only this benchmark needs it bare

    return Llama(
        model_path=str(path),
        n_ctx=settings.n_ctx,
        n_batch=settings.n_batch,
        n_threads=settings.threads,
        n_threads_batch=settings.threads,
        verbose=False,
    )


def _time_raw(llama: Any, prompt: str, max_tokens: int, index: int) -> Sample:
    started = time.perf_counter()
    result = llama.create_chat_completion(
        messages=[{"role": "user", "content": prompt}],
        max_tokens=max_tokens,
        temperature=0.0,
        seed=0,
    )
    seconds = time.perf_counter() - started
    text = result["choices"][0]["message"]["content"] or ""
    return Sample("raw", index, seconds, int(result["usage"]["completion_tokens"]), text)


def _time_ours(chat: LiteLLMChat, prompt: str, max_tokens: int, index: int) -> Sample:
    request = LLMRequest(
        messages=(ChatMessage("user", prompt),), max_tokens=max_tokens, temperature=0.0, seed=0
    )
    started = time.perf_counter()
    response = chat.complete(request)
    seconds = time.perf_counter() - started
    return Sample("litellm", index, seconds, response.completion_tokens, response.text)


def run_overhead(
    llama: Any, chat: LiteLLMChat, rounds: int, max_tokens: int
) -> tuple[dict[str, Any], list[Sample]]:
    """Interleave both sides over every prompt for `rounds` rounds; summarize the timings."""
    _time_raw(llama, PROMPTS[0], 4, -1)  # warm-up: first calls pay one-off allocations
    _time_ours(chat, PROMPTS[0], 4, -1)
    samples: list[Sample] = []
    for round_index in range(rounds):
        for index, prompt in enumerate(PROMPTS):
            order = ("raw", "litellm") if (round_index + index) % 2 == 0 else ("litellm", "raw")
            for side in order:
                if side == "raw":
                    samples.append(_time_raw(llama, prompt, max_tokens, index))
                else:
                    samples.append(_time_ours(chat, prompt, max_tokens, index))
    return _summarize(samples), samples


def _summarize(samples: Sequence[Sample]) -> dict[str, Any]:
    """Medians per side and the litellm/raw ratios, pairing the n-th call of each side.

    >>> pairs = [Sample("raw", 0, 1.0, 10, "a"), Sample("litellm", 0, 1.5, 10, "a"),
    ...          Sample("raw", 1, 2.0, 10, "b"), Sample("litellm", 1, 2.0, 10, "c")]
    >>> summary = _summarize(pairs)
    >>> summary["median_pair_ratio"], summary["median_pair_extra_ms"], summary["same_text_fraction"]
    (1.25, 250.0, 0.5)
    >>> summary["raw"]["median_tokens_per_second"]
    7.5
    """
    by_side = {side: [s for s in samples if s.side == side] for side in ("raw", "litellm")}
    summary: dict[str, Any] = {}
    for side, side_samples in by_side.items():
        summary[side] = {
            "calls": len(side_samples),
            "median_seconds": statistics.median(s.seconds for s in side_samples),
            "median_tokens_per_second": statistics.median(
                s.completion_tokens / s.seconds for s in side_samples
            ),
            "median_completion_tokens": statistics.median(
                s.completion_tokens for s in side_samples
            ),
        }
    raw, ours = by_side["raw"], by_side["litellm"]
    pair_ratios = [o.seconds / r.seconds for r, o in zip(raw, ours, strict=True)]
    pair_extra_ms = [1000 * (o.seconds - r.seconds) for r, o in zip(raw, ours, strict=True)]
    summary["overhead_ratio_of_medians"] = (
        summary["litellm"]["median_seconds"] / summary["raw"]["median_seconds"]
    )
    summary["median_pair_ratio"] = statistics.median(pair_ratios)
    summary["median_pair_extra_ms"] = statistics.median(pair_extra_ms)
    summary["same_text_fraction"] = sum(
        r.text == o.text for r, o in zip(raw, ours, strict=True)
    ) / len(raw)
    return summary


def run_rating_probe(chat: LiteLLMChat, max_tokens: int) -> dict[str, Any]:
    """Ask SmolLM2 to rate each strategy for each task, with and without the JSON schema."""
    constrained: list[int | None] = []
    constrained_first_try = 0
    unconstrained: list[int | None] = []
    examples: list[str] = []
    for task in TASKS:
        for strategy in STRATEGIES:
            question = (
                f"Task: {task}\nStrategy: {strategy}\nRate from 1 (poor) to 5 (excellent) how "
                "well the strategy suits the task. Reply as JSON with keys rating and reason."
            )
            messages = (ChatMessage("user", question),)
            try:
                verdict = ask_structured(
                    chat, messages, StrategyRating, purpose="rate", max_tokens=max_tokens, retries=0
                )
                constrained.append(verdict.rating)
                constrained_first_try += 1
            except LLMError:
                try:
                    verdict = ask_structured(
                        chat, messages, StrategyRating, purpose="rate", max_tokens=max_tokens
                    )
                    constrained.append(verdict.rating)
                except LLMError:
                    constrained.append(None)
            free = chat.complete(LLMRequest(messages=messages, max_tokens=max_tokens)).text
            if len(examples) < 3:
                examples.append(free)
            try:
                unconstrained.append(parse_structured(free, StrategyRating).rating)
            except ValidationError:
                unconstrained.append(None)
    total = len(TASKS) * len(STRATEGIES)
    return {
        "questions": total,
        "schema_valid_first_try": constrained_first_try / total,
        "schema_valid_with_retry": sum(r is not None for r in constrained) / total,
        "schema_rating_counts": dict(sorted(Counter(r for r in constrained if r).items())),
        "schema_ratings_by_task": [
            constrained[i * len(STRATEGIES) : (i + 1) * len(STRATEGIES)] for i in range(len(TASKS))
        ],
        "no_schema_valid": sum(r is not None for r in unconstrained) / total,
        "no_schema_examples": examples,
    }


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Run both parts and print a JSON report (also written to --json-out)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=32)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--skip-rating", action="store_true")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args(argv)

    settings = LocalModelSettings(threads=args.threads)
    path = resolve_model_path("smollm2")
    register_local_provider(settings)
    chat = LiteLLMChat("local/smollm2")
    llama = _raw_llama(path, settings)
    overhead, samples = run_overhead(llama, chat, args.rounds, args.max_tokens)
    report: dict[str, Any] = {
        "model": path.name,
        "threads": args.threads,
        "rounds": args.rounds,
        "max_tokens": args.max_tokens,
        "overhead": overhead,
        "samples": [asdict(sample) for sample in samples],
    }
    if not args.skip_rating:
        report["rating_probe"] = run_rating_probe(chat, max_tokens=60)
    shown = {key: value for key, value in report.items() if key != "samples"}
    print(json.dumps(shown, indent=2))
    if args.json_out is not None:
        args.json_out.write_text(json.dumps(report, indent=2))
    return report


if __name__ == "__main__":
    main()
