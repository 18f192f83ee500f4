"""A second, independent retrieval corpus: the docstrings of 40 Python standard-library modules.

ThinkPath's own corpus (retrieval/corpus/) is short notes on reasoning, and the hybrid fusion was
first chosen on queries over it. This corpus is documentation the project was never tuned on:
one Markdown file per module, `# <module>` with the module docstring, then `## <name>` per public
function or class (and `## <Class>.<method>` per public method), each holding the docstring as
Python prints it (`inspect.getdoc`). It is written from the running interpreter, so it is offline
and reproducible for one Python version; the labelled queries beside it
(`retrieval_stdlib_labelled.json`) record the version they were labelled on.

    python -m experiments.benchmarks.stdlib_corpus /tmp/stdlib-docs   # write it, print a count
"""

import importlib
import inspect
import sys
from pathlib import Path

# Modules chosen for breadth (files, text, data formats, networking, concurrency, numbers), none
# about the reasoning topics of ThinkPath's own corpus. Private and deprecated modules are left out.
MODULES = (
    "argparse",
    "base64",
    "bisect",
    "calendar",
    "collections",
    "contextlib",
    "csv",
    "dataclasses",
    "difflib",
    "fnmatch",
    "fractions",
    "functools",
    "glob",
    "gzip",
    "hashlib",
    "heapq",
    "hmac",
    "html",
    "ipaddress",
    "json",
    "logging",
    "os.path",
    "pathlib",
    "pprint",
    "queue",
    "random",
    "secrets",
    "shlex",
    "shutil",
    "sqlite3",
    "statistics",
    "string",
    "subprocess",
    "tarfile",
    "tempfile",
    "textwrap",
    "threading",
    "urllib.parse",
    "uuid",
    "zipfile",
)
LABEL = "stdlib"


def _public(module: object) -> list[tuple[str, object]]:
    """Public functions and classes defined in (or exported by) `module`, in name order."""
    exported = getattr(module, "__all__", None)
    names = sorted(exported) if exported else sorted(dir(module))
    own = {module.__name__, "_" + module.__name__.rsplit(".", 1)[-1]}  # type: ignore[attr-defined]
    members: list[tuple[str, object]] = []
    for name in names:
        if name.startswith("_"):
            continue
        member = getattr(module, name, None)
        if not (inspect.isclass(member) or inspect.isroutine(member)):
            continue
        # Without __all__, keep only what the module defines, itself or in its C accelerator
        # (bisect's functions live in _bisect), not what it imports.
        home = getattr(member, "__module__", None)
        if not exported and home not in own:
            continue
        members.append((name, member))
    return members


def _escape(doc: str) -> str:
    """Escape docstring lines that start with '#', which would otherwise open a new section."""
    return "\n".join(
        f"\\{line.lstrip()}" if line.lstrip().startswith("#") else line for line in doc.split("\n")
    ).strip()


def _section(heading: str, doc: str | None) -> str:
    """A Markdown section, or '' when there is no docstring."""
    if not doc or not doc.strip():
        return ""
    return f"## {heading}\n\n{_escape(doc)}\n"


def module_markdown(name: str) -> str:
    """The Markdown page of one module: its docstring, then one section per public member."""
    module = importlib.import_module(name)
    parts = [f"# {name}\n\n{_escape(inspect.getdoc(module) or name)}\n"]
    for member_name, member in _public(module):
        parts.append(_section(member_name, inspect.getdoc(member)))
        if inspect.isclass(member):
            for method_name, method in sorted(vars(member).items()):
                if method_name.startswith("_") or not inspect.isroutine(method):
                    continue
                doc = inspect.getdoc(getattr(member, method_name))
                parts.append(_section(f"{member_name}.{method_name}", doc))
    return "\n".join(part for part in parts if part)


def write_stdlib_corpus(folder: Path) -> int:
    """Write one `<module>.md` per module into `folder`; return the number of files."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in MODULES:
        (folder / f"{name}.md").write_text(module_markdown(name), encoding="utf-8")
    return len(MODULES)


def python_version() -> str:
    """The interpreter's major.minor version, which fixes the docstrings' text."""
    return f"{sys.version_info.major}.{sys.version_info.minor}"


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "stdlib-docs")
    print(f"wrote {write_stdlib_corpus(target)} files to {target} (Python {python_version()})")
