"""The error tree drawn in `engine.errors` is the real class hierarchy, class for class."""

import re

import engine.errors
import retrieval.errors
from engine.errors import ThinkPathError

_ROW = re.compile(r"^(?P<indent>[ │]*)(?:├── |└── )?(?P<name>[A-Z]\w+)")


def drawn_tree() -> dict[str, str | None]:
    """Each class named in the drawing, with the class it is drawn under."""
    doc = engine.errors.__doc__ or ""
    lines = [line[4:] for line in doc.splitlines() if line.startswith("    ")]
    parents: dict[str, str | None] = {}
    stack: list[tuple[int, str]] = []
    for line in lines:
        match = _ROW.match(line)
        if not match:
            continue
        depth = len(match.group("indent")) // 4 + (1 if "──" in line else 0)
        while stack and stack[-1][0] >= depth:
            stack.pop()
        parents[match.group("name")] = stack[-1][1] if stack else None
        stack.append((depth, match.group("name")))
    return parents


def test_every_drawn_class_sits_under_its_drawn_parent() -> None:
    namespace = {**vars(retrieval.errors), **vars(engine.errors)}
    drawn = drawn_tree()
    assert drawn["ThinkPathError"] is None
    for name, parent in drawn.items():
        if parent is not None:
            assert issubclass(namespace[name], namespace[parent]), f"{name} under {parent}"


def test_every_error_class_is_drawn() -> None:
    namespace = {**vars(retrieval.errors), **vars(engine.errors)}
    classes = {
        name
        for name, value in namespace.items()
        if isinstance(value, type) and issubclass(value, ThinkPathError)
    }
    assert classes - set(drawn_tree()) == set()
