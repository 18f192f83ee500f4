"""`python -m experiments.referee_check`: its arguments, and its report with a scripted model."""

import json
from pathlib import Path

import pytest

from engine.adapters.llm.scripted import ScriptedLLM
from engine.domain.records import LLMRequest
from experiments.bigbench.suite import bigbench_suite
from experiments.heldout import heldout_suite
from experiments.referee_check import main, parser, suite_of

WRONG = "Answer: no-such-answer"
TEMPLATES = "direct_answer,spell_it_out"
TASKS = (*heldout_suite(1, 2).tasks, *bigbench_suite(2).tasks)  # what the tests below judge


def script(request: LLMRequest) -> str:
    """Right only under `direct_answer` (the bare question and `spell_it_out` get `WRONG`); an
    honest referee: 4 for an answer that is not `WRONG`, 0 for one that is."""
    text = request.messages[-1].content
    if request.purpose == "referee":
        return json.dumps({"score": 0 if WRONG in text else 4, "reason": "compared"})
    if "Give only the answer" not in text:
        return WRONG
    task = next(t for t in TASKS if t.query in text)
    return f"Answer: {task.expected}"


def report(tmp_path: Path, capsys: pytest.CaptureFixture[str], *arguments: str) -> str:
    llm = ScriptedLLM(script)
    argv = ["--home", str(tmp_path), "--per-family", "2", "--templates", TEMPLATES, *arguments]
    assert main(argv, llm=llm) == 0
    assert llm.requests, "the injected model answered"
    return capsys.readouterr().out


def test_the_held_out_suite_is_the_default_and_families_narrow_it() -> None:
    args = parser().parse_args(["--home", "h", "--families", " word_length, arithmetic_phrased"])
    assert args.suite == "heldout"
    assert args.families == ("word_length", "arithmetic_phrased")
    assert suite_of(args) == heldout_suite(1, 7, ["word_length", "arithmetic_phrased"])
    everything = parser().parse_args(["--home", "h", "--suite", "bigbench", "--per-family", "3"])
    assert suite_of(everything) == bigbench_suite(3)


def test_each_family_gets_the_referees_agreement_and_auc(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = report(tmp_path, capsys, "--families", "arithmetic_phrased,word_length")
    # 2 families x 2 tasks x 3 answers (bare and two templates), one verdict each
    assert "Valid verdicts: 12 of 12 (100.0%)" in out
    for family in ("arithmetic_phrased", "word_length"):
        assert f"| {family} | 6 | 100% | 1.00 | 1.00 | 0.00 |" in out
    assert "| all | 12 | 100% | 1.00 |" in out
    assert "letters_phrased" not in out


def test_the_bigbench_suite_is_judged_family_by_family(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    families = ("anachronisms", "list_functions")
    out = report(tmp_path, capsys, "--suite", "bigbench", "--families", ",".join(families))
    for family in families:
        assert f"| {family} | 6 | 100% | 1.00 |" in out
    assert "| all | 12 |" in out


def test_answers_and_verdicts_come_from_the_cache_the_second_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = report(tmp_path, capsys, "--families", "word_length")
    again = ScriptedLLM(script)
    argv = ["--home", str(tmp_path), "--per-family", "2", "--templates", TEMPLATES]
    assert main([*argv, "--families", "word_length"], llm=again) == 0
    assert again.requests == []
    assert capsys.readouterr().out == first


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--families", "no_such_family"], "unknown held-out families"),
        (["--suite", "bigbench", "--families", "word_length"], "unknown BIG-bench families"),
        (["--suite", "bigbench", "--per-family", "31"], "per_family must be between 1 and 30"),
        (["--suite", "elsewhere"], "invalid choice"),
        (["--templates", "direct_answer,no_such_template"], "unknown templates"),
    ],
)
def test_bad_arguments_are_refused_before_any_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], message: str
) -> None:
    llm = ScriptedLLM(script)
    with pytest.raises(SystemExit) as stopped:
        main(["--home", str(tmp_path), *arguments], llm=llm)
    assert stopped.value.code == 2
    assert message in capsys.readouterr().err
    assert llm.requests == []
