"""The program tool on everyday word problems: how often it answers, and how often it is right.

    python -m experiments.word_problems.measure --model local/qwen2.5-coder-1.5b
    python -m experiments.word_problems.measure --model local/smollm2 --limit 10
    python -m experiments.word_problems.measure --model local/qwen2.5-coder-1.5b \\
        --problems experiments/word_problems/everyday_2.jsonl

Each question of a set goes to the program tool as the engine runs it
(`engine.stages.program.solve_with_program`: one constrained call, then the sandbox). The sets:
`everyday.jsonl`, 40 problems written before any code that answers them (wages, shares of a bill,
percentages, areas, powers, rates), measured once and then training data: its failures changed
the program stage (`_strip_json_tail`); `everyday_2.jsonl`, 40 more, written after seeing those
failures and before that change, so nothing was changed in the light of its own.

The tool *answers* when the program ran and printed one number and nothing else (the tool's last
line, "Answer: <what it printed>"); it is *right* when that number, rounded to the decimals of
the expected answer, is the expected answer. Precision is right / answered; a program that
failed, printed nothing or printed words is a refusal, which is what a user would rather have
than a wrong number.
"""

import argparse
import json
import math
import re
import statistics
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

__all__ = ["Outcome", "read_number", "right", "run"]

PROBLEMS = Path(__file__).with_name("everyday.jsonl")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


@dataclass(frozen=True)
class Outcome:
    id: str
    answered: bool
    right: bool
    seconds: float
    printed: str | None
    program: str | None


def read_number(output: str) -> float | None:
    """The one number a program printed, as the tool states it on its last line ("Answer:
    <what it printed>"; thousands commas and a leading currency sign allowed); None for
    anything else.

    >>> read_number("The model wrote this program; it printed 666\\nAnswer: 666")
    666.0
    >>> read_number("Answer: $1,045.00"), read_number("Answer: 5 apples"), read_number("7")
    (1045.0, None, None)
    """
    last = output.strip().splitlines()[-1] if output.strip() else ""
    if not last.startswith("Answer:"):
        return None
    text = last.removeprefix("Answer:").strip().replace(",", "").lstrip("$")
    return float(text) if _NUMBER.fullmatch(text) else None


def right(value: float, expected: float) -> bool:
    """Is `value`, rounded to the decimals `expected` is written with, `expected`?

    >>> right(314.159, 314.2), right(665.6, 666), right(23.1, 23.1), right(0.36, 0.3)
    (True, False, True, False)
    """
    decimals = len(repr(float(expected)).split(".")[1].rstrip("0")) if expected % 1 else 0
    if decimals == 0:
        return math.isclose(value, expected, rel_tol=0, abs_tol=1e-6)
    return math.isclose(round(value, decimals), expected, rel_tol=0, abs_tol=1e-9)


def run(model: str, limit: int | None = None, problems: Path = PROBLEMS) -> list[Outcome]:
    from engine.adapters.tools import ToolRegistry  # noqa: PLC0415 - one adapter's benchmark
    from engine.adapters.tools.program import ProgramTool  # noqa: PLC0415
    from engine.compose import build_llm  # noqa: PLC0415
    from engine.settings import load_settings  # noqa: PLC0415
    from engine.stages.program import solve_with_program  # noqa: PLC0415

    llm = build_llm(load_settings(model=model))
    toolbox = ToolRegistry([ProgramTool()])
    rows = [json.loads(line) for line in problems.read_text().splitlines() if line.strip()]
    outcomes = []
    for row in rows[:limit]:
        started = time.perf_counter()
        ran = solve_with_program(llm, toolbox, row["question"], tool_timeout_s=30.0)
        seconds = time.perf_counter() - started
        printed = ran.tool_run.output if ran.tool_run.ok else None
        value = read_number(printed) if printed is not None else None
        outcomes.append(
            Outcome(
                id=row["id"],
                answered=value is not None,
                right=value is not None and right(value, float(row["answer"])),
                seconds=round(seconds, 2),
                printed=printed,
                program=ran.program,
            )
        )
    return outcomes


def summary(model: str, outcomes: Sequence[Outcome]) -> dict[str, Any]:
    answered = [o for o in outcomes if o.answered]
    correct = [o for o in answered if o.right]
    return {
        "model": model,
        "problems": len(outcomes),
        "answered": len(answered),
        "right": len(correct),
        "answered_share": round(len(answered) / len(outcomes), 3) if outcomes else None,
        "precision": round(len(correct) / len(answered), 3) if answered else None,
        "median_seconds": statistics.median(o.seconds for o in outcomes) if outcomes else None,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--model", action="append", required=True, help="repeat for each")
    parser.add_argument("--limit", type=int, default=None, help="the first N problems only")
    parser.add_argument("--problems", type=Path, default=PROBLEMS, help="a JSONL set")
    parser.add_argument("--json-out", type=Path, help="every outcome and the summaries")
    args = parser.parse_args(argv)
    document: dict[str, Any] = {"summaries": [], "outcomes": {}}
    for model in args.model:
        outcomes = run(model, args.limit, args.problems)
        document["summaries"].append(summary(model, outcomes))
        document["outcomes"][model] = [asdict(o) for o in outcomes]
        print(json.dumps(document["summaries"][-1]))
    if args.json_out:
        args.json_out.write_text(json.dumps(document, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
