"""The sandbox runs honest programs and refuses or kills hostile ones, one test per attack.

Each hostile test also says which layer stopped it (the check before running, the guarded
builtins, or a kernel limit), so a test fails if a layer silently stops doing its part.
"""

import pytest

from engine.adapters.tools.sandbox import (
    SandboxLimits,
    SandboxOutput,
    check_program,
    run_program,
)
from engine.errors import ToolError

# A CPU limit of 1 s keeps the tests that burn CPU short; the wall-clock limit stays generous so
# that on a loaded machine the CPU limit, not the clock, still ends them (either is a kill).
QUICK = SandboxLimits(cpu_seconds=1, wall_seconds=20.0)
KILLED = r"was stopped: it (used more than 1 s of CPU time|ran past)"
REFUSED = "program refused before running"


def result_of(program: str) -> str:
    return run_program(program, QUICK).result


# --- honest programs ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("program", "expected"),
    [
        ("print(sum(range(1, 101)))", "5050"),
        ("from fractions import Fraction\nprint(Fraction(1, 3) + Fraction(1, 6))", "1/2"),
        ("import statistics\nprint(statistics.mean([2, 4, 9]))", "5"),
        (
            "import datetime\nprint((datetime.date(2024, 3, 1) - datetime.date(2024, 2, 1)).days)",
            "29",
        ),
        ("import math\nprint(math.comb(10, 3))", "120"),
        ("30 - 12", "18"),  # a bare expression is printed
        ("x = 7\nx * 6", "42"),  # so is a last bare expression
        ("import itertools\nprint(len(list(itertools.permutations('abcd'))))", "24"),
        ("import re\nprint(len(re.findall(r'[aeiou]', 'programming')))", "3"),
        ("total = 0\nfor n in range(1, 5):\n    total += n * n\nprint(total)", "30"),
        ("def area(w, h):\n    return w * h\nprint(area(3, 4))", "12"),
        ("print(sum(range(1, 10001)))", "50005000"),  # no 1,000-item cap on range
        ("n = 3.14159\nprint(f'{n:.2f}')", "3.14"),
    ],
)
def test_honest_programs_print_their_answer(program: str, expected: str) -> None:
    assert result_of(program) == expected


def test_the_last_printed_line_is_the_result() -> None:
    output = run_program("print('working')\nprint(6 * 7)\nprint()", QUICK)
    assert output.printed == "working\n42\n\n"
    assert output.result == "42"


def test_prints_inside_functions_are_collected_in_order() -> None:
    output = run_program("def f():\n    print('inside')\nf()\nprint('after')", QUICK)
    assert output.printed.splitlines() == ["inside", "after"]


def test_output_is_bounded_and_keeps_the_tail() -> None:
    output = run_program("for i in range(5000):\n    print(i)", QUICK)
    assert output.truncated
    assert len(output.printed) == QUICK.output_chars
    assert output.result == "4999"


def test_a_last_line_longer_than_the_bound_is_refused() -> None:
    with pytest.raises(ToolError, match="longer than the output limit"):
        result_of("print('7' * 5000)")


def test_a_program_that_prints_nothing_is_refused() -> None:
    with pytest.raises(ToolError, match="printed nothing"):
        result_of("x = 1")


def test_a_program_error_is_reported() -> None:
    with pytest.raises(ToolError, match="the program failed: ZeroDivisionError"):
        result_of("print(1 / 0)")


# --- checks before running ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("program", "reason"),
    [
        ("", "empty"),
        ("   \n", "empty"),
        ("What is 2 + 2?", "not Python"),
        ("print(1)\x00", "not Python"),
        ("print(1)  #" + "x" * 2000, "longer than 2000"),
    ],
)
def test_check_refuses_what_is_not_a_short_program(program: str, reason: str) -> None:
    with pytest.raises(ToolError, match=reason):
        check_program(program)


def test_check_prints_a_last_bare_expression_only() -> None:
    assert check_program("1 + 1") == "print(1 + 1)"
    assert check_program("print(2)") == "print(2)"
    assert check_program("x = 1") == "x = 1"


@pytest.mark.parametrize(
    "limits",
    [
        {"cpu_seconds": 0},
        {"wall_seconds": 0.0},
        {"memory_bytes": 2**20},
        {"output_chars": 0},
        {"program_chars": 0},
    ],
)
def test_limits_refuse_values_that_could_not_work(limits: dict[str, float]) -> None:
    with pytest.raises(ToolError):
        SandboxLimits(**limits)  # type: ignore[arg-type]


def test_a_result_needs_a_printed_line() -> None:
    with pytest.raises(ToolError, match="printed nothing"):
        _ = SandboxOutput(printed="\n \n", truncated=False).result


# --- hostile programs, one test each ------------------------------------------------------------


def test_an_endless_loop_is_killed() -> None:
    with pytest.raises(ToolError, match=KILLED):
        result_of("while True: pass")


def test_a_ten_gigabyte_string_is_refused_by_the_memory_limit() -> None:
    with pytest.raises(ToolError, match="MemoryError"):
        result_of("x = ' ' * 10**10")


def test_a_ten_gigabyte_list_is_refused_by_the_memory_limit() -> None:
    with pytest.raises(ToolError, match="MemoryError"):
        result_of("x = [0] * 10**10")


def test_a_huge_power_is_killed_or_refused() -> None:
    with pytest.raises(ToolError, match=rf"{KILLED}|MemoryError"):
        result_of("print(10**10**10)")


def test_a_recursion_bomb_is_stopped() -> None:
    with pytest.raises(ToolError, match="RecursionError"):
        result_of("def f(n):\n    return f(n + 1)\nf(0)")


def test_import_os_is_refused() -> None:
    with pytest.raises(ToolError, match="import of 'os' is not allowed"):
        result_of("import os\nprint(os.getcwd())")


def test_dunder_import_is_refused_before_running() -> None:
    with pytest.raises(ToolError, match=f'{REFUSED}.*"__import__"'):
        check_program("__import__('os').system('id')")


def test_opening_a_file_is_refused() -> None:
    with pytest.raises(ToolError, match="name 'open' is not defined"):
        result_of("print(open('/etc/passwd').read())")


def test_reading_an_environment_variable_is_refused() -> None:
    with pytest.raises(ToolError, match="import of 'os' is not allowed"):
        result_of("from os import environ\nprint(environ['HOME'])")


def test_os_fork_is_refused() -> None:
    with pytest.raises(ToolError, match="import of 'os' is not allowed"):
        result_of("import os\nprint(os.fork())")


def test_subprocess_is_refused() -> None:
    with pytest.raises(ToolError, match="import of 'subprocess' is not allowed"):
        result_of("import subprocess\nprint(subprocess.run(['id']))")


def test_socket_is_refused() -> None:
    with pytest.raises(ToolError, match="import of 'socket' is not allowed"):
        result_of("import socket\nprint(socket.socket())")


def test_subclasses_through_class_and_base_are_refused_before_running() -> None:
    with pytest.raises(ToolError, match=f'{REFUSED}.*"__subclasses__"'):
        check_program("print(().__class__.__base__.__subclasses__())")


def test_function_globals_are_refused_before_running() -> None:
    with pytest.raises(ToolError, match=f'{REFUSED}.*"__globals__"'):
        check_program("print((lambda: 0).__globals__)")


def test_type_subclasses_is_refused_before_running() -> None:
    with pytest.raises(ToolError, match=f'{REFUSED}.*"__subclasses__"'):
        check_program("print(type.__subclasses__(type))")


def test_generator_frames_are_refused_before_running() -> None:
    with pytest.raises(ToolError, match=f'{REFUSED}.*"gi_frame"'):
        check_program("g = (x for x in [1])\nprint(g.gi_frame.f_back)")


def test_dunder_through_getattr_is_refused() -> None:
    with pytest.raises(ToolError, match="name 'getattr' is not defined"):
        result_of("print(getattr((), '__class__'))")


def test_dunder_through_str_format_is_refused() -> None:
    with pytest.raises(ToolError, match="format"):
        result_of("print('{0.__class__}'.format(1))")


@pytest.mark.parametrize("module", ["statistics", "fractions", "datetime", "re"])
def test_allowed_modules_do_not_hand_out_the_modules_they_import(module: str) -> None:
    # statistics.sys and fractions.sys are the real `sys`: sys.modules["os"] would follow.
    with pytest.raises(ToolError, match=f"module '{module}' has no attribute 'sys'"):
        result_of(f"import {module}\nprint({module}.sys.modules['os'])")


def test_print_to_a_file_object_is_refused() -> None:
    with pytest.raises(ToolError, match=r"print\(file=\.\.\.\) is not allowed"):
        result_of("print('x', file=[])")


def test_a_sandbox_that_cannot_start_is_a_tool_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_processes(*args: object, **kwargs: object) -> None:
        raise BlockingIOError("Resource temporarily unavailable")

    monkeypatch.setattr("engine.adapters.tools.sandbox.subprocess.Popen", no_processes)
    with pytest.raises(ToolError, match="the sandbox could not start"):
        result_of("print(1)")
