"""pint and quantulum3, loaded once per process, and the unit names pint reads.

Both libraries take seconds to load (3-4 s of CPU together, most of it inflect, which
quantulum3's parser imports and whose typeguard decorators rewrite its code), so nothing here
loads them on import. A service loads them while it starts (`catalog.load_tool_libraries`), so
that no user waits for them: a fresh service's first unit question once waited 25 s for them on
a busy machine, with no model call. Elsewhere the first conversion of a process pays for them:
the units tool loads them in its `prepare()`, which the tool registry runs before the first
deadline starts (the load took 17 s of wall time on a busy machine, past the 10 s
`THINKPATH_TOOL_TIMEOUT_S`). The word-problem reader (rates over time units) shares them through
this module; its first rate question in a process may still meet the deadline while they load.
"""

import contextlib
import functools
import re
import sys
import threading
import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from engine.errors import ToolRefusalError

if TYPE_CHECKING:
    import pint

__all__ = ["SCALES", "free", "how_many", "libraries", "lock", "parse_unit"]

# Why these rules stay: pint reads "F" and "C" as farad and coulomb, and "degrees Celsius" as an
# angle times a temperature difference; after "degree(s)" a person means the scale.
_DEGREES = re.compile(
    r"^(?:deg(?:ree)?s?\.?\s+|°\s*)(?=celsius|centigrade|fahrenheit|kelvin|[cfk]$)", re.IGNORECASE
)
SCALES = {"c": "degC", "f": "degF", "k": "kelvin", "centigrade": "degC"}

lock = threading.RLock()  # pint and quantulum3 do not promise thread safety; conversions are quick
_loaded: dict[str, Any] = {}


def libraries() -> tuple["pint.UnitRegistry[float]", Any]:
    """pint's registry and quantulum3's parser, loaded on first use and kept for the process."""
    with lock:
        if not _loaded:
            import pint  # noqa: PLC0415 - slow imports, kept off the engine's import path

            with warnings.catch_warnings():
                # Without scikit-learn, quantulum3 warns on import that its classifier is
                # missing; it is turned off below either way.
                warnings.filterwarnings("ignore", message="Classifier dependencies not installed")
                with _without_scikit_learn():
                    import quantulum3.classifier  # noqa: PLC0415

            # The classifier needs a model pickled by another scikit-learn version (it warns
            # and may misread); the rule-based disambiguation is deterministic and offline.
            quantulum3.classifier.USE_CLF = False
            from quantulum3 import parser  # noqa: PLC0415

            registry: pint.UnitRegistry[float] = pint.UnitRegistry(cache_folder=None)  # no files
            # quantulum3 imports its language's parser on the first parse, and with it inflect,
            # whose typeguard decorators rewrite and compile its code: 5-10 s of CPU that the
            # first conversion of a process paid inside its deadline. One parse here pays it.
            parser.parse("1 metre")
            format(registry.parse_units("metre"), "P")  # pint's formatter, likewise on first use
            _loaded["pint"], _loaded["parser"] = registry, parser
        return _loaded["pint"], _loaded["parser"]


@contextlib.contextmanager
def _without_scikit_learn() -> Iterator[None]:
    """scikit-learn reads as not installed inside the block, unless the process has it already.

    Why: quantulum3's classifier module imports scikit-learn when it can (1.5-2 s of CPU, a third
    of the libraries' load), for a classifier that `libraries` turns off; quantulum3 reads a
    failed import as "not installed" and goes on without it. A None in `sys.modules` makes the
    import fail (Python's documented rule); it is taken out again after. The window is one import
    on the thread that loads the libraries; another thread importing scikit-learn inside it
    would fail, and none of the engine's does.
    """
    if "sklearn" in sys.modules:
        yield
        return
    sys.modules["sklearn"] = None  # type: ignore[assignment]
    try:
        yield
    finally:
        if "sklearn" in sys.modules and sys.modules["sklearn"] is None:
            del sys.modules["sklearn"]


def free() -> bool:
    """Whether both libraries are loaded and no other thread holds them at this moment.

    Why: a conversion may run on its caller's thread only where it can neither load the
    libraries (seconds) nor wait behind another thread's call (one past its deadline may never
    end); `units.precheck` asks here.
    """
    if not _loaded or not lock.acquire(blocking=False):
        return False
    lock.release()
    return True


@functools.lru_cache(maxsize=1024)
def parse_unit(text: str) -> "pint.Unit":
    """The unit `text` names, by pint; `ToolRefusalError` when it names none or several.

    Kept per text (a refusal is not kept: it raises again): the same few unit names come back
    question after question, pint takes a tenth of a millisecond or more to try their spellings,
    and the registry, loaded once per process, gives a name the same unit every time. A `Unit`
    is immutable, so one may be handed to every caller.
    """
    registry, _ = libraries()
    name = text.strip().rstrip(",")
    scale = _DEGREES.sub("", name)
    name = SCALES.get(scale.lower(), scale) if scale != name else name
    spaced = name.replace(" ", "_")
    candidates = [name, name.lower(), spaced, spaced.lower(), re.sub(r"s$", "", spaced.lower())]
    for candidate in dict.fromkeys(candidates):
        if re.search(r"\s", candidate) and not re.search(r"\b(?:per|square|cubic)\b", candidate):
            continue  # a space would make pint multiply two words: "fluid ounces", "the metres"
        try:
            unit = registry.parse_units(candidate)
        except Exception:
            continue
        return unit
    raise ToolRefusalError(f"{text.strip()!r} is not a unit pint knows")


def how_many(unit: str, span: str) -> float:
    """How many `unit`s one `span` is, by pint: `how_many("day", "week")` is 7.0."""
    registry, _ = libraries()
    with lock:
        return float(registry.Quantity(1, parse_unit(span)).to(parse_unit(unit)).magnitude)
