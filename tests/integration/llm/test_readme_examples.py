"""Every README example with an expected answer scores right on the embedded model.

The examples are read from README.md itself (`thinkpath ask "..." --expected X`, the REST
example's `"query"` with its `"expected_answer"`, and the Python example's checker), so the test
follows the README. Each runs through every built-in reasoning path (`force_path`), since a new
user's first question may take any of them; the embedded model loads once for the module.
"""

import re
from pathlib import Path

import pytest

from engine.compose import build_engine
from engine.domain.checkers import checker_for
from engine.orchestration.facade import Engine
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


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    home = tmp_path_factory.mktemp("readme-home")
    return build_engine(Settings(home=home, store_url="memory", policy_seed=1))


@pytest.mark.parametrize(("query", "expected"), readme_examples())
def test_each_readme_example_scores_right_on_every_path(
    engine: Engine, query: str, expected: str
) -> None:
    checker = checker_for(expected)
    wrong = {}
    for path in engine.templates():
        decision = engine.decide(query, checker=checker, force_path=path.arm_id)
        scores = [o.reward for o in decision.outcomes if o.source == "checker"]
        if scores != [1.0]:
            wrong[path.arm_id] = decision.answer
    assert not wrong, wrong
