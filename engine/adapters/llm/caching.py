"""A caching LLM wrapper: the same exact request is answered once, then from disk.

Why: the online evaluation runs the engine, the bare model and every forced template over the same
task stream in several orders, and reruns after a policy change. At temperature 0 a request's
answer is a function of the request, so every repeat (a forced arm in another stream order, the
same seed brief for the same query, an answer the engine asks again) is served from the cache and
a rerun costs seconds. Only deterministic requests are cached: a request with a temperature above
0 and no seed passes through.

The key is a hash of everything that can change the model's output: the model's name, the
messages, `max_tokens`, temperature, seed and JSON schema (never the timeout or the purpose, so a
forced template's answer and the engine's identical answer share one entry). Entries are appended
to one JSON-lines file per model under the cache directory; a torn last line (a killed run) is
skipped on load, and the next entry starts on a line of its own. Several processes may share one
cache (a long evaluation split across cores, `experiments.online_warm`): before asking the model,
a miss reads the complete lines the others appended since. A hit reports the seconds and tokens
of the original generation, so cost figures stay those of the model, not of the disk.

>>> import tempfile, pathlib
>>> from engine.adapters.llm.scripted import ScriptedLLM
>>> from engine.domain.records import ChatMessage, LLMRequest
>>> inner = ScriptedLLM(lambda request: "4")
>>> llm = CachingLLM(inner, pathlib.Path(tempfile.mkdtemp()), model="demo")
>>> request = LLMRequest(messages=(ChatMessage("user", "2 + 2?"),))
>>> [llm.complete(request).text for _ in range(3)], len(inner.requests), llm.hits
(['4', '4', '4'], 1, 2)
"""

import hashlib
import json
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from engine.domain.ports import LLM
from engine.domain.records import LLMRequest, LLMResponse

__all__ = ["CachingLLM", "CallRecord", "request_key"]


def request_key(model: str, request: LLMRequest) -> str:
    """The cache key of `request` to `model`: a SHA-256 of every output-deciding field."""
    identity = {
        "model": model,
        "messages": [[message.role, message.content] for message in request.messages],
        "max_tokens": request.max_tokens,
        "temperature": request.temperature,
        "seed": request.seed,
        "json_schema": request.json_schema,
    }
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()


@dataclass(frozen=True)
class CallRecord:
    """One call through the wrapper, for per-decision cost accounting."""

    purpose: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float  # the original generation's seconds, also on a hit
    hit: bool


class CachingLLM:
    """Implements the LLM port around `inner`, answering repeated exact requests from disk."""

    def __init__(self, inner: LLM, cache_dir: Path, *, model: str) -> None:
        self.inner = inner
        self.model = model
        self.hits = 0
        self.misses = 0
        self.calls: list[CallRecord] = []  # every call, in order (the caller slices it)
        name = hashlib.sha256(model.encode()).hexdigest()[:16]
        self.path = cache_dir / f"llm-{name}.jsonl"
        self._lock = threading.Lock()
        self._entries: dict[str, dict[str, object]] = {}
        self._read_to = 0  # bytes of the file read so far
        self._read_new()

    def _read_new(self) -> None:
        """Take in the complete lines appended since the last read (by us or another process)."""
        if not self.path.exists():
            return
        with self.path.open("rb") as file:
            file.seek(self._read_to)
            chunk = file.read()
        end = chunk.rfind(b"\n") + 1  # a line still being written is read next time
        self._read_to += end
        for line in chunk[:end].decode("utf-8", errors="replace").splitlines():
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line torn by a killed run: that request is simply asked again
            if isinstance(entry, dict) and isinstance(entry.get("key"), str):
                self._entries[entry["key"]] = entry

    def __len__(self) -> int:
        return len(self._entries)

    def __bool__(self) -> bool:
        # Without this an empty cache is falsy through `__len__`, and `llm or build_llm(...)`
        # would silently swap it for an uncached model.
        return True

    def _cached(self, key: str) -> dict[str, object] | None:
        """The entry for `key`, reading what other processes appended first if we lack it."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                self._read_new()  # another process sharing the cache may have asked it
                entry = self._entries.get(key)
            return entry

    def complete(self, request: LLMRequest) -> LLMResponse:
        """The cached response to this exact request, or the inner model's (then cached)."""
        if request.temperature > 0 and request.seed is None:
            response = self.inner.complete(request)  # not reproducible: never cached
            self._note(request, response, hit=False)
            return response
        entry = self._cached(request_key(self.model, request))
        if entry is not None:
            response = LLMResponse(
                text=str(entry["text"]),
                model=str(entry["model"]),
                prompt_tokens=int(str(entry["prompt_tokens"])),
                completion_tokens=int(str(entry["completion_tokens"])),
                seconds=float(str(entry["seconds"])),
                cost_usd=0.0,
            )
            self._note(request, response, hit=True)
            return response
        response = self.inner.complete(request)  # faults are raised and never cached
        self._remember(request, response)
        return response

    def _remember(self, request: LLMRequest, response: LLMResponse) -> None:
        key = request_key(self.model, request)
        entry = {
            "key": key,
            "purpose": request.purpose,
            "text": response.text,
            "model": response.model,
            "prompt_tokens": response.prompt_tokens,
            "completion_tokens": response.completion_tokens,
            "seconds": response.seconds,
        }
        with self._lock:
            self._entries[key] = entry
            self.path.parent.mkdir(parents=True, exist_ok=True)
            line = (json.dumps(entry) + "\n").encode("utf-8")
            with self.path.open("a+b") as file:
                if file.seek(0, os.SEEK_END) > 0:
                    file.seek(-1, os.SEEK_END)
                    if file.read(1) != b"\n":
                        # A line torn by a killed run: end it, or this entry would be glued to
                        # it and lost. (Seen mid-write by another process instead, this only
                        # leaves an empty line, which loading skips.)
                        line = b"\n" + line
                # One write per line in append mode: lines from processes sharing the file
                # never interleave.
                file.write(line)
        self._note(request, response, hit=False)

    def stream(self, request: LLMRequest, on_text: Callable[[str], None]) -> LLMResponse:
        """`complete`, with the text handed to `on_text`: whole from the cache, else as the
        inner model streams it (then cached like any response)."""
        if request.temperature > 0 and request.seed is None:
            response = self.inner.stream(request, on_text)
            self._note(request, response, hit=False)
            return response
        if self._cached(request_key(self.model, request)) is not None:
            response = self.complete(request)
            on_text(response.text)
            return response
        streamed = self.inner.stream(request, on_text)
        self._remember(request, streamed)
        return streamed

    def _note(self, request: LLMRequest, response: LLMResponse, *, hit: bool) -> None:
        with self._lock:
            if hit:
                self.hits += 1
            else:
                self.misses += 1
            self.calls.append(
                CallRecord(
                    request.purpose,
                    response.prompt_tokens,
                    response.completion_tokens,
                    response.seconds,
                    hit,
                )
            )
