"""How precisely the option reader reads the options a question offers, on a set of questions.

The set is a JSON list of items with `question`, `options` (the gold texts, or null where the
question offers no closed set) and `form` ("letter", "word" or null); `tests/data/README.md`
describes it. A reading is right when its form and its option texts equal the gold, texts compared
after folding spaces and case and dropping one final "."; a reading of a question whose gold is
null is wrong. Precision is right over read; missed counts questions with gold options left
unread. A figure on a set that the reader has been tuned on must say so.

    python -m experiments.options_reader tests/data/options_heldout.json [--missed] [--json OUT]
"""

import argparse
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from engine.domain.options import Options, read_options, understand_options

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

    @property
    def precision(self) -> float:
        # No reading is no wrong reading; an empty tally is reported as such by its counts.
        return self.right / self.read if self.read else 1.0

    def figures(self) -> dict[str, object]:
        return {**asdict(self), "precision": round(self.precision, 4)}


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


def measure(items: Sequence[Item]) -> Tally:
    """Run the reader on every item and count what it read, and how much of that was right."""
    tally = Tally(items=len(items))
    for item in items:
        reading = read_options(item.question)
        tally.with_options += item.options is not None
        if reading is None:
            if item.options is not None:
                tally.missed.append(
                    {
                        "question": item.question,
                        "gold": item.options,
                        "why": understand_options(item.question),
                    }
                )
            continue
        tally.read += 1
        if same_options(reading, item):
            tally.right += 1
        else:
            tally.wrong.append(
                {
                    "question": item.question,
                    "gold": item.options,
                    "gold_form": item.form,
                    "read": reading.texts,
                    "form": reading.form,
                    "understood": reading.understood,
                }
            )
    return tally


def _report(tally: Tally, show_missed: bool) -> str:
    lines = [
        f"items {tally.items} (with options {tally.with_options}): read {tally.read}, "
        f"right {tally.right}, precision {tally.precision:.3f}, "
        f"missed {len(tally.missed)} of {tally.with_options}"
    ]
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
    args = parser.parse_args(argv)
    tally = measure(load(args.set))
    print(_report(tally, args.missed))
    if args.json:
        args.json.write_text(json.dumps(tally.figures(), indent=1, default=str) + "\n")
    return tally


if __name__ == "__main__":
    main()
