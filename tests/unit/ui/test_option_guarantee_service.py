"""The guarantee for questions with options over the service (issue 39, item 2): REST refuses
to retire the last path that chooses on any model, and `/v1` never answers 200 with a value
outside the `response_format` enum it was given."""

import json
from pathlib import Path

import openai
import pytest
from fastapi.testclient import TestClient
from openai import OpenAI

from engine.adapters.llm.scripted import ScriptedLLM
from engine.domain.records import LLMRequest
from engine.orchestration import arm_book
from engine.orchestration.facade import Engine
from tests.unit.ui.test_openai_compat import QUESTION, VERDICT, Recorded
from ui.service.api import create_api

OPTION_ARMS = ("choose_an_option", "reason_then_choose", "likeliest_option")
YES_NO = {**VERDICT}
YES_NO["json_schema"] = {
    **VERDICT["json_schema"],  # type: ignore[dict-item]
    "schema": {
        "type": "object",
        "properties": {"answer": {"type": "string", "enum": ["Yes", "No"]}},
        "required": ["answer"],
    },
}


def test_rest_refuses_to_retire_the_last_path_that_chooses(client: TestClient) -> None:
    first = client.post("/api/v1/templates/choose_an_option/retire", json={"reason": "x"})
    assert first.status_code == 200, first.text
    last = client.post("/api/v1/templates/reason_then_choose/retire", json={"reason": "x"})
    assert last.status_code == 422
    assert "last live path that answers with an option" in last.text
    arms = {row["arm_id"]: row["retired"] for row in client.get("/api/v1/arms").json()}
    assert arms["reason_then_choose"] is False


def free_text_everywhere(request: LLMRequest) -> str:
    """A model that writes free text whatever it is asked, a schema included."""
    if request.json_schema is not None and "answer" in request.json_schema.get("properties", {}):
        return json.dumps({"answer": "Yes"})
    return "Answer: unknown"


def retire_option_arms(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """As a replica without the guard would, sharing the store."""
    with monkeypatch.context() as patched:
        patched.setattr(arm_book, "last_option_arm", lambda *_: None)
        for arm in OPTION_ARMS:
            engine.retire_template(arm, "retired by an older replica")


def test_v1_never_answers_200_outside_the_enum(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorded = Recorded(tmp_path, ScriptedLLM(free_text_everywhere))
    with TestClient(create_api(recorded.engine), base_url="http://localhost") as http:
        client = OpenAI(base_url="http://localhost/v1", api_key="x", http_client=http)
        chosen = client.chat.completions.create(
            model="thinkpath",
            messages=QUESTION,
            response_format=YES_NO,  # type: ignore[call-overload]
        )
        assert json.loads(chosen.choices[0].message.content or "") == {"answer": "Yes"}
        retire_option_arms(recorded.engine, monkeypatch)
        with pytest.raises(openai.InternalServerError) as caught:
            client.with_options(max_retries=0).chat.completions.create(
                model="thinkpath",
                messages=QUESTION,
                response_format=YES_NO,  # type: ignore[call-overload]
            )
    assert caught.value.code == "answer_outside_schema"
    assert "no live path answers with one" in str(caught.value)
