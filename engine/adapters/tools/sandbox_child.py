"""The sandbox's child process: limit itself, check the program again, run it, report as JSON.

`engine.adapters.tools.sandbox` runs this file as `__main__` under `python -I -S` (no site
packages, no user site, no `PYTHON*` variables) in an empty environment, with only the directory
that holds RestrictedPython added to the path; the request arrives as JSON on standard input. So
it imports only the standard library and RestrictedPython, never the engine.

Order matters: everything the program may use (the allowed modules, the guards, `json` for the
reply) is imported *before* the limits go on, because after them no file can be opened. Then it
empties its environment and, when it runs as root, becomes `nobody` (root ignores `RLIMIT_NPROC`,
so only an unprivileged user is really unable to fork); then the limits are set, hard and soft
alike, so the program cannot raise them again.

The reply is one JSON object on standard output: `{"status": "ok", "printed": ..., "truncated":
...}`, `{"status": "refused", "reason": ...}` (RestrictedPython's checks) or `{"status":
"error", "reason": ...}` (the program raised). A process killed by a limit writes nothing; the
parent reads the signal.
"""

import builtins
import datetime
import fractions
import itertools
import json
import math
import operator
import os
import re
import resource
import statistics
import sys
import types
from collections.abc import Callable, Iterable
from typing import Any

from RestrictedPython.compile import compile_restricted_exec
from RestrictedPython.Guards import (
    full_write_guard,
    guarded_iter_unpack_sequence,
    guarded_unpack_sequence,
    safe_builtins,
    safer_getattr_raise,
)

ALLOWED_MODULES = {
    module.__name__: module for module in (math, fractions, statistics, datetime, itertools, re)
}
_NOBODY = 65534
_REASON_CHARS = 300

# Builtins beyond RestrictedPython's `safe_builtins` that harmless arithmetic programs use. None of
# them reaches a file, a module or an object's internals. The plain `range`, `list` and `tuple`
# replace RestrictedPython's `limited_builtins`, whose `range` refuses more than 1,000 items
# (`sum(range(1, 10001))` is an honest program): the CPU and memory limits bound the work instead.
# `setattr`/`delattr` stay out: a program that computes an answer has no need to change an object
# it did not make.
_EXTRA_BUILTINS: dict[str, object] = {
    name: getattr(builtins, name)
    for name in (
        "all", "any", "bin", "dict", "enumerate", "filter", "format", "frozenset", "iter", "list",
        "map", "max", "min", "next", "range", "reversed", "set", "sorted", "sum", "tuple", "zip",
    )
}  # fmt: skip
_DROPPED_BUILTINS = ("setattr", "delattr")

_IN_PLACE: dict[str, Callable[[Any, Any], object]] = {
    "+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv,
    "//=": operator.ifloordiv, "%=": operator.imod, "**=": operator.ipow, "<<=": operator.ilshift,
    ">>=": operator.irshift, "&=": operator.iand, "|=": operator.ior, "^=": operator.ixor,
    "@=": operator.imatmul,
}  # fmt: skip


def public_view(module: types.ModuleType) -> types.ModuleType:
    """A copy of `module` with only its public names that are not themselves modules.

    Why: a module's namespace holds the modules it imported (`statistics.sys`, `fractions.sys`),
    and RestrictedPython guards only names that start with "_", so the real module would hand
    the program `sys.modules["os"]`. The view keeps functions, classes and constants.
    """
    view = types.ModuleType(module.__name__)
    for name in dir(module):
        value = getattr(module, name)
        if not name.startswith("_") and not isinstance(value, types.ModuleType):
            setattr(view, name, value)
    return view


class BoundedPrint:
    """Every `print` of the program, whatever function it is in; keeps the last `limit` characters.

    The tail is kept, not the head, because the last printed line is the result.
    """

    def __init__(self, limit: int) -> None:
        self.text = ""
        self.truncated = False
        self._limit = limit

    def __call__(self, _getattr_: object = None) -> "BoundedPrint":  # noqa: ARG002 - its hook
        # RestrictedPython calls `_print_(_getattr_)` once per function that prints; returning
        # this one collector gathers the whole program's output in order.
        return self

    def write(self, text: str) -> None:
        self.text += text
        if len(self.text) > self._limit:
            self.text = self.text[-self._limit :]
            self.truncated = True

    def _call_print(self, *objects: object, **options: Any) -> None:
        if options.get("file") is not None:
            raise PermissionError("print(file=...) is not allowed: there are no files here")
        options["file"] = self
        print(*objects, **options)


def _guarded_import(
    name: str,
    globals_: object = None,  # noqa: ARG001 - the signature of `__import__`, by position
    locals_: object = None,  # noqa: ARG001
    fromlist: Iterable[str] | None = (),  # noqa: ARG001 - RestrictedPython checks the names
    level: int = 0,
) -> types.ModuleType:
    if level != 0 or name not in _VIEWS:
        allowed = ", ".join(sorted(ALLOWED_MODULES))
        raise ImportError(f"import of {name!r} is not allowed; allowed modules: {allowed}")
    return _VIEWS[name]


def _in_place(operation: str, target: object, value: object) -> object:
    return _IN_PLACE[operation](target, value)


def _apply(function: Callable[..., object], *args: object, **kwargs: object) -> object:
    return function(*args, **kwargs)


_VIEWS = {name: public_view(module) for name, module in ALLOWED_MODULES.items()}


def program_globals(collector: BoundedPrint) -> dict[str, object]:
    """The namespace a checked program runs in: guarded builtins and RestrictedPython's hooks."""
    names = {**safe_builtins, **_EXTRA_BUILTINS}
    for name in _DROPPED_BUILTINS:
        names.pop(name, None)
    names["__import__"] = _guarded_import
    return {
        "__builtins__": names,
        "__name__": "program",
        "__metaclass__": type,
        "_print_": collector,
        # The raising variant: the plain one answers None for a missing attribute (`math.tau2`).
        "_getattr_": safer_getattr_raise,
        "_getitem_": operator.getitem,
        "_getiter_": iter,
        "_iter_unpack_sequence_": guarded_iter_unpack_sequence,
        "_unpack_sequence_": guarded_unpack_sequence,
        "_write_": full_write_guard,
        "_inplacevar_": _in_place,
        "_apply_": _apply,
    }


def isolate() -> None:
    """Empty the environment and become `nobody` when running as root.

    The parent passes no variables, but Python adds `LC_CTYPE` itself (PEP 538 locale coercion).
    Root ignores `RLIMIT_NPROC`, so only an unprivileged user is really unable to fork.
    """
    os.environ.clear()
    if os.geteuid() != 0:
        return
    os.setgroups([])
    os.setgid(_NOBODY)
    os.setuid(_NOBODY)


def set_limits(cpu_seconds: int, memory_bytes: int) -> None:
    """Hard limits (soft = hard, so the program cannot raise them): CPU, memory, no files, no
    fork."""
    # The CPU soft limit sends SIGXCPU (which ends the process); one second later SIGKILL.
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
    for limit, value in (
        (resource.RLIMIT_AS, memory_bytes),
        (resource.RLIMIT_NOFILE, 0),  # no new file descriptor: no file, no socket, no pipe
        (resource.RLIMIT_FSIZE, 0),
        (resource.RLIMIT_NPROC, 0),  # no fork (ignored for root: hence `isolate`)
        (resource.RLIMIT_CORE, 0),
    ):
        resource.setrlimit(limit, (value, value))


def run(source: str, output_chars: int) -> dict[str, object]:
    """Check `source` with RestrictedPython and run it; the reply for the parent."""
    compiled = compile_restricted_exec(source, filename="<program>")
    if compiled.errors or compiled.code is None:
        return {"status": "refused", "reason": "; ".join(compiled.errors)[:_REASON_CHARS]}
    collector = BoundedPrint(output_chars)
    try:
        exec(compiled.code, program_globals(collector))  # checked and guarded above
    except BaseException as error:  # the program's own failure, reported as data
        reason = f"{type(error).__name__}: {error}"[:_REASON_CHARS]
        return {"status": "error", "reason": reason}
    return {"status": "ok", "printed": collector.text, "truncated": collector.truncated}


def main() -> None:
    """Read the request, limit this process, run the program, write the reply."""
    request = json.loads(sys.stdin.read())
    sys.stdin.close()
    isolate()
    set_limits(int(request["cpu_seconds"]), int(request["memory_bytes"]))
    reply = run(str(request["source"]), int(request["output_chars"]))
    sys.stdout.write(json.dumps(reply))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
