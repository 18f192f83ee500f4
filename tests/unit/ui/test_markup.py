"""A query put in a code span stays a code span, whatever backticks and markup it holds.

Rendered with markdown-it (CommonMark, as Gradio's Markdown reads code spans): the whole text
must come back inside one `<code>` element, escaped, and nothing else may become markup.
"""

import html

import pytest
from markdown_it import MarkdownIt

from ui.markup import code_span

COMMONMARK = MarkdownIt("commonmark")

HOSTILE = [
    "17 * 23",
    "x` <img src=x onerror=alert(1)> `y",
    "`<img src=x>`",
    "``` fenced ```",
    "a ` b `` c ``` d",
    "two\n\n# heading\n<img src=x>",
    " padded ",
    "**bold** _em_ [link](javascript:alert(1))",
    "`",
    "",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_the_whole_text_stays_inside_one_code_element(text: str) -> None:
    rendered = COMMONMARK.render(f"- `calculator` ran on {code_span(text)} fine")
    shown = " ".join(text.splitlines()) or " "
    assert rendered == (
        f"<ul>\n<li><code>calculator</code> ran on <code>{html.escape(shown, quote=True)}</code>"
        " fine</li>\n</ul>\n"
    )


def test_a_plain_code_span_would_have_broken_out() -> None:
    # What the card did before: the backtick closes the span and the image is markup.
    rendered = COMMONMARK.render("`calculator(x` <img src=x onerror=alert(1)> `)`")
    assert "<img" in rendered
