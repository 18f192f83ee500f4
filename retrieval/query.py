"""Query checks and the words that matter in a text: the one place that says what a term is.

Retrieval (keyword search, multi-query gathering) and the engine (the seed check's relevance,
the seed's keyword rebuild, the in-memory test searcher) all use `content_words`, so a term
means the same thing wherever it is counted.
"""

import functools
import re

from retrieval.errors import QueryError

MAX_QUERY_CHARS = 2000
_WORD = re.compile(r"[^\W_]+(?:['.][^\W_]+)*", re.UNICODE)

# Function words and question scaffolding: they match everywhere and so rank nothing.
_STOPWORD_TEXT = """
a an and are as at be been being but by can could did do does doing for from had has have
how i if in into is it its me my of on or our so than that the their them then there these
they this those to too us was we were what when where which while who whom why will with
would you your yours please tell explain give find show about any some much many get got
should shall may might must just also very let lets let's need want know
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def validate_query(query: object, *, max_chars: int = MAX_QUERY_CHARS) -> str:
    """Return the query with surrounding whitespace removed, or raise `QueryError` saying why.

    >>> validate_query("  days between dates ")
    'days between dates'
    """
    if not isinstance(query, str):
        raise QueryError(f"query must be a string, got {type(query).__name__}")
    text = query.strip()
    if not text:
        raise QueryError("query is empty")
    if len(text) > max_chars:
        raise QueryError(f"query is {len(text)} characters long; the limit is {max_chars}")
    return text


def validate_limit(limit: object) -> int:
    """Return `limit` if it is a positive int, else raise `QueryError`."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise QueryError(f"limit must be a positive integer, got {limit!r}")
    return limit


def words(text: str) -> list[str]:
    """Lower-cased word tokens (letters and digits; inner apostrophes and dots kept).

    >>> words("What's 3.5 km in miles?")
    ["what's", '3.5', 'km', 'in', 'miles']
    """
    return [match.group(0).lower() for match in _WORD.finditer(text)]


def content_words(text: str, *, limit: int | None = 12) -> list[str]:
    """The distinct non-stopwords of `text` in order of first appearance, at most `limit`.

    A one-character word is no topic: "x", "b", or the 3 of "3 + 4", which matches any
    passage with a 3 in it.

    >>> content_words("How many days are there between March 3 and April 17?")
    ['days', 'between', 'march', 'april', '17']
    >>> content_words("Is x in the set {a, b}?")
    ['set']
    """
    if type(text) is str and len(text) <= MAX_CACHED_CHARS:
        return list(_cached_terms(text)[:limit])
    return list(_terms(text)[:limit])


# Texts up to this long have their terms cached; longer ones (a pasted document) are rarely read
# twice, and 1,024 of them would hold megabytes.
MAX_CACHED_CHARS = 4000


# Why a cache: one decision reads the terms of the same texts again and again (its query for
# each search and each check, every passage for the searcher, the relevance check and the brief
# check), and an index serves the same passages to query after query. The terms are a pure
# function of the text; the tuple is immutable, and each caller gets a list of its own.
@functools.lru_cache(maxsize=1024)
def _cached_terms(text: str) -> tuple[str, ...]:
    return _terms(text)


def _terms(text: str) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for word in words(text):
        if word in STOPWORDS or len(word) == 1:
            continue
        seen.setdefault(word, None)
    return tuple(seen)


def keyword_query(text: str) -> str:
    """The content words alone: a second query that keyword backends match better.

    >>> keyword_query("How many days are in a leap year?")
    'days leap year'
    """
    return " ".join(content_words(text, limit=None))


def fts_match_expression(text: str, *, limit: int = 24) -> str | None:
    """An FTS5 MATCH expression that ORs the query's content words, each quoted.

    Quoting makes every word a literal string, so FTS5 syntax in the query (`NEAR`, `*`, `:`,
    unbalanced quotes) can never raise or change the meaning. None when no word is left.

    >>> fts_match_expression('ignore "quotes" AND col:x')
    '"ignore" OR "quotes" OR "col"'
    """
    terms = content_words(text, limit=limit) or words(text)[:limit]
    terms = [term.replace('"', '""') for term in terms if term.lower() not in {"and", "or", "not"}]
    if not terms:
        return None
    return " OR ".join(f'"{term}"' for term in terms)
