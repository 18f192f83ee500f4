"""Early stops of free text: the answer line, loops; and the local adapter applying them."""

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from engine.adapters.llm.local_model import LocalModels
from engine.adapters.llm.local_settings import LocalModelSettings
from engine.domain.stopping import (
    answer_line_done,
    repetition_start,
    should_stop,
    trim_repetition,
)
from engine.errors import ConfigError


@pytest.mark.parametrize(
    "text",
    [
        "Answer: 42\n",
        "Let me think.\nFinal answer: B\n",
        "**Answer:** 7\n",
        "step\n  answer : yes\n",
    ],
)
def test_a_finished_answer_line_stops(text: str) -> None:
    assert answer_line_done(text)
    assert should_stop(text)


@pytest.mark.parametrize(
    "text", ["Answer: 42", "Answer:\n", "The answer is not known yet.\n", "Answers vary\n"]
)
def test_an_unfinished_or_absent_answer_line_goes_on(text: str) -> None:
    assert not answer_line_done(text)


def test_a_looping_sentence_is_found_and_cut_to_one_copy() -> None:
    sentence = "The more than ceiling(items / boxes) rule applies to the box itself. "
    text = "Brief: " + sentence * 20
    start = repetition_start(text)
    assert start is not None
    assert text[:start].count("rule applies") == 1
    assert trim_repetition(text).count("rule applies") == 1


def test_a_looping_digit_is_cut() -> None:
    assert trim_repetition("17 / 9 = 1.77777777777777777777777777777777") == "17 / 9 = 1.7"


@pytest.mark.parametrize(
    "text",
    [
        "The answer is 1000000.",  # a run too short to be a loop
        "ha ha ha",  # repeated, but shorter than a loop must be
        "Count: a, b, c, d, e, f, g, h, i, j.",
        "",
    ],
)
def test_ordinary_text_is_not_a_loop(text: str) -> None:
    assert repetition_start(text) is None
    assert trim_repetition(text) == text


class TokenRuntime:
    """Emits `pieces` one by one, polling both stop hooks after each, like llama.cpp does."""

    def __init__(self, pieces: list[str]) -> None:
        self.pieces = pieces
        self.stop_requested: Any = None
        self.text_stop: Any = None
        self.calls: list[dict[str, Any]] = []

    def create_chat_completion(self, **kwargs: Any) -> Mapping[str, Any]:
        self.calls.append(kwargs)
        text = ""
        for piece in self.pieces[: kwargs["max_tokens"]]:
            text += piece
            if self.stop_requested is not None and self.stop_requested():
                break
            if self.text_stop is not None and self.text_stop(text):
                break
        return {
            "choices": [{"message": {"content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 3, "completion_tokens": len(text)},
        }


def _models(tmp_path: Path, runtime: TokenRuntime, **settings: Any) -> tuple[LocalModels, str]:
    path = tmp_path / "tiny.gguf"
    path.write_bytes(b"GGUF")
    models = LocalModels(
        LocalModelSettings(**settings),
        loader=lambda _path, _settings: runtime,
        compile_grammar=lambda schema: ("grammar", schema),
    )
    return models, str(path)


USER = [{"role": "user", "content": "q"}]


def test_free_text_stops_after_its_answer_line(tmp_path: Path) -> None:
    runtime = TokenRuntime(["Add", ".\n", "Answer", ": 9", "\n", "Also", " more", " text"])
    models, name = _models(tmp_path, runtime)
    generation = models.generate(name, USER, max_tokens=50, timeout_s=5)
    assert generation.text == "Add.\nAnswer: 9\n"
    assert runtime.text_stop is None  # the hook does not outlive its call
    assert runtime.calls[0]["repeat_penalty"] == 1.0


def test_a_loop_stops_and_is_trimmed(tmp_path: Path) -> None:
    runtime = TokenRuntime(["x = 1."] + ["7"] * 200)
    models, name = _models(tmp_path, runtime)
    generation = models.generate(name, USER, max_tokens=500, timeout_s=5)
    assert generation.text == "x = 1.7"
    assert generation.finish_reason == "loop"
    assert generation.completion_tokens < 40  # stopped early, not at 200 pieces


def test_constrained_output_and_the_switch_off_leave_text_alone(tmp_path: Path) -> None:
    pieces = ["Answer: 1\n", "more"]
    runtime = TokenRuntime(pieces)
    models, name = _models(tmp_path, runtime)
    schema = {"type": "object"}
    assert models.generate(name, USER, max_tokens=9, timeout_s=5, json_schema=schema).text == (
        "Answer: 1\nmore"
    )
    assert "repeat_penalty" not in runtime.calls[0]
    models_off, name = _models(tmp_path, TokenRuntime(pieces), stop_early=False)
    assert models_off.generate(name, USER, max_tokens=9, timeout_s=5).text == "Answer: 1\nmore"


def test_a_repeat_penalty_out_of_range_is_refused() -> None:
    with pytest.raises(ConfigError, match="repeat_penalty"):
        LocalModelSettings(repeat_penalty=0.5)
