"""Search tools: passages framed as numbered, cited quotations; bad queries refused."""

import pytest

from engine.adapters.tools import local_search_tool, web_search_tool
from engine.errors import ToolError
from retrieval.port import Passage


class Shelf:
    """An in-memory searcher that records its queries."""

    def __init__(self, passages: list[Passage]) -> None:
        self.passages = passages
        self.queries: list[tuple[str, int]] = []

    def search(self, query: str, limit: int = 5) -> list[Passage]:
        self.queries.append((query, limit))
        return self.passages  # deliberately ignores the limit: the tool must enforce it


def test_passages_are_numbered_with_sources_and_limited() -> None:
    shelf = Shelf(
        [
            Passage("Paris is the\ncapital of France.", "atlas.md#france", "France"),
            Passage("Berlin is the capital of Germany.", "atlas.md#germany"),
            Passage("Rome is the capital of Italy.", "atlas.md#italy", "Italy"),
        ]
    )
    tool = local_search_tool(shelf, limit=2)
    assert tool.name == "local_search"
    assert tool.run("  capital   of\nFrance ") == (
        "[1] France (atlas.md#france)\nParis is the capital of France.\n\n"
        "[2] (atlas.md#germany)\nBerlin is the capital of Germany."
    )
    assert shelf.queries == [("capital of France", 2)]


def test_long_passages_are_cut_at_a_word() -> None:
    tool = web_search_tool(Shelf([Passage("word " * 500, "https://example.org")]))
    body = tool.run("words").splitlines()[1]
    assert body.endswith(" ...")
    assert len(body) <= 600 + 4
    assert tool.name == "web_search"


def test_no_results_is_said_plainly() -> None:
    assert local_search_tool(Shelf([])).run("nothing") == "No results for 'nothing'."


@pytest.mark.parametrize(("query", "message"), [("   ", "empty"), ("x " * 200, "longer than 300")])
def test_bad_queries_are_refused_before_searching(query: str, message: str) -> None:
    shelf = Shelf([])
    with pytest.raises(ToolError, match=message):
        local_search_tool(shelf).run(query)
    assert shelf.queries == []


def test_standard_tools_offer_a_search_tool_per_searcher_given() -> None:
    from engine.adapters.tools import ToolRegistry, standard_tools

    offline = ["calculator", "units", "text", "numbers", "program"]
    assert [t.name for t in standard_tools()] == offline
    both = standard_tools(local_searcher=Shelf([]), web_searcher=Shelf([]))
    assert ToolRegistry(both, allowed=["local_search"]).names() == ["none", "local_search"]
    assert [t.name for t in both] == [*offline, "local_search", "web_search"]
