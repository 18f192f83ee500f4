"""One checker per BIG-bench task format: an answer is right when it matches any accepted target.

Formats (the `kind` of a public task):

- "choice": lettered options; right when the answer names an accepted letter or quotes the text
  of an accepted option (the engine's "choice" checker, run once per accepted letter);
- "numeric": every target an integer ("680", "-333"); the engine's "numeric" checker, so
  "Answer: 1,130" and "one thousand one hundred thirty" read as 1130;
- "sequence": every target a bracketed list of integers ("[2, 0]", "(4,3,2,3)", "[]"); right
  when the last bracketed list of the answer holds the same integers in the same order (the
  bracket's shape is not scored);
- "text": any other target ("helium", a sentence after an edit); right when a whole candidate
  (the "Answer:" value, the whole reply, or its last line, each with a leading label such as
  "Edited:" dropped) equals a target once quotes, bold markers and spacing are set aside. A
  short target (three words or fewer) also ignores case and a trailing period; a longer one does
  not, because there case and punctuation are often what the task asks to change.

>>> check_targets("Answer: B", ("B",), "choice", options=("Yes", "No"))
1.0
>>> check_targets("so the list is [2, 0]", ("[2, 0]",), "sequence")
1.0
>>> check_targets("Answer: Helium.", ("helium",), "text")
1.0
>>> check_targets("Answer: 681", ("680",), "numeric")
0.0
"""

import re
import unicodedata
from collections.abc import Sequence

from engine.domain.checkers import check_answer, extract_final_answer

__all__ = ["PUBLIC_KINDS", "check_targets", "kind_of_targets"]

PUBLIC_KINDS = ("choice", "numeric", "sequence", "text")

_INTEGER = re.compile(r"[-+]?\d+")
_SEQUENCE = re.compile(r"[\[(]\s*(?:[-+]?\d+\s*(?:,\s*[-+]?\d+\s*)*)?[\])]")
_MARKER = re.compile(
    r"(?:final\s+answer|answer)\s*(?:is\s*[:=]?|[:=])[ \t]*(?P<value>[^\n]*)", re.I
)
_LABEL = re.compile(r"^[A-Za-z]+(?: [A-Za-z]+)?:\s+")
_EDGES = " \t\"'`*"
_SHORT_WORDS = 3


def kind_of_targets(targets: Sequence[str]) -> str:
    """The format of exact-match targets: "numeric", "sequence" or "text".

    >>> kind_of_targets(["-333"]), kind_of_targets(["[]"]), kind_of_targets(["Louis"])
    ('numeric', 'sequence', 'text')
    """
    if not targets:
        raise ValueError("a task needs at least one target")
    if all(_INTEGER.fullmatch(target.strip()) for target in targets):
        return "numeric"
    if all(_SEQUENCE.fullmatch(target.strip()) for target in targets):
        return "sequence"
    return "text"


def check_targets(
    answer_text: str, targets: Sequence[str], kind: str, *, options: Sequence[str] | None = None
) -> float:
    """1.0 when `answer_text` matches any of `targets` under `kind` (see the module), else 0.0."""
    if not isinstance(answer_text, str):
        raise TypeError(f"answer text must be a string, got {type(answer_text).__name__}")
    if not targets:
        raise ValueError("a task needs at least one target")
    if kind in ("choice", "numeric"):
        scores = (check_answer(answer_text, t, kind, options=options) for t in targets)
        return max(scores)
    if kind == "sequence":
        return _check_sequence(answer_text, targets)
    if kind == "text":
        return _check_text(answer_text, targets)
    raise ValueError(f"unknown public task kind {kind!r}; expected one of {PUBLIC_KINDS}")


def _integers(sequence: str) -> list[int]:
    return [int(value) for value in _INTEGER.findall(sequence)]


def _check_sequence(answer_text: str, targets: Sequence[str]) -> float:
    marked = [m["value"] for m in _MARKER.finditer(answer_text.replace("**", ""))]
    # The "Answer:" line is where the templates put the answer; the working above it has lists.
    where = marked[-1] if marked and _SEQUENCE.search(marked[-1]) else answer_text
    found = _SEQUENCE.findall(where)
    if not found:
        return 0.0
    answer = _integers(found[-1])
    return 1.0 if any(_integers(target) == answer for target in targets) else 0.0


def _candidates(answer_text: str) -> list[str]:
    marked = [m["value"] for m in _MARKER.finditer(answer_text.replace("**", ""))]
    lines = [line for line in answer_text.strip().split("\n") if line.strip()]
    found = [*marked[-1:], answer_text, *lines[-1:]]
    extracted = extract_final_answer(answer_text) if answer_text.strip() else None
    if extracted is not None:
        found.append(extracted)
    return found + [_LABEL.sub("", candidate.strip()) for candidate in found]


def _form(text: str, short: bool) -> str:
    spaced = " ".join(unicodedata.normalize("NFKC", text).replace("**", "").split())
    cleaned = spaced.strip(_EDGES)
    if short:
        cleaned = cleaned.rstrip(".").strip(_EDGES).casefold()
    return cleaned


def _check_text(answer_text: str, targets: Sequence[str]) -> float:
    candidates = _candidates(answer_text)
    for target in targets:
        short = len(target.split()) <= _SHORT_WORDS
        wanted = _form(target, short)
        if wanted and any(_form(candidate, short) == wanted for candidate in candidates):
            return 1.0
    return 0.0
