"""Free text that stops at its answer line, on and off, for one local model.

    .venv/bin/python -m experiments.benchmarks.answer_stop --model qwen2.5-coder-1.5b

The same answer prompts (`engine.stages.answer.answer_messages`, the engine's own rendering of
a built-in path) go to one loaded copy of the model twice: once with the early stop
(`LocalModelSettings.stop_early`, `engine.domain.stopping`) and once without, the side that goes
first alternating, each evaluating its whole prompt (as a cold call does; the model is loaded
and warmed up before the first), greedy decoding, the engine's answer limit (320 tokens).
Printed per call and in total: completion tokens, seconds, how each ended, and whether both
gave the same answer (as the engine's checkers read it; the stop only cuts what follows the
answer line, so they should).
"""

import argparse
import json
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.adapters.llm.local_model import LocalModels
from engine.adapters.llm.local_settings import ChatRuntime, LocalModelSettings
from engine.domain.checkers import extract_final_answer
from engine.domain.config import EngineConfig
from engine.domain.records import PathDefinition
from engine.stages.answer import answer_messages
from templates.loader import load_templates

# Easy questions with one right answer each, of the kinds the engine sees.
QUESTIONS = (
    ("A shop sells pens at 3 dollars each. How much do 7 pens cost, in dollars?", "21"),
    ("How many minutes are there in 3.5 hours?", "210"),
    ("If today is Monday, what day of the week is it 10 days from now?", "thursday"),
    ("What is the capital of Australia?", "canberra"),
    ("Sort these words alphabetically: pear, apple, mango.", "apple, mango, pear"),
    ("A rectangle is 6 m long and 4 m wide. What is its area in square metres?", "24"),
)
PATHS = ("step_by_step_check", "plan_then_solve", "direct_answer")


def answer_of(text: str) -> str:
    """The answer the engine's checkers read in `text` (an "Answer:" line, a \\boxed{}, ...),
    lower-cased; "" when there is none."""
    return (extract_final_answer(text) or "").strip(" *.").lower()


def run(model: str, questions: int, paths: Sequence[str], threads: int) -> dict[str, Any]:
    runtime: list[ChatRuntime] = []

    def load_once(path: Path, settings: LocalModelSettings) -> ChatRuntime:
        if not runtime:  # both sides share one loaded copy, so only the stop differs
            from engine.adapters.llm.llama_runtime import load_llama  # noqa: PLC0415

            runtime.append(load_llama(path, settings))
        return runtime[0]

    sides = {
        flag: LocalModels(
            # No saved prompt states: each call evaluates its whole prompt (see `run`'s reset).
            LocalModelSettings(threads=threads, n_ctx=4096, stop_early=flag, prefix_cache_bytes=0),
            loader=load_once,
        )
        for flag in (True, False)
    }
    # Before any timing, the load and one token: the first pass pages the weights in (mmap),
    # which the first timed call would otherwise carry.
    warm_up = [{"role": "user", "content": "Hi."}]
    for models in sides.values():
        models.generate(model, warm_up, max_tokens=1, timeout_s=600.0)
    templates = {template.id: template for template in load_templates()}
    limit = EngineConfig().answer_max_tokens
    rows: list[dict[str, Any]] = []
    for index, (query, expected) in enumerate(QUESTIONS[:questions]):
        for path_id in paths:
            path = PathDefinition.from_template(templates[path_id])
            messages = [
                {"role": message.role, "content": message.content}
                for message in answer_messages(path, query, None, None)
            ]
            order = (True, False) if (index + len(rows)) % 2 == 0 else (False, True)
            row: dict[str, Any] = {"question": query, "path": path_id, "expected": expected}
            for flag in order:
                # Both sides pay the prompt: else the second reuses what the first evaluated.
                if runtime:
                    runtime[0].reset()  # type: ignore[attr-defined]  # llama_cpp.Llama's
                started, cpu_started = time.perf_counter(), time.process_time()
                generation = sides[flag].generate(
                    model, messages, max_tokens=limit, timeout_s=600.0
                )
                key = "stop" if flag else "full"
                row[key] = {
                    "seconds": round(time.perf_counter() - started, 2),
                    # CPU seconds of this process: steadier than wall time on a shared machine
                    "cpu_seconds": round(time.process_time() - cpu_started, 2),
                    "tokens": generation.completion_tokens,
                    "finish": generation.finish_reason,
                    "answer": answer_of(generation.text),
                    "text": generation.text,
                }
            row["same_answer"] = row["stop"]["answer"] == row["full"]["answer"]
            rows.append(row)
            print(
                f"{path_id:20} {row['stop']['tokens']:4} tok {row['stop']['seconds']:6.1f} s"
                f" {row['stop']['cpu_seconds']:6.1f} cpu | {row['full']['tokens']:4} tok"
                f" {row['full']['seconds']:6.1f} s {row['full']['cpu_seconds']:6.1f} cpu"
                f" | {row['stop']['answer'][:30]!r} {'=' if row['same_answer'] else '!='}"
                f" {row['full']['answer'][:30]!r}",
                flush=True,
            )
    for models in sides.values():
        models.close()
    return {"model": model, "threads": threads, "rows": rows, "summary": summary(rows)}


def summary(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    def total(key: str, field: str) -> float:
        return float(sum(row[key][field] for row in rows))

    return {
        "calls": len(rows),
        "seconds_stop": round(total("stop", "seconds"), 1),
        "seconds_full": round(total("full", "seconds"), 1),
        "seconds_ratio": round(total("stop", "seconds") / total("full", "seconds"), 2),
        "cpu_seconds_stop": round(total("stop", "cpu_seconds"), 1),
        "cpu_seconds_full": round(total("full", "cpu_seconds"), 1),
        "median_tokens_stop": statistics.median(row["stop"]["tokens"] for row in rows),
        "median_tokens_full": statistics.median(row["full"]["tokens"] for row in rows),
        "same_answer": sum(row["same_answer"] for row in rows),
        "right_stop": sum(row["expected"] in row["stop"]["answer"] for row in rows),
        "right_full": sum(row["expected"] in row["full"]["answer"] for row in rows),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="qwen2.5-coder-1.5b", help="a local model alias")
    parser.add_argument("--questions", type=int, default=len(QUESTIONS))
    parser.add_argument("--paths", default=",".join(PATHS), help="built-in template ids")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    result = run(args.model, args.questions, args.paths.split(","), args.threads)
    print(json.dumps(result["summary"], indent=2))
    if args.json_out:
        args.json_out.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
