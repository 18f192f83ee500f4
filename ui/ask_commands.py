"""`thinkpath ask` and `thinkpath outcome`: one decision from the shell, and feedback on it.

    thinkpath ask "What is 17 * 23?"                      # answer, path, tool, cost, decision id
    thinkpath ask "What is 17 * 23?" --expected 391       # scored by an exact checker
    thinkpath ask "Capital of Australia?" --expected Canberra --kind exact --json
    thinkpath ask "Refund for order 1234, charged twice" --task ticket-triage  # a named task
    thinkpath ask "Refund for order 1234, charged twice" --option billing --option technical
    thinkpath ask "Write a haiku about rain" --model local/qwen2.5-coder-1.5b  # pin a model
    thinkpath outcome <decision-id> 1.0 --source user     # feedback, now or hours later

Progress goes to stderr as each stage finishes, so `--json` output on stdout stays parseable.
Settings come from THINKPATH_* variables, as for every other command.
"""

import argparse
import json
import math
import sys
from typing import TYPE_CHECKING, Any, TextIO

from engine import ANSWER_KINDS, checker_for, client_source
from engine.errors import InvalidQueryError, InvalidRewardError
from ui.option_words import option_choice_words
from ui.progress import StagePrinter, answer_notes, money_text, tool_facts

if TYPE_CHECKING:
    from collections.abc import Callable

    from engine import Decision

__all__ = ["parse_reward", "register", "summary"]


def register(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    ask = commands.add_parser(
        "ask",
        help="decide on one query: answer, path, tool, cost and decision id",
        description="Decide on one query with the configured engine and print the result.",
    )
    ask.add_argument("query", help="the question or task")
    ask.add_argument(
        "--expected",
        help="the known answer: an exact check scores the decision as your claim (--source's "
        "score, which `thinkpath outcome ID R --replace` corrects)",
    )
    ask.add_argument(
        "--source",
        default="user",
        help="who gives --expected: 'user' (default) or 'user:<name>'",
    )
    ask.add_argument(
        "--kind",
        choices=ANSWER_KINDS,
        help="how to compare with --expected (inferred from it when omitted)",
    )
    ask.add_argument(
        "--task",
        help="name the kind of query, a slug such as ticket-triage: the engine learns for it "
        "apart (default: the kind is found from the query)",
    )
    ask.add_argument(
        "--option",
        action="append",
        dest="options",
        metavar="TEXT",
        help="an answer the question allows, repeated for each (2 to 26): the answer is then "
        "one of them (default: options are read from the question where it offers some)",
    )
    ask.add_argument(
        "--model",
        help="answer with this model of the catalogue (THINKPATH_MODELS, e.g. local/smollm2); "
        "default: the engine chooses per kind of query",
    )
    ask.add_argument("--json", action="store_true", help="print the whole decision as JSON")
    ask.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    ask.set_defaults(run=run_ask)

    outcome = commands.add_parser(
        "outcome",
        help="record a reward in [0, 1] for a decision",
        description=(
            "Record a reward for a decision (applied once per decision and source). One decision "
            "counts once however many scores it gets: an exact checker's outranks a user's, a "
            "user's the referee's."
        ),
    )
    outcome.add_argument("decision_id", metavar="ID", help="the decision's id")
    outcome.add_argument("reward", metavar="REWARD", help="a number from 0 (wrong) to 1 (right)")
    outcome.add_argument(
        "--source",
        default="user",
        help="who judged it: 'user' (default) or 'user:<name>'; checker, tool and referee are "
        "the engine's own",
    )
    outcome.add_argument(
        "--replace",
        action="store_true",
        help="correct this source's earlier score for the decision",
    )
    outcome.set_defaults(run=run_outcome)


def run_ask(args: argparse.Namespace) -> int:
    from engine import build_engine  # noqa: PLC0415 - the engine's imports only when asked

    checker = None
    if args.expected is not None:
        try:
            checker = checker_for(args.expected, args.kind)
        except ValueError as error:
            raise InvalidQueryError(f"--expected: {error}") from None
    elif args.kind is not None:
        raise InvalidQueryError("--kind needs --expected: the answer to compare with")
    elif args.source != "user":
        raise InvalidQueryError("--source names who gives --expected: give --expected too")
    listener = None if args.quiet else StagePrinter(_unbuffered(sys.stderr))
    if listener is not None:
        print("Thinking (each stage is shown as it finishes)...", file=sys.stderr, flush=True)
    # The expected answer is the caller's claim: scored as `--source`'s, which
    # `thinkpath outcome --source ... --replace` corrects.
    checked_by = args.source if checker is not None else None
    decision = build_engine().decide(
        args.query,
        checker=checker,
        listener=listener,
        checked_by=checked_by,
        task=args.task,
        options=args.options,
        model=args.model,
    )
    if args.json:
        print(json.dumps(decision.model_dump(mode="json"), indent=2))
    else:
        print(summary(decision))
    return 0


def _unbuffered(stream: TextIO) -> "Callable[[str], object]":
    def write(text: str) -> None:
        stream.write(text)
        stream.flush()

    return write


def summary(decision: "Decision") -> str:
    """The decision as a few labelled lines."""
    cost = decision.cost
    money = money_text(cost)
    path, tool = decision.path, decision.tool
    answers = [step for step in decision.trace if step.stage == "answer"]
    notes = answer_notes(answers[-1].outputs) if answers else []
    chose = option_choice_words(answers[-1].outputs) if answers else None
    notes += [chose] if chose else []
    lines = [
        f"answer:   {decision.answer if decision.answer is not None else '(no answer)'}",
        *(f"note:     {note}" for note in notes),
        *([f"kind:     {decision.kind.label} ({decision.kind.why})"] if decision.kind else []),
        *_model_line(decision),
        f"path:     {path.arm_id} ({path.reason}, p={path.propensity:.3g})",
        f"tool:     {tool.arm_id} ({tool.reason}, p={tool.propensity:.3g})",
        *_tool_lines(decision),
        f"cost:     {cost.calls} LLM calls, {cost.prompt_tokens + cost.completion_tokens} tokens,"
        f" {cost.seconds:.1f} s, {money}",
    ]
    lines += [f"score:    {o.reward:g} from {o.source}" for o in decision.outcomes]
    if decision.degraded:
        lines.append("degraded: " + "; ".join(decision.degraded_reasons))
    lines.append(f"decision: {decision.id}")
    return "\n".join(lines)


def _model_line(decision: "Decision") -> list[str]:
    model = decision.model
    if model is None:
        return []
    return [f"model:    {model.arm_id} ({model.reason}, p={model.propensity:.3g})"]


def _tool_lines(decision: "Decision") -> list[str]:
    """The tool's input and output, and what is known of how it read the question."""
    run = decision.tool_run
    if run is None:
        return []
    result = f"output {run.output!r}" if run.ok else f"failed: {run.error or 'no detail'}"
    steps = [step for step in decision.trace if step.stage == "tool"]
    facts = tool_facts(steps[-1] if steps else None)
    return [f"          input {run.argument!r}; {result}", *(f"          {f}" for f in facts)]


def run_outcome(args: argparse.Namespace) -> int:
    from engine import build_engine  # noqa: PLC0415

    reward = parse_reward(args.reward)
    source = client_source(args.source)  # refused before any engine is built
    result = build_engine().record_outcome(
        args.decision_id, reward=reward, source=source, replace=args.replace
    )
    state = "recorded" if result.applied else "already recorded (applied once)"
    if result.applied and result.revision:
        state = f"corrected (revision {result.revision})"
    print(f"{state}: reward {result.reward:g} from {result.source} (seq {result.seq})")
    return 0


def parse_reward(text: Any) -> float:
    """A reward from the command line: a finite number in [0, 1], or `InvalidRewardError`.

    >>> parse_reward("0.5")
    0.5
    >>> parse_reward("yes")
    Traceback (most recent call last):
    ...
    learning.errors.InvalidRewardError: the reward must be a number from 0 to 1, got 'yes'
    """
    try:
        reward = float(text)
    except (TypeError, ValueError):
        raise InvalidRewardError(f"the reward must be a number from 0 to 1, got {text!r}") from None
    if not (math.isfinite(reward) and 0.0 <= reward <= 1.0):
        raise InvalidRewardError(f"the reward must be a number from 0 to 1, got {text!r}")
    return reward
