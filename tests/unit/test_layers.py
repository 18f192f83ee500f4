"""Dependencies point inward: an inner package never imports an outer one (STYLE.md)."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# package -> the project packages it may import (besides itself)
ALLOWED = {
    "learning": set(),
    "templates": {"learning"},
    "retrieval": {"learning"},
    "engine": {"learning", "templates", "retrieval"},
    "experiments": {"learning", "templates", "retrieval", "engine"},
    "ui": {"learning", "templates", "retrieval", "engine", "experiments"},
}
THIRD_PARTY_IN_LEARNING = {"numpy", "scipy"}
# The engine's floors (ARCHITECTURE.md): `ui/` reaches them only through `engine`'s public names.
ENGINE_FLOORS = {"domain", "orchestration", "adapters", "stages"}


def imported_top_levels(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_package_imports_only_inner_layers(package: str) -> None:
    forbidden = set(ALLOWED) - ALLOWED[package] - {package}
    offenders = {
        str(path.relative_to(ROOT)): sorted(imported_top_levels(path) & forbidden)
        for path in (ROOT / package).rglob("*.py")
    }
    assert {path: names for path, names in offenders.items() if names} == {}


def engine_floor_imports(path: Path) -> list[str]:
    """The imports in `path` that reach into one of the engine's floors, as written."""
    tree = ast.parse(path.read_text(), filename=str(path))

    def floor(name: str) -> bool:
        parts = name.split(".")
        return parts[0] == "engine" and len(parts) > 1 and parts[1] in ENGINE_FLOORS

    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if floor(alias.name)]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if floor(node.module):
                found.append(node.module)
            else:  # `from engine import domain` reaches a floor as surely as `import engine.domain`
                named = (f"{node.module}.{alias.name}" for alias in node.names)
                found += [name for name in named if floor(name)]
    return found


def test_ui_comes_in_through_the_engines_public_surface() -> None:
    """`ui/` imports `engine`'s public names, never its floors (engine/__init__.py says why)."""
    offenders = {
        str(path.relative_to(ROOT)): engine_floor_imports(path)
        for path in (ROOT / "ui").rglob("*.py")
    }
    assert {path: names for path, names in offenders.items() if names} == {}


def test_the_floor_check_sees_every_spelling(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import engine.domain.ports\nfrom engine.orchestration.facade import Engine\n"
        "from engine import stages, Decision\nfrom engine.errors import ThinkPathError\n"
        "from engine.compose import build_engine\n"
    )
    assert engine_floor_imports(sample) == [
        "engine.domain.ports",
        "engine.orchestration.facade",
        "engine.stages",
    ]


def test_every_public_engine_name_resolves() -> None:
    """Each name `engine` exports is found where `engine/__init__.py` says it lives."""
    import engine

    assert [name for name in engine.__all__ if getattr(engine, name, None) is None] == []


def test_learning_is_pure() -> None:
    """learning/ imports only numpy, scipy and the standard library's pure modules."""
    impure = {"os", "io", "time", "logging", "pathlib", "sqlite3", "socket", "random", "datetime"}
    offenders = {}
    for path in (ROOT / "learning").rglob("*.py"):
        names = imported_top_levels(path) & impure
        if names:
            offenders[str(path.relative_to(ROOT))] = sorted(names)
    assert offenders == {}


def test_the_checker_sees_imports(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import engine.domain.ports\nfrom ui import cli\nfrom . import sibling\n")
    assert imported_top_levels(sample) == {"engine", "ui"}


def test_the_root_error_is_a_leaf_that_loads_no_numerics() -> None:
    """`templates` and `retrieval` import the root error from `learning.errors`: a leaf, cheap."""
    import subprocess
    import sys

    probe = (
        "import sys, learning.errors, templates.errors, retrieval.errors;"
        "print(sorted({'numpy', 'scipy', 'learning.base'} & set(sys.modules)))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout.strip()
    assert loaded == "[]"
    assert imported_top_levels(ROOT / "learning" / "errors.py") == set()
