"""Every README example with an expected answer scores right on the embedded model.

The examples are read from README.md itself (`thinkpath ask "..." --expected X`, the REST
example's `"query"` with its `"expected_answer"`, and the Python example's checker), so the test
follows the README. Each is a new user's first question: a fresh engine, its own choice of path
and tool. (Forced through each of the 13 built-in paths in turn, "What is 17 * 23?" scored right
on 11: `systematic_decomposition` wrote its own "17 * 23 = 347" and `worked_example` copied its
example's "Answer: 7", both ignoring the calculator's 391; a path that answers from a tool result
that read the whole question is the cure, and belongs to the tools.)
"""

import re
from pathlib import Path

import pytest

from engine.compose import build_engine
from engine.domain.checkers import checker_for
from engine.settings import Settings

pytestmark = pytest.mark.slow

README = Path(__file__).parents[3] / "README.md"
_EXAMPLES = [
    re.compile(r'thinkpath ask "(?P<query>[^"]+)" --expected (?P<expected>\S+)'),
    re.compile(r'"query": "(?P<query>[^"]+)", "expected_answer": "(?P<expected>[^"]+)"'),
    re.compile(r'decide\("(?P<query>[^"]+)", checker=lambda \w+: float\("(?P<expected>[^"]+)" in'),
]


def readme_examples() -> list[tuple[str, str]]:
    text = README.read_text(encoding="utf-8")
    found = {
        (match["query"], match["expected"])
        for pattern in _EXAMPLES
        for match in pattern.finditer(text)
    }
    return sorted(found)


def test_the_readme_has_examples_with_expected_answers() -> None:
    assert ("What is 17 * 23?", "391") in readme_examples()
    assert ("What is 6 * 7?", "42") in readme_examples()


@pytest.mark.parametrize(("query", "expected"), readme_examples())
def test_each_readme_example_scores_right_as_a_first_question(
    tmp_path: Path, query: str, expected: str
) -> None:
    engine = build_engine(Settings(home=tmp_path, store_url="memory"))
    decision = engine.decide(query, checker=checker_for(expected))
    scores = [o.reward for o in decision.outcomes if o.source == "checker"]
    assert scores == [1.0], (decision.path.arm_id, decision.tool_run, decision.answer)
