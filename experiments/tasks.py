"""A verifiable task suite generated locally: every task has one exact answer and a checker kind.

Families: arithmetic word problems, letter counting, first letters, date arithmetic, unit
conversion, ordering puzzles with one answer, and three-option multiple choice. A suite is a pure
function of its seed and size, and its `fingerprint` (a hash of every task) keys the replay cache,
so a changed generator can never be served a stale outcome matrix.

The answer kinds are those of the engine's checkers (`engine.domain.checkers.check_answer`):
"numeric", "exact" (normalised exact match), "choice" (a multiple-choice letter) and "date"
(ISO YYYY-MM-DD).

>>> suite = generate_suite(seed=3, per_family=2)
>>> len(suite.tasks), suite.families[:2]
(14, ('arithmetic', 'letter_count'))
>>> generate_suite(seed=3, per_family=2).fingerprint == suite.fingerprint
True
"""

import datetime as dt
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from engine.errors import ConfigError

__all__ = ["FAMILIES", "Task", "TaskSuite", "generate_suite"]


@dataclass(frozen=True)
class Task:
    """One question with its exact expected answer."""

    task_id: str
    family: str
    query: str
    expected: str
    kind: str  # the checker kind: numeric, exact, choice or date
    options: tuple[str, ...] = ()  # a multiple-choice task's option texts, in order A, B, C
    # Every accepted answer, `expected` first, where a task accepts several (a public task's
    # targets, in the format of `experiments.bigbench.checks`); empty: `expected` alone.
    targets: tuple[str, ...] = ()


@dataclass(frozen=True)
class TaskSuite:
    """A reproducible set of tasks."""

    seed: int
    tasks: tuple[Task, ...]

    @property
    def families(self) -> tuple[str, ...]:
        """The families present, in generation order."""
        return tuple(dict.fromkeys(task.family for task in self.tasks))

    @property
    def fingerprint(self) -> str:
        """A short hash of every task: equal suites have equal fingerprints."""
        # A task without `targets` hashes as it did before the field existed, so the replay
        # cache keys of the generated suites stay valid.
        rows = [asdict(task) for task in self.tasks]
        for row in rows:
            if not row["targets"]:
                del row["targets"]
        payload = json.dumps(rows, sort_keys=True)
        return hashlib.sha256(payload.encode()).hexdigest()[:16]


Generator = Callable[[np.random.Generator], tuple[str, str, tuple[str, ...]]]

_NAMES = ("Ana", "Ben", "Chloe", "Dev", "Emma", "Farid", "Grace", "Hugo", "Ines", "Jon")
_ITEMS = ("apples", "pencils", "stickers", "marbles", "books", "cookies", "stamps", "shells")
_WORDS = (
    "banana", "garden", "letter", "mississippi", "strawberry", "balloon", "coffee", "pepper",
    "bookkeeper", "committee", "rhythm", "window", "yellow", "engineer", "parallel", "success",
    "tomato", "umbrella", "kitten", "volcano", "zebra", "quiet", "jungle", "orange", "hammer",
)  # fmt: skip
_CATEGORIES = {
    "fruit": ("apple", "banana", "cherry", "mango", "pear", "grape", "peach", "plum"),
    "animal": ("dog", "horse", "tiger", "rabbit", "eagle", "shark", "camel", "frog"),
    "colour": ("red", "blue", "green", "purple", "grey", "yellow", "pink", "brown"),
    "vehicle": ("car", "bus", "bicycle", "train", "truck", "boat", "tractor", "scooter"),
    "tool": ("hammer", "wrench", "saw", "drill", "shovel", "chisel", "pliers", "rake"),
}
_CONVERSIONS = (
    ("kilometres", "metres", 1000),
    ("metres", "centimetres", 100),
    ("kilograms", "grams", 1000),
    ("hours", "minutes", 60),
    ("minutes", "seconds", 60),
    ("litres", "millilitres", 1000),
    ("feet", "inches", 12),
    ("days", "hours", 24),
    ("weeks", "days", 7),
    ("dozens", "items", 12),
)
_RELATIONS = (("taller", "tallest", "shortest"), ("older", "oldest", "youngest"))


def _pick(rng: np.random.Generator, options: Sequence[str]) -> str:
    return options[int(rng.integers(len(options)))]


def _arithmetic(rng: np.random.Generator) -> tuple[str, str]:
    name, item = _pick(rng, _NAMES), _pick(rng, _ITEMS)
    a, b = int(rng.integers(2, 10)), int(rng.integers(2, 10))
    form = int(rng.integers(4))
    if form == 0:
        return f"What is {a} + {b}?", str(a + b)
    if form == 1:
        return f"{name} has {a} {item} and gets {b} more. How many {item} does {name} have now?", (
            str(a + b)
        )
    if form == 2:
        total = a + b + int(rng.integers(1, 10))
        return (
            f"{name} had {total} {item} and gave away {b}. How many {item} are left?",
            str(total - b),
        )
    return f"There are {a} boxes with {b} {item} in each box. How many {item} are there?", str(
        a * b
    )


def _letter_count(rng: np.random.Generator) -> tuple[str, str]:
    word = _pick(rng, _WORDS)
    # Mostly a letter the word holds (counts of 1-4), sometimes one it lacks (count 0).
    pool = sorted(set(word)) if rng.random() < 0.85 else sorted(set("xzqjvk") - set(word))
    letter = _pick(rng, pool)
    return (
        f"How many times does the letter '{letter}' appear in the word '{word}'?",
        str(word.count(letter)),
    )


def _first_letter(rng: np.random.Generator) -> tuple[str, str]:
    word = _pick(rng, _WORDS + tuple(w for ws in _CATEGORIES.values() for w in ws))
    return f"What is the first letter of the word '{word}'?", word[0]


def _date(rng: np.random.Generator) -> tuple[str, str]:
    start = dt.date(2024, 1, 1) + dt.timedelta(days=int(rng.integers(0, 366)))
    days = int(rng.integers(2, 40))
    after = bool(rng.random() < 0.7)
    end = start + dt.timedelta(days=days if after else -days)
    direction = "after" if after else "before"
    when = f"{start:%B} {start.day}, {start.year}"
    return (
        f"What is the date {days} days {direction} {when}? Give the date as YYYY-MM-DD.",
        end.isoformat(),
    )


def _unit(rng: np.random.Generator) -> tuple[str, str]:
    source, target, factor = _CONVERSIONS[int(rng.integers(len(_CONVERSIONS)))]
    value = int(rng.integers(2, 13))
    return f"Convert {value} {source} to {target}.", str(value * factor)


def _logic(rng: np.random.Generator) -> tuple[str, str]:
    names = [str(name) for name in rng.choice(_NAMES, size=3, replace=False)]  # first = most
    comparative, most, least = _RELATIONS[int(rng.integers(len(_RELATIONS)))]
    facts = [
        f"{names[0]} is {comparative} than {names[1]}.",
        f"{names[1]} is {comparative} than {names[2]}.",
    ]
    if rng.random() < 0.5:
        facts.reverse()
    ask_most = bool(rng.random() < 0.5)
    question = f"Who is the {most if ask_most else least}?"
    return " ".join([*facts, question]), names[0] if ask_most else names[2]


def _multiple_choice(rng: np.random.Generator) -> tuple[str, str, tuple[str, ...]]:
    categories = list(_CATEGORIES)
    category = _pick(rng, categories)
    others = [c for c in categories if c != category]
    right = _pick(rng, _CATEGORIES[category])
    wrong = [_pick(rng, _CATEGORIES[c]) for c in rng.choice(others, size=2, replace=False)]
    options = [right, *wrong]
    order = rng.permutation(3)
    shuffled = [options[int(i)] for i in order]
    letters = "ABC"
    listed = " ".join(f"{letters[i]}) {option}" for i, option in enumerate(shuffled))
    article = "an" if category[0] in "aeiou" else "a"
    answer = letters[shuffled.index(right)]
    return f"Which of these is {article} {category}? {listed}", answer, tuple(shuffled)


def _without_options(generate: Callable[[np.random.Generator], tuple[str, str]]) -> Generator:
    def question(rng: np.random.Generator) -> tuple[str, str, tuple[str, ...]]:
        query, expected = generate(rng)
        return query, expected, ()

    return question


# family -> (generator, checker kind)
FAMILIES: dict[str, tuple[Generator, str]] = {
    "arithmetic": (_without_options(_arithmetic), "numeric"),
    "letter_count": (_without_options(_letter_count), "numeric"),
    "first_letter": (_without_options(_first_letter), "exact"),
    "date_arithmetic": (_without_options(_date), "date"),
    "unit_conversion": (_without_options(_unit), "numeric"),
    "logic_puzzle": (_without_options(_logic), "exact"),
    "multiple_choice": (_multiple_choice, "choice"),
}


def generate_suite(
    seed: int = 0, per_family: int = 10, families: Sequence[str] | None = None
) -> TaskSuite:
    """`per_family` tasks of each family (all by default), the same for the same arguments.

    Each family draws from its own generator seeded by (seed, family index), so adding a family
    or changing `per_family` of one never changes the tasks of another.
    """
    if per_family < 1:
        raise ConfigError(f"per_family must be at least 1, got {per_family}")
    chosen = list(FAMILIES) if families is None else list(families)
    unknown = [name for name in chosen if name not in FAMILIES]
    if unknown or not chosen:
        raise ConfigError(f"unknown task families {unknown}; the families are {list(FAMILIES)}")
    tasks = []
    for name in chosen:
        generator, kind = FAMILIES[name]
        rng = np.random.default_rng([seed, list(FAMILIES).index(name)])
        for number in range(per_family):
            query, expected, options = generator(rng)
            tasks.append(Task(f"{name}-{number:03d}", name, query, expected, kind, options))
    return TaskSuite(seed=seed, tasks=tuple(tasks))
