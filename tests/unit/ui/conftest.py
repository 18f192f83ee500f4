"""A service over a real engine (real templates, features, tools) with a scripted model."""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from engine.adapters.llm.scripted import ScriptedLLM, canned_script
from engine.adapters.memory_searcher import InMemorySearcher
from engine.compose import build_engine
from engine.domain.records import Passage
from engine.orchestration.facade import Engine
from engine.settings import Settings
from ui.service.api import create_api

PASSAGES = [Passage("Multiplication is repeated addition.", "notes/multiplication.md", "Times")]


def scripted_engine(home: Path, *, referee_weight: float | None = None) -> Engine:
    """The shipped settings; `referee_weight` opts in to the referee where it was never
    measured (`THINKPATH_REFEREE_WEIGHT`), for tests that show its score."""
    opt_in: dict[str, Any] = {} if referee_weight is None else {"referee_weight": referee_weight}
    settings = Settings(home=home, store_url="memory", policy_seed=3, **opt_in)
    return build_engine(
        settings, llm=ScriptedLLM(canned_script), searcher=InMemorySearcher(PASSAGES)
    )


@pytest.fixture
def engine(tmp_path: Path) -> Engine:
    return scripted_engine(tmp_path)


@pytest.fixture
def client(engine: Engine) -> Iterator[TestClient]:
    # The Host allow-list refuses TestClient's default "testserver": speak as a local client.
    with TestClient(create_api(engine), base_url="http://localhost") as test_client:
        yield test_client
