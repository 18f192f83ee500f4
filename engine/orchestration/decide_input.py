"""What `Engine.decide` checks before any work: the query, who set the checker, the decision's
id, the options, and a forced path that must fit them. Each refusal is an `InvalidQueryError`
(or `UnknownArmError`) naming what is wrong, raised before a kind is found or a model called.
"""

import re
from collections.abc import Callable, Sequence

from engine.domain import evidence
from engine.domain.options import NoOptions, Options, given_options, understand_options
from engine.domain.procedures import OPTION_PROCEDURES
from engine.errors import InvalidQueryError, UnknownArmError

__all__ = ["MAX_QUERY_CHARS", "check_forced", "check_query", "checked_source", "offered_options"]

MAX_QUERY_CHARS = 8000
_DECISION_ID = re.compile(r"[A-Za-z0-9_.-]{1,64}")


def check_query(query: object) -> str:
    """The query, stripped; refused when it is not text, empty or too long."""
    if not isinstance(query, str):
        raise InvalidQueryError(f"the query must be text, got {type(query).__name__}")
    text = query.strip()
    if not text:
        raise InvalidQueryError("the query is empty")
    if len(text) > MAX_QUERY_CHARS:
        raise InvalidQueryError(
            f"the query has {len(text)} characters; the limit is {MAX_QUERY_CHARS}"
        )
    return text


def checked_source(checked_by: str | None, *, has_checker: bool) -> str | None:
    """The client source whose expected answer the checker holds, normalised."""
    if checked_by is None:
        return None
    if not has_checker:
        raise InvalidQueryError("checked_by names who gave the checker: give a checker")
    return evidence.client_source(checked_by)


def check_decision_id(decision_id: str | None) -> None:
    if decision_id is not None and not _DECISION_ID.fullmatch(decision_id):
        raise InvalidQueryError(
            f"decision_id {decision_id!r} must be 1-64 letters, digits, '.', '_' or '-'"
        )


def offered_options(query: str, options: Sequence[str] | None) -> Options | NoOptions:
    """The options a client gave (checked), else those the question offers, else why none."""
    return given_options(options) if options is not None else understand_options(query)


def check_forced(
    force_path: str,
    live: Sequence[str],
    procedure_of: Callable[[str], str],
    offered: Options | NoOptions,
    *,
    given: bool,
) -> None:
    """A forced path must be live, and fit the options: one that writes free text cannot
    answer options a client gave, one that answers with an option needs options."""
    if force_path not in live:
        raise UnknownArmError(
            f"no live path {force_path!r} to force; the live paths are {', '.join(live)}"
        )
    chooses = procedure_of(force_path) in OPTION_PROCEDURES
    if given and not chooses:
        raise InvalidQueryError(
            f"the path {force_path!r} writes free text, which could fall outside the options "
            "given: force a path that answers with an option, or give no options"
        )
    if isinstance(offered, NoOptions) and chooses:
        raise InvalidQueryError(
            f"the path {force_path!r} answers with one of the question's options, and this "
            f"question offers none ({offered.reason}): give options"
        )
