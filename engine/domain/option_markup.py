"""Markdown around an option's label, lifted; markdown left inside an option's text, refused.

A question written in markdown may set its labels in bold or italics and put each option under a
bullet: "- **A:** 3.5:1", "* *B)* 2.0:1", "**(C)** 1.5:1". The emphasis and the bullet are how
the label is shown, not part of it, so `plain_labels` lifts them before any reader looks; the
lettered reader then checks the labels' order and style as for any other block. Held-out set 9
had such a block read as two bulleted options whose texts began "**A:**".

Only emphasis that wraps a whole label with its mark (":", ".", ")", inside or just after) is
lifted: "**A** 3.5:1" has no mark to say where the label ends, and is left as written. Whatever
markup then stays in an option's text ("**A:** 3.5:1", "__A__ red") is not the asker's option,
and `holds_markup` refuses the reading; an option with emphasis of its own ("**bold**") is
refused too, which costs recall, never a choice whose text was never written.

>>> plain_labels("Which one?\\n- **A:** 3.5:1\\n- **B:** 2.0:1")
'Which one?\\nA: 3.5:1\\nB: 2.0:1'
>>> holds_markup(("**A:** 3.5:1", "2.0:1"))
True
"""

import re
from collections.abc import Sequence

__all__ = ["holds_markup", "plain_labels"]

_LABEL = r"\(?(?:[A-Za-z]|[1-9][0-9]?|[ivx]{1,4}|[IVX]{1,4})[).:]"
# At a line's start, an optional bullet, then a label in emphasis ("**A:**", "*A)*", "__(A)__",
# "**A**:"), or a bare label after a bullet ("- A. red"); then the option's text after a space.
_MARKED_LABEL = re.compile(
    r"(?m)^(?P<indent>[ \t]*)(?:[-*•+][ \t]+)?"
    rf"(?:(?P<mark>\*\*|__|\*|_)(?P<inside>{_LABEL})(?P=mark)"
    r"|(?P<mark2>\*\*|__|\*|_)(?P<bare>\(?(?:[A-Za-z]|[1-9][0-9]?)\)?)(?P=mark2)(?P<after>[).:])"
    rf"|(?<=[-*•+][ \t])(?P<plain>{_LABEL}))(?=[ \t])"
)
# Markup an option's own text never holds: bold ("**", "__"), or one "*" or "_" opening and
# closing a span of words ("*A)*"). "snake_case", "2 * 3" and "A*" hold none.
_MARKUP = re.compile(r"\*\*|__|(?<![\w*])\*[^*\s][^*\n]*\*(?![\w*])|(?<!\w)_[^_\s][^_\n]*_(?!\w)")


def _label(match: re.Match[str]) -> str:
    label = match.group("inside") or match.group("plain")
    if label is None:
        label = match.group("bare") + match.group("after")
    return match.group("indent") + label


def plain_labels(text: str) -> str:
    """`text` with the emphasis and bullets around its options' labels lifted."""
    return _MARKED_LABEL.sub(_label, text)


def holds_markup(texts: Sequence[str]) -> bool:
    """Whether an option's text still holds markdown, so it is not the text as the asker meant."""
    return any(_MARKUP.search(text) for text in texts)
