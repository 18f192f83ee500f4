"""Does a right tool result reach the answer? The exact tools on the replay suite, with the model.

For each task of the families the exact tools serve (arithmetic, unit conversion, letter count,
first letter), the prior's tool runs on the query, and the model answers each of `templates` with
the tool's output in the prompt (rendered by the engine's own `answer_messages`) and without it.
Reported per family: how often the tool's output holds the right answer, and the answer's
accuracy without the tool and with it. The replay suite is the split the tools were written
against; the held-out split is the online evaluation's.

    python -m experiments.tool_copy --home /tmp/tool_copy --per-family 6
"""

import argparse
from collections import defaultdict
from pathlib import Path

from engine.adapters.tools import ToolRegistry, standard_tools
from engine.compose import build_llm
from engine.domain.models import ToolRun
from engine.domain.ports import LLM
from engine.domain.records import LLMRequest, PathDefinition
from engine.settings import load_settings
from engine.stages.answer import answer_messages
from engine.stages.tools import reading_tool, run_tool, tool_arms
from experiments.replay import check_task, chosen_templates
from experiments.tasks import Task, generate_suite

FAMILIES = ("arithmetic", "unit_conversion", "letter_count", "first_letter")
TEMPLATES = ("direct_answer", "spell_it_out", "plan_then_solve", "worked_example")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, required=True, help="data folder (model cache)")
    parser.add_argument("--per-family", type=int, default=6)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    llm = build_llm(load_settings(home=args.home))
    toolbox = ToolRegistry(standard_tools())
    suite = generate_suite(seed=args.seed, per_family=args.per_family, families=FAMILIES)
    counts: dict[str, defaultdict[str, float]] = defaultdict(lambda: defaultdict(float))
    for task in suite.tasks:
        found = reading_tool(toolbox, task.query, tool_arms(toolbox.names()), timeout_s=60.0)
        tool = (found or "none").removesuffix("+direct")
        ran = run_tool(toolbox, tool, task.query, timeout_s=5.0)
        row = counts[task.family]
        # The tool's output read by the same checker as an answer ("7" is in "17 + 5 = 22" too).
        row["tool right"] += check_task(ran.output, task) if ran is not None and ran.ok else 0.0
        for template in chosen_templates(TEMPLATES):
            path = PathDefinition.from_template(template)
            row["answers"] += 1
            for label, shown in (("without", None), ("with", ran)):
                row[label] += _answer_is_right(llm, path, task, shown)
    print("| family | tasks | tool right | answers | right without the tool | right with it |")
    print("|---|---|---|---|---|---|")
    for family, row in counts.items():
        tasks = row["answers"] / len(TEMPLATES)
        print(
            f"| {family} | {tasks:.0f} | {row['tool right'] / tasks:.0%} | {row['answers']:.0f} "
            f"| {row['without'] / row['answers']:.0%} | {row['with'] / row['answers']:.0%} |"
        )


def _answer_is_right(llm: LLM, path: PathDefinition, task: Task, tool_run: ToolRun | None) -> float:
    messages = answer_messages(path, task.query, None, tool_run)
    text = llm.complete(LLMRequest(messages=messages, max_tokens=160, purpose="answer")).text
    return check_task(text, task)


if __name__ == "__main__":
    main()
