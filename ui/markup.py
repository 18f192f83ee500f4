"""Text from users and models put into Markdown so that it stays text.

The playground's card shows a tool call as a code span, `calculator(<argument>)`, where the
argument comes from the user's query. A backtick in the query closed the span early and the rest
became Markdown and HTML (an `<img>` rendered; Gradio's sanitiser stopped scripts). A code span
per CommonMark (section 6.1) shows its content literally, HTML and Markdown included, as long as
its fence is longer than any run of backticks inside and no line break lets a block start:
`code_span` builds exactly that.

A model's answer is text too: "1. First," made a numbered list and "**" bold. `plain_text`
escapes it so Markdown shows every character as written. `quoted` and `clip` keep quoted text
readable: quotes that do not nest, and a cut at a word, never inside one.
"""

import re

__all__ = ["clip", "code_span", "plain_text", "quoted"]

_BACKTICKS = re.compile(r"`+")
# CommonMark lets a backslash escape any ASCII punctuation (section 2.4): escaped, it is text.
_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
_QUOTES = "\"'“”‘’"


def code_span(text: str) -> str:
    """A Markdown code span that shows `text` literally, whatever backticks or markup it holds.

    Line breaks become spaces (a code span is one line; a blank line would end the paragraph and
    free the rest); the fence is one backtick longer than the longest run inside; a space pads
    both ends when the text starts or ends with a backtick or a space (CommonMark strips one
    space from each end).

    >>> code_span("calculator(2 * 3)")
    '`calculator(2 * 3)`'
    >>> code_span("a`b")
    '``a`b``'
    >>> code_span("`<img src=x>`")
    '`` `<img src=x>` ``'
    >>> code_span("two\\n\\nlines")
    '`two  lines`'
    """
    flat = " ".join(text.splitlines())
    if not flat:
        return "` `"
    longest = max((len(run) for run in _BACKTICKS.findall(flat)), default=0)
    fence = "`" * (longest + 1)
    if flat[0] in "` " or flat[-1] in "` ":
        flat = f" {flat} "
    return f"{fence}{flat}{fence}"


def plain_text(text: str) -> str:
    """Markdown that shows `text` as written: no lists, emphasis, headings, links or HTML, and
    its line breaks kept (hard breaks; a blank line stays a paragraph break).

    >>> print(plain_text("1. Add *both*"))
    1\\. Add \\*both\\*
    """
    lines = []
    for line in text.splitlines():
        escaped = _PUNCTUATION.sub(r"\\\1", line)
        body = escaped.lstrip(" ")
        # No-break spaces keep the indent without making an indented code block.
        lines.append("\xa0" * (len(escaped) - len(body)) + body)
    return "  \n".join(lines).replace("  \n  \n", "\n\n")


def clip(text: str, limit: int, *, keep_end: bool = False) -> str:
    """`text` on one line, cut to about `limit` characters at a space, with "..." where cut;
    `keep_end` keeps the end instead (a stream's latest words).

    >>> clip("the quick brown fox jumps", 12)
    'the quick...'
    >>> clip("the quick brown fox jumps", 12, keep_end=True)
    '...fox jumps'
    """
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    if keep_end:
        tail = flat[-limit:]
        return "..." + (tail.split(" ", 1)[1] if " " in tail else tail)
    head = flat[: limit + 1]
    return (head.rsplit(" ", 1)[0] if " " in head else flat[:limit]) + "..."


def quoted(text: str) -> str:
    """`text` in double quotes, one pair of its own surrounding quotes taken off and inner
    double quotes made single, so quotes never nest.

    >>> print(quoted('"The answer is "42""'))
    "The answer is '42'"
    """
    inner = text.strip()
    if len(inner) >= 2 and inner[0] in _QUOTES and inner[-1] in _QUOTES:
        inner = inner[1:-1].strip()
    for mark in '"\u201c\u201d':
        inner = inner.replace(mark, "'")
    return f'"{inner}"'
