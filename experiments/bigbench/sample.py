"""Build the pinned BIG-bench sample from the package's sdist: same sdist, same bytes.

For each development family, every `task.json` of the family (its subtasks' included) is read
from the sdist and `PER_FAMILY` examples are kept: those whose key
`sha256(seed, family, subtask, example)` is smallest. The key depends only on an example's
content, so the choice needs no random-number generator (no numpy version can change it) and
does not move when unrelated examples are added or removed. Kept examples are written in key
order, so the first n of a family are a sample of n as well (`bigbench_suite(per_family=n)`).

An example is kept as written, with two exceptions that the loader would otherwise have to undo:
its `comment` is dropped (some comments name the answer: "remove all but element 3"), and only
the targets its task's preferred score reads are kept (`target_scores` for
`multiple_choice_grade`, `target` otherwise). Multiple-choice examples with more than 26
options (a third of `reasoning_about_colored_objects`' counting questions) cannot be lettered
A to Z and are not sampled. Each subtask's prefixes and scoring fields are kept beside the
examples, so a question reads as its authors wrote it.

Only the families in `DEVELOPMENT_FAMILIES` are ever opened: the sdist's other members are
skipped by name, unread. The rest of BIG-bench is held out by the product owner.
"""

import hashlib
import io
import json
import re
import tarfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.errors import ConfigError

__all__ = [
    "DEVELOPMENT_FAMILIES",
    "PER_FAMILY",
    "PINNED",
    "SAMPLE_DIR",
    "SEED",
    "SdistPin",
    "build_sample",
    "file_sha256",
]


@dataclass(frozen=True)
class SdistPin:
    """The one source distribution the sample is built from."""

    version: str
    filename: str
    sha256: str
    url: str


PINNED = SdistPin(
    version="1.0.0",
    filename="bigbench-1.0.0.tar.gz",
    sha256="1bb398a5512c6d798cdebe0dfa0ac03f67f6033fa6b39c6ef71df978c7cbc5c2",
    url="https://pypi.org/project/bigbench/1.0.0/#files",
)

# The families the product owner released for development (issue 20); nothing else is opened.
DEVELOPMENT_FAMILIES = (
    "anachronisms",
    "chinese_remainder_theorem",
    "elementary_math_qa",
    "hyperbaton",
    "key_value_maps",
    "list_functions",
    "matrixshapes",
    "modified_arithmetic",
    "odd_one_out",
    "penguins_in_a_table",
    "periodic_elements",
    "physical_intuition",
    "reasoning_about_colored_objects",
    "repeat_copy_logic",
    "simple_arithmetic_json_subtasks",
    "simple_text_editing",
    "strategyqa",
    "temporal_sequences",
)
PER_FAMILY = 30
SEED = 20
SAMPLE_DIR = Path(__file__).resolve().parents[1] / "data" / "bigbench"
MANIFEST = "sample.json"
MAX_OPTIONS = 26  # lettered A to Z

# `list_functions` repeats each trial twice: once per concept (c001..c250) and once per number of
# shown pairs (NN_shot_baseline). The baselines with at least three pairs are kept: with fewer,
# the function to apply is not determined by the question.
_SUBTASKS = {"list_functions": re.compile(r"(0[3-9]|10)_shot_baseline")}
_MEMBER = re.compile(
    r"[^/]+/bigbench/benchmark_tasks/(?P<family>[a-z_0-9]+)(?:/(?P<sub>[^/]+))?/task\.json"
)
# What rendering and checking read from a task file; everything else stays in the sdist.
_TASK_FIELDS = (
    "task_prefix",
    "example_input_prefix",
    "example_output_prefix",
    "choice_prefix",
    "append_choices_to_input",
    "preferred_score",
    "output_regex",
)
MULTIPLE_CHOICE = "multiple_choice_grade"


def file_sha256(path: Path) -> str:
    """The hex sha256 of the file at `path`, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def read_tasks(sdist: Path, families: Sequence[str]) -> dict[str, dict[str, dict[str, Any]]]:
    """family -> subtask ("" for the task itself) -> its parsed task.json, for `families` only."""
    wanted = set(families)
    found: dict[str, dict[str, dict[str, Any]]] = {family: {} for family in families}
    with tarfile.open(sdist, "r:gz") as archive:
        for member in archive:
            match = _MEMBER.fullmatch(member.name)
            if match is None or match["family"] not in wanted or not member.isfile():
                continue  # another task's files are never read
            family, sub = match["family"], match["sub"] or ""
            pattern = _SUBTASKS.get(family)
            if sub and pattern is not None and not pattern.fullmatch(sub):
                continue
            handle = archive.extractfile(member)
            if handle is None:
                continue
            found[family][sub] = json.load(io.TextIOWrapper(handle, encoding="utf-8"))
    missing = [family for family, subtasks in found.items() if not subtasks]
    if missing:
        raise ConfigError(f"the sdist holds no task.json for {missing}: is it the bigbench sdist?")
    return found


def _kept_example(example: Mapping[str, Any], preferred: str) -> dict[str, Any] | None:
    """The example as it is kept (see the module notes), or None when it cannot be posed."""
    if preferred == MULTIPLE_CHOICE:
        scores = example.get("target_scores")
        if not isinstance(scores, Mapping) or not 2 <= len(scores) <= MAX_OPTIONS:
            return None
        return {"input": example["input"], "target_scores": dict(scores)}
    target = example.get("target")
    if isinstance(target, str):
        return {"input": example["input"], "target": target}
    if isinstance(target, list) and target and all(isinstance(t, str) for t in target):
        return {"input": example["input"], "target": list(target)}
    return None


def _key(seed: int, family: str, subtask: str, example: Mapping[str, Any]) -> str:
    content = json.dumps(example, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(f"{seed}\0{family}\0{subtask}\0{content}".encode()).hexdigest()


def sample_family(
    family: str, subtasks: Mapping[str, Mapping[str, Any]], per_family: int, seed: int
) -> dict[str, Any]:
    """The family's sample file: each subtask's fields and the kept examples, as written."""
    candidates: list[tuple[str, int, str, dict[str, Any]]] = []  # (key, position, subtask, ..)
    fields: dict[str, dict[str, Any]] = {}
    for sub in sorted(subtasks):
        task = subtasks[sub]
        examples = task.get("examples") or []
        if not examples:
            continue  # a parent task whose examples live in its subtasks
        fields[sub] = {name: task[name] for name in _TASK_FIELDS if name in task}
        preferred = str(task.get("preferred_score", ""))
        for position, example in enumerate(examples):
            kept = _kept_example(example, preferred)
            if kept is not None:
                candidates.append((_key(seed, family, sub, kept), position, sub, kept))
    chosen = sorted(candidates)[:per_family]
    return {
        "family": family,
        "subtasks": {sub: fields[sub] for sub in fields if any(c[2] == sub for c in chosen)},
        "examples": [{"subtask": sub, **kept} for _, _, sub, kept in chosen],
    }


def _dump(value: object) -> bytes:
    return (json.dumps(value, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def build_sample(
    sdist: Path,
    *,
    sha256: str = PINNED.sha256,
    pin: SdistPin = PINNED,
    families: Sequence[str] = DEVELOPMENT_FAMILIES,
    per_family: int = PER_FAMILY,
    seed: int = SEED,
) -> dict[str, bytes]:
    """File name -> bytes of the sample built from `sdist`, or ConfigError if its sha256 differs."""
    unknown = [family for family in families if family not in DEVELOPMENT_FAMILIES]
    if unknown:
        raise ConfigError(f"{unknown} are not development families (held out): refusing")
    if not sdist.is_file():
        raise ConfigError(f"no sdist at {sdist}")
    actual = file_sha256(sdist)
    if actual != sha256:
        raise ConfigError(f"{sdist} has sha256 {actual}, expected {sha256}: refusing to build")
    files: dict[str, bytes] = {}
    entries: dict[str, dict[str, Any]] = {}
    for family, subtasks in read_tasks(sdist, families).items():
        content = _dump(sample_family(family, subtasks, per_family, seed))
        name = f"{family}.json"
        files[name] = content
        entries[family] = {
            "file": name,
            "examples": len(json.loads(content)["examples"]),
            "sha256": hashlib.sha256(content).hexdigest(),
        }
    manifest = {
        "source": {
            "package": "bigbench",
            "version": pin.version,
            "filename": pin.filename,
            "sha256": sha256,
            "url": pin.url,
        },
        "seed": seed,
        "per_family": per_family,
        "families": entries,
    }
    files[MANIFEST] = _dump(manifest)
    return files
