"""The /v1 stream over the embedded SmolLM2: the answer arrives token by token, as generated."""

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from openai import OpenAI

from engine.adapters.memory_searcher import InMemorySearcher
from engine.compose import build_engine
from engine.domain.records import Passage
from engine.settings import Settings
from ui.service.api import create_api

pytestmark = pytest.mark.slow


def test_a_stream_from_the_local_model_is_token_by_token(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path, store_url="memory", policy_seed=1)
    searcher = InMemorySearcher([Passage("Paris is the capital of France.", "notes/fr.md", "FR")])
    engine = build_engine(settings, searcher=searcher)
    with TestClient(create_api(engine), base_url="http://localhost") as http:
        client = OpenAI(base_url="http://localhost/v1", api_key="unused", http_client=http)
        chunks = list(
            client.chat.completions.create(
                model="thinkpath:direct_answer",
                messages=[{"role": "user", "content": "What is the capital of France?"}],
                stream=True,
                max_tokens=48,
            )
        )
    decision = engine.get_decision(chunks[0].id)
    deltas = [c.choices[0].delta.content for c in chunks if c.choices]
    pieces = [text for text in deltas if text]
    assert decision.answer
    notes = decision.step("answer").outputs
    if notes.get("echoed_lines") or notes.get("copied_lines") or notes.get("degenerate"):
        # Removed once the reply was whole (docs/openai.md): the stream is what was written.
        assert decision.answer.split()[-1] in "".join(pieces)
    else:
        assert "".join(pieces) == decision.answer
    # A chunk per token or so (a token is a few characters), not the answer in one piece.
    assert len(pieces) > 1
    assert len(decision.answer) / len(pieces) < 8
    assert decision.step("answer").reason == "done"
