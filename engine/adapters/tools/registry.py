"""The tool registry: the allow-list, a deadline per call, and failures turned into results.

Why each call runs on a worker thread (one of a pool that lives with the registry, so that a
call does not pay for starting a thread: `engine.adapters.tools.workers`): the caller waits on
the deadline, and Python cannot kill a thread, so a call that passes its deadline is abandoned,
not stopped; its worker stays busy until it ends. Three things keep an abandoned call from
running away:

- every built-in tool bounds its own work: the calculator refuses long input and huge powers
  before computing, and the search tools rely on backends that carry their own network or index
  timeouts;
- the workers are daemon threads, so a stuck call never keeps the process alive at exit;
- at most `max_in_flight` calls may be running at once (abandoned ones included); past that, a
  call fails at once with a clear error instead of piling up threads (the pool has that many
  threads at most).

The exception: a tool that says `inline = True` runs on the caller's thread. Such a tool is
pure computation on input it caps itself (the calculator, the text and number tools: 200
characters, no IO, no library to load), done in tens of microseconds, where handing it to a
worker and waking the caller again cost more than the work, and on a busy machine milliseconds
of scheduling. Its deadline still decides its result: a run that ends past it is reported as
timed out, as a worker's would be; what it cannot do is stop the run early, which is why only
tools whose every run is bounded far below any deadline may say `inline`.

A tool that is not inline may still refuse on the caller's thread: its optional
`precheck(argument)` raises the refusal its run would give to an argument it can tell at a
glance it cannot read (the units tool, to a question that no conversion form matches; it is tried
on questions of every kind), and the call is then reported as that run's failure would be,
without a worker and before the tool's one-time set-up (`prepare`), which such an argument never
needs. A precheck that passes decides nothing about the answer: the run still answers
or refuses. It may return True when it can tell that this argument's run is bounded computation
far below any deadline (the units tool, for a short question once its libraries are loaded and
no other call holds them); that run is then inline, as above. Why: the hand-off to a worker and
back is two scheduler wake-ups, 0.1 ms on a quiet machine and 2-5 ms on a busy one, for a
conversion of half a millisecond. Any other return leaves the run to a worker and its deadline.
"""

import logging
import math
import re
import threading
import time
from collections.abc import Iterable, Mapping

from engine.adapters.tools.no_tool import NoTool
from engine.adapters.tools.workers import WorkerPool
from engine.domain.ports import Tool
from engine.domain.records import NO_TOOL, ToolAnswer, ToolResult
from engine.errors import ToolError

__all__ = ["ToolRegistry"]

_NAME = re.compile(r"^[a-z0-9]+(?:[_-][a-z0-9]+)*$")


logger = logging.getLogger(__name__)


class _Call:
    """One call's hand-over box between the worker thread and the caller."""

    def __init__(self) -> None:
        self.output: object = None
        self.error: BaseException | None = None
        self.done = threading.Event()


class ToolRegistry:
    """Tools by name, of which the allow-list enables some; `run` never raises for a tool failure.

    The "none" tool (answer without a tool) is always present and always enabled, so the tool
    policy can always choose it.

    >>> from engine.adapters.tools.calculator import Calculator
    >>> registry = ToolRegistry([Calculator()], allowed=["calculator"])
    >>> registry.names()
    ['none', 'calculator']
    >>> registry.run("calculator", "2 ^ 10", timeout_s=1.0).output
    '2 ** 10 = 1024'
    >>> registry.run("calculator", "1 / 0", timeout_s=1.0).error
    'ToolError: division by zero'
    """

    def __init__(
        self,
        tools: Iterable[Tool],
        allowed: Iterable[str] | None = None,
        *,
        max_output_chars: int = 4000,
        max_in_flight: int = 8,
    ) -> None:
        """Register `tools`; enable those named in `allowed` (all of them when it is None).

        Raises `ToolError` for a tool with a malformed or repeated name, or an allowed name that
        no tool has (a settings typo should fail at start-up, not when the tool is first picked).
        """
        if max_output_chars < 1 or max_in_flight < 1:
            raise ToolError("max_output_chars and max_in_flight must be at least 1")
        self._tools: dict[str, Tool] = {NO_TOOL: NoTool()}
        for tool in tools:
            name = tool.name
            if not isinstance(name, str) or not _NAME.match(name):
                raise ToolError(f"tool name {name!r} is not a slug (lowercase, digits, '_', '-')")
            if name in self._tools:
                raise ToolError(f"two tools are named {name!r}")
            self._tools[name] = tool
        if allowed is None:
            enabled = set(self._tools)
        else:
            enabled = set(allowed) | {NO_TOOL}
            unknown = sorted(enabled - set(self._tools))
            if unknown:
                raise ToolError(
                    f"allowed tools {unknown} do not exist; known tools: {sorted(self._tools)}"
                )
        self._enabled = [name for name in self._tools if name in enabled]
        self._max_output_chars = max_output_chars
        self._slots = threading.BoundedSemaphore(max_in_flight)
        self._workers = WorkerPool(max_in_flight, name="tool")
        self._prepared: set[str] = set()
        self._preparing = threading.Lock()

    def names(self) -> list[str]:
        """The enabled tools' names, "none" first, then in registration order."""
        return list(self._enabled)

    def describe(self) -> dict[str, str]:
        """Each enabled tool's description, by name."""
        return {name: self._tools[name].description for name in self._enabled}

    def run(self, name: str, argument: str, timeout_s: float) -> ToolResult:
        """Run tool `name` on `argument` within `timeout_s` seconds.

        A tool that raises, returns something other than text, or misses its deadline gives a
        failed `ToolResult` naming the reason. An unknown or disabled tool name, an argument that
        is not a string, or a timeout that is not a positive number is the caller's mistake and
        raises `ToolError`.
        """
        tool = self._enabled_tool(name)
        if not isinstance(argument, str):
            raise ToolError(f"tool argument must be a string, got {type(argument).__name__}")
        if isinstance(timeout_s, bool) or not isinstance(timeout_s, int | float):
            raise ToolError(f"timeout_s must be a number of seconds, got {timeout_s!r}")
        if not (math.isfinite(timeout_s) and timeout_s > 0):
            raise ToolError(f"timeout_s must be a positive, finite number, got {timeout_s!r}")
        if name == NO_TOOL:
            return ToolResult(ok=True, output="", error=None, seconds=0.0)
        verdict = self._precheck(tool, argument)
        if isinstance(verdict, ToolResult):  # refused on sight: no set-up for a question it
            return verdict  # never reads (the units tool's took 5 s for "What is 12 + 30?")
        self._prepare(name, tool)
        if verdict or getattr(tool, "inline", False) is True:
            return self._run_inline(tool, argument, timeout_s)

        started = time.perf_counter()
        if not self._slots.acquire(blocking=False):
            return ToolResult(
                ok=False,
                output="",
                error="too many tool calls are still running; try again later",
                seconds=0.0,
            )
        call = _Call()
        self._workers.submit(lambda: self._work(tool, argument, call))
        finished = call.done.wait(timeout_s)
        seconds = time.perf_counter() - started
        if not finished:
            return ToolResult(
                ok=False, output="", error=f"timed out after {timeout_s:g} s", seconds=seconds
            )
        return self._result(call, seconds)

    def _prepare(self, name: str, tool: Tool) -> None:
        """A tool's one-time set-up (its optional `prepare()`), before its first deadline starts.

        Why: the units tool's libraries take 4-5 s of CPU to load, 17 s of wall time on a busy
        machine, which is not work on this question; inside the 10 s deadline the first unit
        question of a process timed out. A set-up that fails is the tool's failure at its run.
        """
        prepare = getattr(tool, "prepare", None)
        if prepare is None or name in self._prepared:
            return
        with self._preparing:
            if name not in self._prepared:
                try:
                    prepare()
                except Exception:  # the tool's own run reports it, as its failure
                    logger.warning("tool %r could not prepare", name, exc_info=True)
                self._prepared.add(name)

    def _precheck(self, tool: Tool, argument: str) -> ToolResult | bool:
        """The refusal a tool's `precheck` raises on this thread (see the module), reported as
        its run's would be; else whether the precheck said the run is bounded (True only)."""
        precheck = getattr(tool, "precheck", None)
        if precheck is None:
            return False
        call = _Call()
        started = time.perf_counter()
        try:
            bounded = precheck(argument)
        except Exception as error:  # this tool's refusal; an interrupt is the caller's own
            call.error = error
        if call.error is None:
            return bounded is True
        return self._result(call, time.perf_counter() - started)

    def _enabled_tool(self, name: str) -> Tool:
        if name not in self._tools:
            raise ToolError(f"unknown tool {name!r}; known tools: {sorted(self._tools)}")
        if name not in self._enabled:
            raise ToolError(f"tool {name!r} is not enabled; enabled tools: {self._enabled}")
        return self._tools[name]

    def _run_inline(self, tool: Tool, argument: str, timeout_s: float) -> ToolResult:
        """An `inline` tool's run on this thread (see the module), judged by its deadline."""
        call = _Call()
        started = time.perf_counter()
        try:
            call.output = tool.run(argument)
        except Exception as error:  # this tool's failure; an interrupt is the caller's own
            call.error = error
        seconds = time.perf_counter() - started
        if seconds > timeout_s:
            return ToolResult(
                ok=False, output="", error=f"timed out after {timeout_s:g} s", seconds=seconds
            )
        return self._result(call, seconds)

    def _work(self, tool: Tool, argument: str, call: _Call) -> None:
        try:
            call.output = tool.run(argument)
        except BaseException as error:  # reported to the caller as this tool's failure
            call.error = error
        finally:
            self._slots.release()
            call.done.set()

    def _result(self, call: _Call, seconds: float) -> ToolResult:
        if call.error is not None:
            message = str(call.error) or "(no message)"
            return ToolResult(
                ok=False,
                output="",
                error=f"{type(call.error).__name__}: {message}",
                seconds=seconds,
            )
        answer = call.output
        if isinstance(answer, ToolAnswer) and isinstance(answer.output, str):
            return ToolResult(
                ok=True,
                output=self._cut(answer.output),
                error=None,
                seconds=seconds,
                value=answer.value,
                provenance=answer.provenance,
                fully_parsed=answer.fully_parsed,
            )
        if not isinstance(answer, str):
            return ToolResult(
                ok=False,
                output="",
                error=f"tool returned {type(answer).__name__}, not text",
                seconds=seconds,
            )
        return ToolResult(ok=True, output=self._cut(answer), error=None, seconds=seconds)

    def _cut(self, output: str) -> str:
        if len(output) > self._max_output_chars:
            return output[: self._max_output_chars] + " [... cut]"
        return output

    @property
    def tools(self) -> Mapping[str, Tool]:
        """Every registered tool by name, enabled or not."""
        return dict(self._tools)
