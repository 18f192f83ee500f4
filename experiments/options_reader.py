"""How precisely the option reader reads the options a question offers, on a set of questions.

The set is a JSON list of items with `question`, `options` (the gold texts, or null where the
question offers no closed set) and `form` ("letter", "word" or null); `tests/data/README.md`
describes it. A reading is right when its form and its option texts equal the gold, texts compared
after folding spaces and case and dropping one final "."; a reading of a question whose gold is
null is wrong. Precision is right over read; missed counts questions with gold options left
unread. A figure on a set that the reader has been tuned on must say so.

With `--model local/qwen2.5-coder-1.5b` (any catalogue model string), a question the rule reader
refuses is read again by that model where it shows a sign of a written set
(`engine.stages.option_reading`, the engine's second reader, called here as the pipeline calls
it); the figures then count the model's calls and their seconds, and each reading says which
reader made it. Like the reader's own, this imports the engine's floors: it measures one stage.

    python -m experiments.options_reader tests/data/options_heldout.json [--missed] [--json OUT]
        [--model MODEL]
"""

import argparse
import json
import statistics
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from engine.domain.options import NoOptions, Options, understand_options
from engine.domain.ports import LLM
from engine.stages.option_reading import read_by_model, worth_a_call

__all__ = ["Item", "Tally", "load", "main", "measure", "normalised", "same_options"]


@dataclass(frozen=True)
class Item:
    """One question of the set and the options a careful reader finds in it."""

    question: str
    options: tuple[str, ...] | None
    form: str | None


@dataclass
class Tally:
    """The reader's figures on a set, with the questions behind the errors."""

    items: int = 0
    with_options: int = 0
    read: int = 0
    right: int = 0
    wrong: list[dict[str, object]] = field(default_factory=list)
    missed: list[dict[str, object]] = field(default_factory=list)
    # the second reader (`--model`): readings it made, its calls and each call's seconds
    read_by_model: int = 0
    right_by_model: int = 0
    model_calls: int = 0
    call_seconds: list[float] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.right / self.with_options if self.with_options else 1.0

    @property
    def precision(self) -> float:
        # No reading is no wrong reading; an empty tally is reported as such by its counts.
        return self.right / self.read if self.read else 1.0

    def figures(self) -> dict[str, object]:
        seconds = self.call_seconds
        return {
            **asdict(self),
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "median_call_seconds": round(statistics.median(seconds), 3) if seconds else None,
        }


def normalised(text: str) -> str:
    """An option text as the set compares it: spaces folded, case folded, one final "." gone."""
    folded = " ".join(text.split()).casefold()
    return folded[:-1].rstrip() if folded.endswith(".") else folded


def same_options(reading: Options, item: Item) -> bool:
    """Whether `reading` is the item's gold: the same form and the same texts, in order."""
    if item.options is None or reading.form != item.form:
        return False
    return [normalised(text) for text in reading.texts] == [
        normalised(text) for text in item.options
    ]


def load(path: Path) -> list[Item]:
    """The items of a set in the format of `tests/data/options_heldout.json`."""
    return [
        Item(
            entry["question"],
            None if entry["options"] is None else tuple(entry["options"]),
            entry["form"],
        )
        for entry in json.loads(path.read_text())
    ]


def measure(items: Sequence[Item], llm: LLM | None = None, model: str = "") -> Tally:
    """Run the reader on every item and count what it read, and how much of that was right;
    with `llm`, the model reads again where the rule reader refused and a call is worth it."""
    tally = Tally(items=len(items))
    for item in items:
        found = understand_options(item.question)
        by_model = False
        if isinstance(found, NoOptions) and llm is not None and worth_a_call(item.question):
            started = time.perf_counter()
            found, _record = read_by_model(llm, item.question, timeout_s=120.0, model=model)
            tally.model_calls += 1
            tally.call_seconds.append(round(time.perf_counter() - started, 3))
            by_model = isinstance(found, Options)
        tally.with_options += item.options is not None
        if isinstance(found, NoOptions):
            if item.options is not None:
                tally.missed.append(
                    {"question": item.question, "gold": item.options, "why": found.reason}
                )
            continue
        tally.read += 1
        tally.read_by_model += by_model
        if same_options(found, item):
            tally.right += 1
            tally.right_by_model += by_model
        else:
            tally.wrong.append(
                {
                    "question": item.question,
                    "gold": item.options,
                    "gold_form": item.form,
                    "read": found.texts,
                    "form": found.form,
                    "understood": found.understood,
                }
            )
    return tally


def _report(tally: Tally, show_missed: bool) -> str:
    lines = [
        f"items {tally.items} (with options {tally.with_options}): read {tally.read}, "
        f"right {tally.right}, precision {tally.precision:.3f}, "
        f"missed {len(tally.missed)} of {tally.with_options}, recall {tally.recall:.3f}"
    ]
    if tally.model_calls:
        seconds = tally.call_seconds
        lines.append(
            f"model: {tally.model_calls} calls of {tally.items} questions, read "
            f"{tally.read_by_model} (right {tally.right_by_model}); seconds a call: median "
            f"{statistics.median(seconds):.2f}, max {max(seconds):.2f}, total {sum(seconds):.1f}"
        )
        every = seconds + [0.0] * (tally.items - len(seconds))  # the others pay no call
        lines.append(
            f"extra seconds a question: median {statistics.median(every):.2f}, "
            f"mean {statistics.mean(every):.2f}"
        )
    for wrong in tally.wrong:
        lines += [
            "",
            f"WRONG {wrong['question']!r}",
            f"  read {wrong['form']} {wrong['read']} ({wrong['understood']})",
            f"  gold {wrong['gold_form']} {wrong['gold']}",
        ]
    for missed in tally.missed if show_missed else []:
        lines += ["", f"MISSED {missed['question']!r}", f"  gold {missed['gold']}"]
        lines.append(f"  why  {missed['why']}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> Tally:
    parser = argparse.ArgumentParser(
        prog="python -m experiments.options_reader",
        description="Measure the option reader (read_options) on a set of questions: "
        "read, right, precision, missed, and every wrong reading.",
    )
    parser.add_argument("set", type=Path, help="a JSON set such as tests/data/options_heldout.json")
    parser.add_argument("--missed", action="store_true", help="also list the questions missed")
    parser.add_argument("--json", type=Path, metavar="OUT", help="write the figures to OUT")
    parser.add_argument(
        "--model",
        help="also read, with this model, the questions the rule reader refuses "
        "(e.g. local/qwen2.5-coder-1.5b)",
    )
    args = parser.parse_args(argv)
    llm = None
    if args.model:
        from engine.compose import build_llm, load_model  # noqa: PLC0415 - only when asked
        from engine.settings import load_settings  # noqa: PLC0415

        llm = build_llm(load_settings(model=args.model))
        load_model(llm)  # a service loads it at start-up: no call's seconds include the file
    tally = measure(load(args.set), llm, args.model or "")
    print(_report(tally, args.missed))
    if args.json:
        args.json.write_text(json.dumps(tally.figures(), indent=1, default=str) + "\n")
    return tally


if __name__ == "__main__":
    main()
