"""Read the pinned BIG-bench sample into tasks, each posed as its authors wrote it.

A question is the task's `task_prefix`, the example's `example_input_prefix` and `input`, then
its `example_output_prefix` (where some tasks put the question itself: "Does the preceding
sentence contain non-contemporaneous (anachronistic) elements?"), each as written; BIG-bench's
default "Q:"/"A:" labels are not added where a task sets none, because the engine's templates
frame the question themselves.

Multiple choice (`target_scores`) is posed as lettered options, "A. ...", one per line, before
the output prefix where the task appends its choices to the input and after it otherwise. The
options are put in an order fixed by a hash of the question and each option's text: the authors
list `temporal_sequences`' right answer first in every example, so letters in the written order
would let "always A" score 100%. Options that are letters already, in order ("a", "b" in
`hyperbaton`, whose question names its sentences a and b), keep their order, so that letter and
text agree. Every option with the highest score is accepted, by letter or
by text. Exact-match targets are kept as given, any of several accepted (`checks`).

>>> suite = bigbench_suite(per_family=2, families=["anachronisms", "matrixshapes"])
>>> [(task.family, task.kind) for task in suite.tasks]  # doctest: +NORMALIZE_WHITESPACE
[('anachronisms', 'choice'), ('anachronisms', 'choice'),
 ('matrixshapes', 'sequence'), ('matrixshapes', 'sequence')]
>>> print(suite.tasks[0].query.split("\\n", 1)[1])
Does the preceding sentence contain non-contemporaneous (anachronistic) elements?
A. No
B. Yes
"""

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from engine.errors import ConfigError
from experiments.bigbench.checks import kind_of_targets
from experiments.bigbench.sample import DEVELOPMENT_FAMILIES, MANIFEST, SAMPLE_DIR
from experiments.tasks import Task, TaskSuite

__all__ = ["BIGBENCH_FAMILIES", "bigbench_suite", "load_family", "pose"]

BIGBENCH_FAMILIES = DEVELOPMENT_FAMILIES
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _order(text: str, options: Sequence[str]) -> list[str]:
    if [option.upper() for option in options] == list(_LETTERS[: len(options)]):
        return list(options)

    def rank(option: str) -> str:
        return hashlib.sha256(f"{text}\0{option}".encode()).hexdigest()

    return sorted(options, key=rank)


def pose(fields: Mapping[str, Any], example: Mapping[str, Any]) -> tuple[str, tuple[str, ...]]:
    """The question text of `example` and, for multiple choice, its options in letter order."""
    head = str(fields.get("task_prefix", "")) + str(fields.get("example_input_prefix", ""))
    head += str(example["input"])
    tail = str(fields.get("example_output_prefix", "")).rstrip()
    scores = example.get("target_scores")
    if scores is None:
        return (head + tail).strip(), ()
    options = _order(str(example["input"]), list(scores))
    if len(options) > len(_LETTERS):
        raise ConfigError(f"{len(options)} options cannot be lettered A to Z")
    lettered = "\n" + "\n".join(f"{_LETTERS[i]}. {text}" for i, text in enumerate(options))
    if fields.get("append_choices_to_input"):
        return (head + lettered + tail).strip(), tuple(options)
    return (head + tail + lettered).strip(), tuple(options)


def _task(family: str, number: int, fields: Mapping[str, Any], example: Mapping[str, Any]) -> Task:
    query, options = pose(fields, example)
    task_id = f"{family}-{number:03d}"
    scores = example.get("target_scores")
    if scores is not None:
        best = max(scores.values())
        letters = tuple(_LETTERS[i] for i, text in enumerate(options) if scores[text] == best)
        return Task(task_id, family, query, letters[0], "choice", options, letters)
    target = example.get("target")
    targets = (target,) if isinstance(target, str) else tuple(target or ())
    if not targets or not all(isinstance(t, str) and t.strip() for t in targets):
        raise ConfigError(f"{task_id} has no usable target: {target!r}")
    return Task(task_id, family, query, targets[0], kind_of_targets(targets), (), targets)


def load_family(family: str, sample_dir: Path = SAMPLE_DIR) -> list[Task]:
    """Every sampled task of `family`, in the sample's order."""
    path = sample_dir / f"{family}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ConfigError(f"cannot read the BIG-bench sample {path}: {error}") from error
    subtasks = data.get("subtasks", {})
    tasks = []
    for number, example in enumerate(data.get("examples", [])):
        fields = subtasks.get(example.get("subtask", ""))
        if fields is None:
            raise ConfigError(f"{path}: example {number} names an unknown subtask")
        tasks.append(_task(family, number, fields, example))
    return tasks


def bigbench_suite(
    per_family: int = 10,
    families: Sequence[str] | None = None,
    *,
    sample_dir: Path = SAMPLE_DIR,
) -> TaskSuite:
    """The first `per_family` sampled tasks of each family (all development families by default)."""
    chosen = list(BIGBENCH_FAMILIES) if families is None else list(families)
    unknown = [name for name in chosen if name not in BIGBENCH_FAMILIES]
    if unknown or not chosen:
        raise ConfigError(
            f"unknown BIG-bench families {unknown}; the development families are "
            f"{list(BIGBENCH_FAMILIES)}"
        )
    manifest = json.loads((sample_dir / MANIFEST).read_text(encoding="utf-8"))
    available = int(manifest["per_family"])
    if not 1 <= per_family <= available:
        raise ConfigError(f"per_family must be between 1 and {available} (the sample's size)")
    tasks = [task for name in chosen for task in load_family(name, sample_dir)[:per_family]]
    return TaskSuite(seed=int(manifest["seed"]), tasks=tuple(tasks))
