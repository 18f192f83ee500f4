"""Search tools: a `Searcher` (local index or web) offered to the answer stage as a tool.

The passages are untrusted text, so the output frames them as numbered quotations with their
sources; the answer prompt shows them as data, never as instructions.
"""

from dataclasses import dataclass

from engine.errors import ToolError
from retrieval.port import Passage, Searcher

__all__ = ["SearchTool", "local_search_tool", "web_search_tool"]

MAX_QUERY_CHARS = 300


@dataclass(frozen=True)
class SearchTool:
    """Runs a search and returns the top passages, each cut to `max_passage_chars`.

    A `RetrievalError` from the searcher propagates, and the registry records it as this tool's
    failure. The searcher bounds its own time (network or index timeouts): see the registry.

    >>> class Shelf:
    ...     def search(self, query: str, limit: int = 5) -> list[Passage]:
    ...         return [Passage("Paris is the capital of France.", "atlas.md#france", "France")]
    >>> print(SearchTool(Shelf(), "local_search", "Searches the shelf.").run("capital of France"))
    [1] France (atlas.md#france)
    Paris is the capital of France.
    """

    searcher: Searcher
    name: str
    description: str
    limit: int = 3
    max_passage_chars: int = 600

    def run(self, argument: str) -> str:
        query = " ".join(argument.split())
        if not query:
            raise ToolError("the search query is empty")
        if len(query) > MAX_QUERY_CHARS:
            raise ToolError(f"the search query is longer than {MAX_QUERY_CHARS} characters")
        passages = self.searcher.search(query, limit=self.limit)[: self.limit]
        if not passages:
            return f"No results for {query!r}."
        return "\n\n".join(
            self._format(number, passage) for number, passage in enumerate(passages, 1)
        )

    def _format(self, number: int, passage: Passage) -> str:
        text = " ".join(passage.text.split())
        if len(text) > self.max_passage_chars:
            text = text[: self.max_passage_chars].rsplit(" ", 1)[0] + " ..."
        heading = (
            f"[{number}] {passage.title} ({passage.source})"
            if passage.title
            else (f"[{number}] ({passage.source})")
        )
        return f"{heading}\n{text}"


def local_search_tool(searcher: Searcher, limit: int = 3) -> SearchTool:
    """The local-index search tool (named "local_search")."""
    return SearchTool(
        searcher=searcher,
        name="local_search",
        description="Searches the local document index; give it a few keywords.",
        limit=limit,
    )


def web_search_tool(searcher: Searcher, limit: int = 3) -> SearchTool:
    """The web search tool (named "web_search"); fails cleanly when offline."""
    return SearchTool(
        searcher=searcher,
        name="web_search",
        description="Searches the web for recent or missing facts; give it a few keywords.",
        limit=limit,
    )
