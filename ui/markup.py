"""Text from users and models put into Markdown so that it stays text.

The playground's card shows a tool call as a code span, `calculator(<argument>)`, where the
argument comes from the user's query. A backtick in the query closed the span early and the rest
became Markdown and HTML (an `<img>` rendered; Gradio's sanitiser stopped scripts). A code span
per CommonMark (section 6.1) shows its content literally, HTML and Markdown included, as long as
its fence is longer than any run of backticks inside and no line break lets a block start:
`code_span` builds exactly that.
"""

import re

__all__ = ["code_span"]

_BACKTICKS = re.compile(r"`+")


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
