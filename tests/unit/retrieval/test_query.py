import pytest

from retrieval.errors import QueryError
from retrieval.query import (
    MAX_CACHED_CHARS,
    MAX_QUERY_CHARS,
    _cached_terms,
    content_words,
    fts_match_expression,
    validate_limit,
    validate_query,
)


@pytest.mark.parametrize("bad", ["", "   \n\t", None, 42, b"bytes"])
def test_empty_or_non_text_queries_are_refused(bad: object) -> None:
    with pytest.raises(QueryError):
        validate_query(bad)


def test_huge_query_is_refused_with_its_length() -> None:
    with pytest.raises(QueryError, match=str(MAX_QUERY_CHARS + 1)):
        validate_query("x" * (MAX_QUERY_CHARS + 1))


def test_query_error_is_also_a_value_error() -> None:
    with pytest.raises(ValueError, match="empty"):
        validate_query(" ")


@pytest.mark.parametrize("bad", [0, -1, True, 2.5, "5"])
def test_bad_limits_are_refused(bad: object) -> None:
    with pytest.raises(QueryError, match="limit"):
        validate_limit(bad)


def test_content_words_drop_question_scaffolding() -> None:
    assert content_words("What is the rule of 72?") == ["rule", "72"]


@pytest.mark.parametrize(
    "query", ['"unbalanced', "NEAR(a b)", "col:value", "a* OR -b", "'; DROP TABLE x; --"]
)
def test_fts_expression_quotes_every_term(query: str) -> None:
    expression = fts_match_expression(query)
    assert expression is not None
    assert all(part.startswith('"') and part.endswith('"') for part in expression.split(" OR "))


def test_fts_expression_is_none_without_words() -> None:
    assert fts_match_expression("?!  ...") is None


def test_content_words_are_read_once_and_each_caller_gets_its_own_list() -> None:
    _cached_terms.cache_clear()
    first = content_words("How many days are in a leap year?")
    first.append("changed")
    assert content_words("How many days are in a leap year?") == ["days", "leap", "year"]
    assert content_words("How many days are in a leap year?", limit=2) == ["days", "leap"]
    assert _cached_terms.cache_info().hits == 2


def test_a_long_text_has_its_content_words_read_without_the_cache() -> None:
    _cached_terms.cache_clear()
    text = "leap years " * (MAX_CACHED_CHARS // 11 + 1)
    assert content_words(text, limit=None) == ["leap", "years"]
    assert _cached_terms.cache_info().currsize == 0
