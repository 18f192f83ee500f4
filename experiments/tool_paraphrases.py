"""How the exact tools do on everyday phrasings: every tool on every question of the held-out set.

The set (`tests/data/tool_paraphrases.jsonl`, see `tests/data/README.md`) was written before any
tool ran on it. For each exact tool: how many questions it answered, how many of those answers
were right or wrong (numeric answers by the question's relative tolerance, text answers by exact
match after trimming and lower-casing), its precision, and its coverage (answered and right,
over the questions of the tools' kinds). Questions of kind "other" must be refused by every tool.
An answer counts as right only when its "Answer:" line, which the model copies and the engine's
checker reads, states it too: a right value under a wrong line ("10 kilometer ** 2" once gave
"Answer: 2") is wrong.

    python -m experiments.tool_paraphrases
"""

import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from engine.adapters.tools import standard_tools
from engine.domain.ports import Tool
from engine.domain.records import ToolAnswer

__all__ = ["EXACT_TOOLS", "PARAPHRASES", "Tally", "is_right", "load", "run_all", "table"]

PARAPHRASES = Path(__file__).resolve().parents[1] / "tests" / "data" / "tool_paraphrases.jsonl"
EXACT_TOOLS = ("calculator", "units", "text", "numbers")
TOOL_KINDS = ("arithmetic", "units", "letters", "number_list")
KIND_OF_TOOL = dict(zip(EXACT_TOOLS, TOOL_KINDS, strict=True))
_ANSWER_LINE = re.compile(r"^Answer:(.*)$", re.MULTILINE)


@dataclass
class Tally:
    """One tool's (or all tools') answers on the set."""

    answered: int = 0
    right: int = 0
    wrong: list[str] = field(default_factory=list)  # ids, with what was said
    answered_other: list[str] = field(default_factory=list)  # ids of "other" questions answered
    own_kind: int = 0  # questions of the kind this tool is for
    own_right: int = 0  # of those, answered right by this tool

    @property
    def coverage(self) -> float:
        return self.own_right / self.own_kind if self.own_kind else 0.0

    @property
    def precision(self) -> float:
        return self.right / self.answered if self.answered else 1.0


def load(path: Path = PARAPHRASES) -> list[dict[str, object]]:
    """The questions, one dict per line."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _number(text: str) -> float | None:
    try:
        return float(text.replace(",", "").strip())
    except ValueError:
        return None


def is_right(value: str, question: Mapping[str, object]) -> bool:
    """Whether a tool's stated value is the question's answer.

    >>> is_right("13", {"answer": "13", "answer_kind": "numeric", "tolerance": 0})
    True
    >>> is_right("'Yes'", {"answer": "yes", "answer_kind": "text", "tolerance": None})
    True
    """
    answer = str(question["answer"])
    if question["answer_kind"] == "numeric":
        got, want = _number(value), _number(answer)
        if got is None or want is None:
            return False
        tolerance = max(float(str(question["tolerance"] or 0)), 1e-9)
        return math.isclose(got, want, rel_tol=tolerance, abs_tol=1e-9)
    return value.strip().strip("'\".").lower() == answer.strip().lower()


def run_all(
    questions: Iterable[Mapping[str, object]], tools: Mapping[str, Tool] | None = None
) -> tuple[dict[str, Tally], float]:
    """Each tool's tally, one for all of them together ("all"), and the coverage."""
    tools = tools or {tool.name: tool for tool in standard_tools() if tool.name in EXACT_TOOLS}
    tallies = {name: Tally() for name in [*tools, "all"]}
    of_kinds = covered = 0
    for question in questions:
        answered_right = False
        for name in tools:
            if KIND_OF_TOOL.get(name) == question["kind"]:
                tallies[name].own_kind += 1
        for name, tool in tools.items():
            try:
                found = tool.run(str(question["question"]))
            except Exception:
                continue
            if not isinstance(found, ToolAnswer) or not found.fully_parsed:
                continue
            value = _stated(found)
            for tally in (tallies[name], tallies["all"]):
                _count(tally, question, value)
            if KIND_OF_TOOL.get(name) == question["kind"] and is_right(value, question):
                tallies[name].own_right += 1
            answered_right = answered_right or (
                question["kind"] != "other" and is_right(value, question)
            )
        if question["kind"] in TOOL_KINDS:
            of_kinds += 1
            covered += answered_right
    return tallies, covered / of_kinds if of_kinds else 0.0


def _stated(found: ToolAnswer) -> str:
    """The tool's value, or what its answer line says when that line says something else."""
    line = _ANSWER_LINE.search(found.output)
    if line is None or line.group(1).strip() == found.value.strip():
        return found.value
    return f"{found.value} (its answer line says {line.group(1).strip()!r})"


def _count(tally: Tally, question: Mapping[str, object], value: str) -> None:
    tally.answered += 1
    if question["kind"] == "other":
        tally.answered_other.append(str(question["id"]))
        tally.wrong.append(f"{question['id']}: {value!r}")
    elif is_right(value, question):
        tally.right += 1
    else:
        tally.wrong.append(f"{question['id']}: {value!r} (want {question['answer']!r})")


def table(tallies: Mapping[str, Tally], coverage: float) -> str:
    """The per-tool table, in Markdown."""
    lines = [
        "| tool | answered | right | wrong | precision | coverage of its kind |",
        "|---|---|---|---|---|---|",
    ]
    for name, tally in tallies.items():
        own = "-"
        if tally.own_kind:
            own = f"{tally.coverage:.3f} ({tally.own_right}/{tally.own_kind})"
        lines.append(
            f"| {name} | {tally.answered} | {tally.right} | {len(tally.wrong)} | "
            f"{tally.precision:.3f} | {own} |"
        )
    lines.append(f"\ncoverage (questions of the tools' kinds answered right): {coverage:.3f}")
    return "\n".join(lines)


def main() -> None:
    tallies, coverage = run_all(load())
    print(table(tallies, coverage))
    for name, tally in tallies.items():
        if name != "all" and tally.wrong:
            print(f"\n{name} wrong: " + "; ".join(tally.wrong))


if __name__ == "__main__":
    main()
