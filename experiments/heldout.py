"""The held-out task split of the online evaluation: new phrasings and new families.

Nothing in the engine was tuned on these tasks: the templates, the query features
(`experiments.regex_families`), the tool prior and the replay suite (`experiments.tasks`) were all
written against other phrasings. Three families ask familiar things in new words (arithmetic,
unit conversion, letter counting, with new names, items and words); three are families no rule
was designed for: the next number of a sequence, the largest of a list, and the length of a word.
Every task has one exact answer, checked by the engine's checkers.

>>> suite = heldout_suite(seed=1, per_family=2)
>>> len(suite.tasks), suite.families[3:]
(12, ('number_sequence', 'largest_number', 'word_length'))
"""

from collections.abc import Callable, Sequence

import numpy as np

from engine.errors import ConfigError
from experiments.tasks import Task, TaskSuite

__all__ = ["HELDOUT_FAMILIES", "heldout_suite"]

# Names, items and words that the replay suite does not use.
_NAMES = ("Kofi", "Lena", "Mateo", "Nadia", "Oskar", "Priya", "Quinn", "Rosa", "Sami", "Tara")
_ITEMS = ("jars", "tickets", "buttons", "candles", "bricks", "cards", "plates", "beads")
_WORDS = (
    "cabbage", "doorbell", "giraffe", "harmony", "illusion", "lantern", "meadow", "noodle",
    "octopus", "pumpkin", "raccoon", "saddle", "teapot", "vinegar", "waffle", "address",
    "assessment", "bubble", "cinnamon", "puppy",
)  # fmt: skip
_UNITS = (
    ("kilograms", "grams", 1000),
    ("hours", "minutes", 60),
    ("metres", "centimetres", 100),
    ("kilometres", "metres", 1000),
    ("days", "hours", 24),
    ("yards", "feet", 3),
)

Generator = Callable[[np.random.Generator], tuple[str, str]]


def _pick(rng: np.random.Generator, options: Sequence[str]) -> str:
    return options[int(rng.integers(len(options)))]


def _arithmetic(rng: np.random.Generator) -> tuple[str, str]:
    name, item = _pick(rng, _NAMES), _pick(rng, _ITEMS)
    a, b = int(rng.integers(3, 12)), int(rng.integers(2, 9))
    form = int(rng.integers(4))
    if form == 0:
        return f"What do you get when you add {a} and {b}?", str(a + b)
    if form == 1:
        return (
            f"{name} packs {a} boxes, putting {b} {item} in every box. How many {item} is that?",
            (str(a * b)),
        )
    if form == 2:
        return f"Take {b} away from {a + b + 5}. What remains?", str(a + 5)
    return f"{name} buys {a} {item}, then {b} more, then {a} more. How many {item} now?", str(
        2 * a + b
    )


def _units(rng: np.random.Generator) -> tuple[str, str]:
    source, target, factor = _UNITS[int(rng.integers(len(_UNITS)))]
    value = int(rng.integers(2, 10))
    form = int(rng.integers(2))
    if form == 0:
        return f"How many {target} are there in {value} {source}?", str(value * factor)
    return f"A trip lasts {value} {source}. Express that in {target}.", str(value * factor)


def _letters(rng: np.random.Generator) -> tuple[str, str]:
    word = _pick(rng, _WORDS)
    letter = _pick(rng, sorted(set(word)))
    return f"Count how often '{letter}' occurs in '{word}'.", str(word.count(letter))


def _sequence(rng: np.random.Generator) -> tuple[str, str]:
    start, step = int(rng.integers(1, 20)), int(rng.integers(2, 9))
    terms = [start + step * index for index in range(4)]
    listed = ", ".join(str(term) for term in terms)
    return f"Continue this list by one number: {listed}, ...", str(start + 4 * step)


def _largest(rng: np.random.Generator) -> tuple[str, str]:
    numbers = [int(n) for n in rng.choice(np.arange(10, 100), size=4, replace=False)]
    listed = ", ".join(str(n) for n in numbers)
    return f"Among {listed}, which value is the biggest?", str(max(numbers))


def _length(rng: np.random.Generator) -> tuple[str, str]:
    word = _pick(rng, _WORDS)
    return f"'{word}' is written with how many letters?", str(len(word))


# family -> (generator, checker kind); every answer is a number except where noted
HELDOUT_FAMILIES: dict[str, tuple[Generator, str]] = {
    "arithmetic_phrased": (_arithmetic, "numeric"),
    "units_phrased": (_units, "numeric"),
    "letters_phrased": (_letters, "numeric"),
    "number_sequence": (_sequence, "numeric"),
    "largest_number": (_largest, "numeric"),
    "word_length": (_length, "numeric"),
}


def heldout_suite(
    seed: int = 0, per_family: int = 10, families: Sequence[str] | None = None
) -> TaskSuite:
    """`per_family` held-out tasks of each family, the same for the same arguments."""
    if per_family < 1:
        raise ConfigError(f"per_family must be at least 1, got {per_family}")
    chosen = list(HELDOUT_FAMILIES) if families is None else list(families)
    unknown = [name for name in chosen if name not in HELDOUT_FAMILIES]
    if unknown or not chosen:
        raise ConfigError(
            f"unknown held-out families {unknown}; the families are {list(HELDOUT_FAMILIES)}"
        )
    tasks = []
    for name in chosen:
        generate, kind = HELDOUT_FAMILIES[name]
        # Seeded apart from the replay suite's generators (which use [seed, index]).
        rng = np.random.default_rng([seed, 1000 + list(HELDOUT_FAMILIES).index(name)])
        for number in range(per_family):
            query, expected = generate(rng)
            tasks.append(Task(f"{name}-{number:03d}", name, query, expected, kind))
    return TaskSuite(seed=seed, tasks=tuple(tasks))
