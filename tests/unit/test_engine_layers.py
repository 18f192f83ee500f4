"""The floors inside `engine/` hold: every arrow points down, and no import cycle exists.

The floors (drawn in docs/architecture.md), lowest first:

- domain: `engine/domain/` and `engine/errors.py` (records, ports, errors, checkers, features,
  pure rules) import nothing else of the engine;
- stages and adapters stand on the domain, never on each other or anything above;
- orchestration (`engine/orchestration/`: facade, pipeline, arm book, choosing, scoring) composes
  stages over the domain; `engine/settings.py` reads the domain's defaults;
- `engine/compose.py` alone builds adapters, and only the public surface (`engine/__init__.py`)
  and the entry points outside `engine/` import it.

Every import counts, including those inside functions and under TYPE_CHECKING: a cycle that
only the type checker sees is still a cycle a reader must untangle.
"""

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# floor -> the floors it may import (itself always allowed)
FLOORS: dict[str, set[str]] = {
    "domain": set(),
    "stages": {"domain"},
    "adapters": {"domain"},
    "orchestration": {"domain", "stages"},
    "settings": {"domain"},
    "compose": {"domain", "stages", "adapters", "orchestration", "settings"},
    # The public surface is the one door of ui/ and experiments/ into the engine: it names
    # (lazily) what they use from every floor, adapters such as the SQL store included.
    "surface": {"compose", "orchestration", "domain", "settings", "stages", "adapters"},
}


def floor_of(module: str) -> str:
    """The floor of a dotted module name inside `engine`."""
    parts = module.split(".")
    if parts == ["engine"]:
        return "surface"
    if parts[1] in {"domain", "errors"}:
        return "domain"
    if parts[1] in FLOORS:
        return parts[1]
    raise AssertionError(f"{module} lies on no floor: add its folder to FLOORS and the drawing")


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def engine_modules(root: Path) -> dict[str, Path]:
    return {module_name(path, root): path for path in sorted((root / "engine").rglob("*.py"))}


def imports_of(module: str, path: Path, known: Iterable[str]) -> set[str]:
    """The engine modules `module` imports, resolved to modules (`from a import b` names a.b
    when that is a module)."""
    known = set(known)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        else:
            continue
        for target in targets:
            resolved = target
            while resolved and resolved not in known:
                resolved = resolved.rpartition(".")[0]
            if resolved and resolved != module:
                found.add(resolved)
    return found


def import_graph(root: Path) -> dict[str, set[str]]:
    modules = engine_modules(root)
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def upward_imports(graph: Mapping[str, set[str]]) -> list[str]:
    wrong = []
    for module, targets in graph.items():
        floor = floor_of(module)
        for target in sorted(targets):
            if target == "engine":
                continue  # a package's own namespace, as `from engine import errors` reads it
            target_floor = floor_of(target)
            if target_floor != floor and target_floor not in FLOORS[floor]:
                wrong.append(f"{module} ({floor}) imports {target} ({target_floor})")
    return wrong


def reachable(graph: Mapping[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = list(graph.get(start, ()))
    while todo:
        node = todo.pop()
        if node not in seen:
            seen.add(node)
            todo.extend(graph.get(node, ()))
    return seen


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """Every group of nodes that reach each other (a strongly connected group of two or more),
    each sorted; quadratic, which is nothing for the engine's ~150 modules."""
    reach = {node: reachable(graph, node) for node in graph}
    groups: list[list[str]] = []
    placed: set[str] = set()
    for node in sorted(graph):
        if node in placed or node not in reach[node]:
            continue
        group = sorted(other for other in reach[node] if node in reach.get(other, set()))
        placed.update(group)
        groups.append(group)
    return groups


def folder_graph(graph: Mapping[str, set[str]]) -> dict[str, set[str]]:
    """Folders (packages) as nodes: an edge where any module of one imports one of the other."""

    def folder(module: str) -> str:
        # A module directly under `engine/` (compose, settings, errors) is a floor of its own.
        if module.count(".") <= 1:
            return module
        return module.rpartition(".")[0]

    folders: dict[str, set[str]] = {}
    for module, targets in graph.items():
        mine = folder(module)
        edges = folders.setdefault(mine, set())
        edges.update(folder(t) for t in targets if folder(t) != mine and t != "engine")
    return folders


def compose_importers(graph: Mapping[str, set[str]]) -> list[str]:
    return sorted(
        m for m, targets in graph.items() if "engine.compose" in targets and m != "engine"
    )


def test_every_arrow_points_down() -> None:
    assert upward_imports(import_graph(ROOT)) == []


def test_no_import_cycle_between_modules() -> None:
    assert cycles(import_graph(ROOT)) == []


def test_no_import_cycle_between_folders() -> None:
    assert cycles(folder_graph(import_graph(ROOT))) == []


def test_only_the_public_surface_imports_the_composition_root() -> None:
    assert compose_importers(import_graph(ROOT)) == []


# The checks above must be able to fail: each is shown a small tree with the fault it looks for.


def fake_engine(tmp_path: Path, files: Mapping[str, str]) -> Path:
    for name, text in {"engine/__init__.py": "", **files}.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (
            {"engine/domain/__init__.py": "", "engine/domain/records.py": "import engine.stages.x"},
            ["engine.domain.records (domain) imports engine.stages.x (stages)"],
        ),
        (
            {"engine/stages/x.py": "def f():\n    from engine.adapters import tool\n"},
            ["engine.stages.x (stages) imports engine.adapters.tool (adapters)"],
        ),
        (
            {"engine/adapters/y.py": "from ..orchestration import pipeline\n"},
            ["engine.adapters.y (adapters) imports engine.orchestration.pipeline (orchestration)"],
        ),
    ],
)
def test_an_upward_import_is_caught(
    tmp_path: Path, files: dict[str, str], expected: list[str]
) -> None:
    for name in ("stages/x", "adapters/tool", "orchestration/pipeline", "adapters/y"):
        files.setdefault(f"engine/{name}.py", "")
    root = fake_engine(tmp_path, files)
    assert upward_imports(import_graph(root)) == expected


def test_a_cycle_is_caught_between_modules_and_between_folders(tmp_path: Path) -> None:
    root = fake_engine(
        tmp_path,
        {
            "engine/stages/a.py": "from engine.stages import b\n",
            "engine/stages/b.py": "import engine.stages.a\n",
            "engine/adapters/llm/c.py": "from engine.adapters.tools import d\n",
            "engine/adapters/tools/d.py": "",
            "engine/adapters/tools/e.py": "from engine.adapters.llm.c import something\n",
        },
    )
    graph = import_graph(root)
    assert cycles(graph) == [["engine.stages.a", "engine.stages.b"]]
    assert cycles(folder_graph(graph)) == [["engine.adapters.llm", "engine.adapters.tools"]]


def test_importing_compose_from_inside_the_engine_is_caught(tmp_path: Path) -> None:
    root = fake_engine(
        tmp_path,
        {"engine/compose.py": "", "engine/orchestration/facade.py": "from engine import compose\n"},
    )
    graph = import_graph(root)
    assert compose_importers(graph) == ["engine.orchestration.facade"]
    assert "engine.orchestration.facade (orchestration) imports engine.compose (compose)" in (
        upward_imports(graph)
    )
