"""Run a short, untrusted Python program in a separate, limited process; return what it printed.

Layers, each enough to stop the hostile programs in the tests on its own most of the time, and
together meant to leave no gap (`docs/engine.md`, "Program tool and sandbox", has the comparison
with asteval and simpleeval that led here):

1. Checked before it runs: RestrictedPython compiles the program here, refusing names and
   attributes that start with "_" (`__class__`, `__globals__`, `__subclasses__`), frame and
   generator internals (`gi_frame`, `f_back`), `exec`/`eval`, and syntax errors, before any
   process starts. The child compiles it again, so it never runs an unchecked program.
2. Guarded at run time (`sandbox_child`): builtins without `open`, `getattr`, `setattr`, `exec`,
   `eval`; an `__import__` that hands out only views of math, fractions, statistics, datetime,
   itertools and re (their public names, without the modules they import, such as
   `statistics.sys`); attribute access through RestrictedPython's `safer_getattr`.
3. Limited by the kernel: a fresh `python -I -S` process with an empty environment, which drops
   to `nobody` when started as root and sets hard limits on CPU time, address space, file
   descriptors (0: no file, socket or pipe can be opened), file size (0) and processes (0: no
   fork); the parent kills it at a wall-clock deadline.
"""

import ast
import json
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import RestrictedPython
from RestrictedPython.compile import compile_restricted_exec

from engine.errors import ToolError

__all__ = ["SandboxLimits", "SandboxOutput", "check_program", "run_program"]

_CHILD = Path(__file__).with_name("sandbox_child.py")
_RESTRICTED_PYTHON_HOME = str(Path(RestrictedPython.__file__).resolve().parent.parent)
# The child's first statements: RestrictedPython's directory on the path (site packages are off),
# then the child module as __main__. Nothing from the program is on this command line.
_BOOTSTRAP = "\n".join(
    (
        "import runpy, sys",
        "sys.path.append(sys.argv[2])",
        "runpy.run_path(sys.argv[1], run_name='__main__')",
    )
)
_REPLY_CHARS = 16_384  # more than any honest reply (output is bounded by the child)


@dataclass(frozen=True)
class SandboxLimits:
    """What one program may use. The defaults are the documented limits (`docs/engine.md`)."""

    cpu_seconds: int = 2
    wall_seconds: float = 5.0
    memory_bytes: int = 256 * 2**20
    output_chars: int = 2048
    program_chars: int = 2000

    def __post_init__(self) -> None:
        if self.cpu_seconds < 1 or self.wall_seconds <= 0:
            raise ToolError("the sandbox needs at least 1 s of CPU and a positive wall-clock limit")
        if self.memory_bytes < 64 * 2**20:
            raise ToolError("the sandbox needs at least 64 MiB: the interpreter itself uses ~30")
        if self.output_chars < 1 or self.program_chars < 1:
            raise ToolError("output_chars and program_chars must be at least 1")


@dataclass(frozen=True)
class SandboxOutput:
    """What a program printed (its last `output_chars` characters) and whether more was cut."""

    printed: str
    truncated: bool

    @property
    def result(self) -> str:
        """The last line the program printed that is not blank: the program's answer.

        >>> SandboxOutput("working...\\n42\\n", truncated=False).result
        '42'
        """
        lines = [line.strip() for line in self.printed.splitlines() if line.strip()]
        if not lines:
            raise ToolError("the program printed nothing")
        # Only the tail was kept: its first line may be cut, so a lone line is not known whole.
        if self.truncated and len(lines) < 2:
            raise ToolError("the program's last line is longer than the output limit")
        return lines[-1]


def check_program(program: str, limits: SandboxLimits = SandboxLimits()) -> str:
    """The program as it will run, or `ToolError` saying why it may not run at all.

    A program that ends in a bare expression prints it, so "30 - 12" is a program too.

    >>> check_program("30 - 12")
    'print(30 - 12)'
    >>> check_program("().__class__")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    engine.errors.ToolError: program refused before running: Line 1: "__class__" is an invalid ...
    """
    if not isinstance(program, str) or not program.strip():
        raise ToolError("the program is empty")
    if len(program) > limits.program_chars:
        raise ToolError(f"the program is longer than {limits.program_chars} characters")
    try:
        tree = ast.parse(program)
    except (SyntaxError, ValueError) as error:  # ValueError: a NUL byte in the source
        raise ToolError(f"the program is not Python: {error}") from None
    source = ast.unparse(_print_last_expression(tree))
    compiled = compile_restricted_exec(source, filename="<program>")
    if compiled.errors or compiled.code is None:
        raise ToolError(f"program refused before running: {'; '.join(compiled.errors)}")
    return source


def _print_last_expression(tree: ast.Module) -> ast.Module:
    last = tree.body[-1] if tree.body else None
    if not isinstance(last, ast.Expr) or _is_print(last.value):
        return tree
    printing = ast.Expr(ast.Call(ast.Name("print", ast.Load()), [last.value], []))
    tree.body[-1] = ast.copy_location(printing, last)
    return ast.fix_missing_locations(tree)


def _is_print(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"
    )


def run_program(program: str, limits: SandboxLimits = SandboxLimits()) -> SandboxOutput:
    """Check `program`, run it in a fresh limited process, and return what it printed.

    Raises `ToolError` when the program is refused, raises, passes a limit, or prints nothing
    readable; the message says which.

    >>> run_program("import math\\nprint(math.comb(10, 3))").result
    '120'
    """
    source = check_program(program, limits)
    request = json.dumps(
        {
            "source": source,
            "cpu_seconds": limits.cpu_seconds,
            "memory_bytes": limits.memory_bytes,
            "output_chars": limits.output_chars,
        }
    )
    try:
        process = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _BOOTSTRAP, str(_CHILD), _RESTRICTED_PYTHON_HOME],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={},
            cwd="/",
            text=True,
            errors="replace",  # the reply is ASCII JSON; a crash's stderr need not be UTF-8
        )
    except OSError as error:  # e.g. too many processes on the machine
        raise ToolError(f"the sandbox could not start: {error}") from None
    with process:
        try:
            stdout, stderr = process.communicate(request, timeout=limits.wall_seconds)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            raise ToolError(
                f"the program was stopped: it ran past {limits.wall_seconds:g} s of wall-clock time"
            ) from None
    return _read_reply(process.returncode, stdout[:_REPLY_CHARS], stderr, limits)


def _read_reply(returncode: int, stdout: str, stderr: str, limits: SandboxLimits) -> SandboxOutput:
    if returncode < 0:
        raise ToolError(_killed_reason(-returncode, limits))
    try:
        reply = json.loads(stdout)
    except json.JSONDecodeError:
        detail = (stderr.strip().splitlines() or ["no reply"])[-1][:300]
        raise ToolError(f"the sandbox failed (exit status {returncode}): {detail}") from None
    status = reply.get("status")
    if status == "refused":
        raise ToolError(f"program refused before running: {reply.get('reason', '')}")
    if status == "error":
        raise ToolError(f"the program failed: {reply.get('reason', '')}")
    if status != "ok" or not isinstance(reply.get("printed"), str):
        raise ToolError(f"the sandbox sent an unreadable reply: {stdout[:200]!r}")
    return SandboxOutput(printed=reply["printed"], truncated=bool(reply.get("truncated")))


def _killed_reason(number: int, limits: SandboxLimits) -> str:
    if number in (signal.SIGXCPU, signal.SIGKILL):
        return f"the program was stopped: it used more than {limits.cpu_seconds} s of CPU time"
    if number == signal.SIGXFSZ:
        return "the program was stopped: it tried to write a file"
    return f"the program was stopped by signal {signal.Signals(number).name}"
