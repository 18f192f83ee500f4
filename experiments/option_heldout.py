"""Option families the content-free prompt was not chosen on: issue 39's out-of-sample check.

Option likelihood's content-free prompt (`engine.stages.option_procedures.CONTENT_FREE_PROMPT`)
was chosen on the first 30 tasks of the nine BIG-bench development families that give options
(`experiments.option_normalisations`). Those 30 are all the pinned sample holds of each family,
and the public families issue 38 was tried on are held out for that issue, so the check runs on
generated families instead, each a pure function of its seed:

- `multiple_choice`: the replay suite's category questions (`experiments.tasks`), three options
  inline ("A) apple B) hammer C) bus"); no option procedure was tuned on them;
- four families written for this check on 2026-12-08, before any of them was scored:
  `compare_numbers` ("Is 48 greater than 31?", Yes / No), `sum_true_false` ("Is it true that
  17 + 25 = 42?", True / False), `opposite_word` (the opposite of a word among four) and
  `alphabetical_first` (the first of four words in alphabetical order).

The written families list their options as lettered lines ("A. Yes"), as the BIG-bench sample
poses them, in an order drawn from the seed; the expected answer is the right option's letter.

>>> suite = option_heldout_suite(seed=39, per_family=2)
>>> suite.families
('multiple_choice', 'compare_numbers', 'sum_true_false', 'opposite_word', 'alphabetical_first')
>>> option_heldout_suite(seed=39, per_family=2).fingerprint == suite.fingerprint
True
"""

from collections.abc import Callable, Sequence

import numpy as np

from engine.errors import ConfigError
from experiments.tasks import Task, TaskSuite, generate_suite

__all__ = ["OPTION_HELDOUT_FAMILIES", "option_heldout_suite"]

_LETTERS = "ABCD"
# Pairs whose words each appear once, so a distractor is never the asked word's opposite.
_OPPOSITES = (
    ("hot", "cold"), ("big", "small"), ("fast", "slow"), ("happy", "sad"), ("early", "late"),
    ("open", "closed"), ("full", "empty"), ("hard", "soft"), ("wet", "dry"), ("loud", "quiet"),
    ("rich", "poor"), ("thick", "thin"), ("strong", "weak"), ("high", "low"), ("light", "dark"),
    ("clean", "dirty"), ("true", "false"), ("win", "lose"), ("buy", "sell"), ("push", "pull"),
)  # fmt: skip
_WORDS = (
    "anchor", "basket", "candle", "dragon", "engine", "forest", "guitar", "harbor", "island",
    "jacket", "kettle", "lemon", "mirror", "needle", "orchid", "pillow", "quartz", "river",
    "saddle", "tunnel", "velvet", "walnut", "yogurt", "zipper",
)  # fmt: skip

Posed = tuple[str, tuple[str, ...], int]  # the question, its options, the right option's index


def _lettered(
    question: str, options: Sequence[str], right: int
) -> tuple[str, str, tuple[str, ...]]:
    listed = "\n".join(f"{_LETTERS[i]}. {text}" for i, text in enumerate(options))
    return f"{question}\n{listed}", _LETTERS[right], tuple(options)


def _shuffled(rng: np.random.Generator, right: str, wrong: Sequence[str]) -> tuple[list[str], int]:
    options = [right, *wrong]
    order = [int(i) for i in rng.permutation(len(options))]
    shuffled = [options[i] for i in order]
    return shuffled, shuffled.index(right)


def _compare_numbers(rng: np.random.Generator) -> Posed:
    a, b = (int(n) for n in rng.choice(np.arange(10, 100), size=2, replace=False))
    options, right = _shuffled(rng, "Yes" if a > b else "No", ["No" if a > b else "Yes"])
    return f"Is {a} greater than {b}?", tuple(options), right


def _sum_true_false(rng: np.random.Generator) -> Posed:
    a, b = (int(n) for n in rng.integers(10, 50, size=2))
    holds = bool(rng.random() < 0.5)
    shown = a + b if holds else a + b + int(rng.choice([-10, -2, -1, 1, 2, 10]))
    options, right = _shuffled(rng, str(holds), [str(not holds)])
    # Asked as a question: the reader refuses the statement form "True or false: 17 + 25 = 42."
    # with lettered options ("nothing asks for a choice"), an item-1 finding left to the reader.
    return f"Is it true that {a} + {b} = {shown}?", tuple(options), right


def _opposite_word(rng: np.random.Generator) -> Posed:
    picked = [_OPPOSITES[int(i)] for i in rng.choice(len(_OPPOSITES), size=4, replace=False)]
    word, opposite = picked[0] if rng.random() < 0.5 else picked[0][::-1]
    wrong = [pair[int(rng.integers(2))] for pair in picked[1:]]
    options, right = _shuffled(rng, opposite, wrong)
    return f'Which word means the opposite of "{word}"?', tuple(options), right


def _alphabetical_first(rng: np.random.Generator) -> Posed:
    words = [_WORDS[int(i)] for i in rng.choice(len(_WORDS), size=4, replace=False)]
    options, right = _shuffled(rng, min(words), [w for w in words if w != min(words)])
    return "Which word comes first in alphabetical order?", tuple(options), right


OPTION_HELDOUT_FAMILIES: dict[str, Callable[[np.random.Generator], Posed]] = {
    "compare_numbers": _compare_numbers,
    "sum_true_false": _sum_true_false,
    "opposite_word": _opposite_word,
    "alphabetical_first": _alphabetical_first,
}


def option_heldout_suite(seed: int = 39, per_family: int = 20) -> TaskSuite:
    """`per_family` tasks of `multiple_choice` and of each written family, the same for the same
    arguments; each written family draws from its own generator seeded by (seed, its index)."""
    if per_family < 1:
        raise ConfigError(f"per_family must be at least 1, got {per_family}")
    tasks = list(generate_suite(seed, per_family, families=["multiple_choice"]).tasks)
    for index, (family, generate) in enumerate(OPTION_HELDOUT_FAMILIES.items()):
        rng = np.random.default_rng([seed, 1000 + index])
        for number in range(per_family):
            question, options, right = generate(rng)
            query, letter, texts = _lettered(question, options, right)
            tasks.append(Task(f"{family}-{number:03d}", family, query, letter, "choice", texts))
    return TaskSuite(seed=seed, tasks=tuple(tasks))
