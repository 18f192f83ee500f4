"""The rebuild command: a tiny synthetic sdist made from the committed sample gives it back."""

import hashlib
import io
import json
import tarfile
from pathlib import Path

import pytest

from engine.errors import ConfigError
from experiments.bigbench.__main__ import main
from experiments.bigbench.sample import SAMPLE_DIR, build_sample, file_sha256

FAMILIES = ("anachronisms", "list_functions", "simple_arithmetic_json_subtasks")
ROOT = "bigbench-1.0.0/bigbench/benchmark_tasks"


def _add(archive: tarfile.TarFile, name: str, content: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(content)
    archive.addfile(info, io.BytesIO(content))


def _task_files(family: str) -> dict[str, bytes]:
    """The task.json files an sdist would need to give back the committed file of `family`."""
    sample = json.loads((SAMPLE_DIR / f"{family}.json").read_text())
    files: dict[str, bytes] = {}
    for sub, fields in sample["subtasks"].items():
        examples = [
            {key: value for key, value in example.items() if key != "subtask"}
            for example in sample["examples"]
            if example["subtask"] == sub
        ]
        if fields.get("preferred_score") != "multiple_choice_grade":
            for example in examples:  # an exact-match task may carry scores it does not read
                example["comment"] = "dropped"
        path = f"{ROOT}/{family}/{sub}/task.json" if sub else f"{ROOT}/{family}/task.json"
        files[path] = json.dumps({"name": sub or family, **fields, "examples": examples}).encode()
    return files


@pytest.fixture
def sdist(tmp_path: Path) -> Path:
    path = tmp_path / "bigbench-synthetic.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        for family in FAMILIES:
            for name, content in _task_files(family).items():
                _add(archive, name, content)
        # Members that must never be opened: a held-out task and a skipped list_functions view.
        # Neither is JSON, so reading either would fail the build.
        _add(archive, f"{ROOT}/some_held_out_task/task.json", b"\x00 not to be read")
        _add(archive, f"{ROOT}/list_functions/c001/task.json", b"\x00 not to be read")
        _add(archive, "bigbench-1.0.0/PKG-INFO", b"Name: bigbench\n")
    return path


def test_the_rebuild_reproduces_the_committed_files_byte_for_byte(sdist: Path) -> None:
    files = build_sample(sdist, sha256=file_sha256(sdist), families=FAMILIES)
    for family in FAMILIES:
        assert files[f"{family}.json"] == (SAMPLE_DIR / f"{family}.json").read_bytes()
    manifest = json.loads(files["sample.json"])
    committed = json.loads((SAMPLE_DIR / "sample.json").read_text())
    assert manifest["source"]["sha256"] == file_sha256(sdist)
    assert manifest["families"] == {f: committed["families"][f] for f in FAMILIES}
    assert (manifest["seed"], manifest["per_family"]) == (committed["seed"], 30)
    again = build_sample(sdist, sha256=file_sha256(sdist), families=FAMILIES)
    assert again == files


def test_a_smaller_sample_is_the_first_examples_of_the_larger(sdist: Path) -> None:
    files = build_sample(sdist, sha256=file_sha256(sdist), families=FAMILIES, per_family=5)
    for family in FAMILIES:
        small = json.loads(files[f"{family}.json"])["examples"]
        full = json.loads((SAMPLE_DIR / f"{family}.json").read_text())["examples"]
        assert small == full[:5]


def test_a_wrong_sha256_or_a_held_out_family_is_refused(
    sdist: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(ConfigError, match="expected 1bb398a5"):
        build_sample(sdist, families=FAMILIES)  # the pinned sha256 is not the synthetic one's
    assert main(["rebuild", "--sdist", str(sdist), "--out", str(sdist.parent / "out")]) == 2
    assert "refusing" in capsys.readouterr().err
    assert not (sdist.parent / "out").exists()
    with pytest.raises(ConfigError, match="not development families"):
        build_sample(sdist, sha256=file_sha256(sdist), families=["some_held_out_task"])


def test_the_sha256_is_of_the_whole_file(tmp_path: Path) -> None:
    path = tmp_path / "x.bin"
    path.write_bytes(b"a" * (3 << 20))
    assert file_sha256(path) == hashlib.sha256(b"a" * (3 << 20)).hexdigest()
