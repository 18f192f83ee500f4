"""Real clients against a real `thinkpath serve` (uvicorn, scripted stand-in model).

The official `openai` client (sync, async, streaming), litellm as a client (`openai/thinkpath`
with `api_base`), 20 concurrent streaming clients, and the API token on a non-loopback bind.
"""

import asyncio
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from openai import OpenAI
from openai.types.chat import ChatCompletionMessageParam

from engine.adapters.llm.litellm_runtime import load_litellm
from tests.integration.ui.conftest import serving
from ui.local_server import free_port

QUESTION: list[ChatCompletionMessageParam] = [{"role": "user", "content": "What is 6 * 7?"}]
SERVE = [sys.executable, "-m", "ui.cli", "serve", "--scripted-model"]


def stored(url: str, decision_id: str) -> dict[str, Any]:
    response = httpx.get(f"{url}/api/v1/decisions/{decision_id}", timeout=10)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_the_openai_client_decides_and_feedback_is_one_call(service_url: str) -> None:
    with OpenAI(base_url=f"{service_url}/v1", api_key="unused", max_retries=0) as client:
        assert "thinkpath:first_principles" in [model.id for model in client.models.list()]
        reply = client.chat.completions.create(model="thinkpath", messages=QUESTION)
    decision = stored(service_url, reply.id)
    assert reply.choices[0].message.content == decision["answer"]
    assert reply.usage is not None
    # The usage is the decision's own cost (a fully parsed sum may be answered with no call:
    # then 0 tokens, and the referee, never measured here, is not asked either).
    cost = decision["cost"]
    assert reply.usage.prompt_tokens == cost["prompt_tokens"]
    assert reply.usage.completion_tokens == cost["completion_tokens"]
    assert reply.usage.total_tokens == cost["prompt_tokens"] + cost["completion_tokens"]
    feedback = httpx.post(
        f"{service_url}/api/v1/decisions/{reply.id}/outcomes",
        json={"source": "user", "reward": 1.0},
        timeout=10,
    )
    assert feedback.status_code == 201
    assert feedback.json()["applied"] is True


def test_the_openai_client_streams_the_answer_in_pieces(service_url: str) -> None:
    # A question no exact tool reads whole, so the model writes the answer (a fully parsed tool
    # result may be the whole answer at once, which streams as one piece).
    question: list[ChatCompletionMessageParam] = [
        {"role": "user", "content": "Why do leaves change colour in autumn?"}
    ]
    with OpenAI(base_url=f"{service_url}/v1", api_key="unused", max_retries=0) as client:
        stream = client.chat.completions.create(
            model="thinkpath:work_backwards",
            messages=question,
            stream=True,
            stream_options={"include_usage": True},
        )
        chunks = list(stream)
    pieces = [
        c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content
    ]
    decision = stored(service_url, chunks[0].id)
    assert len(pieces) > 3
    assert "".join(pieces) == decision["answer"]
    assert decision["path"] == {
        "role": "path",
        "arm_id": "work_backwards",
        "propensity": 1.0,
        "reason": "forced",
    }
    assert chunks[-1].usage is not None


def test_the_async_openai_client_plain_and_streaming(service_url: str) -> None:
    async def ask() -> tuple[str, str, str, str]:
        client = openai.AsyncOpenAI(base_url=f"{service_url}/v1", api_key="x", max_retries=0)
        plain = await client.chat.completions.create(model="thinkpath", messages=QUESTION)
        stream = await client.chat.completions.create(
            model="thinkpath",
            messages=QUESTION,
            stream=True,
        )
        chunks = [chunk async for chunk in stream]
        await client.close()
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        return plain.id, plain.choices[0].message.content or "", chunks[0].id, text

    plain_id, plain, stream_id, streamed = asyncio.run(ask())
    assert plain == stored(service_url, plain_id)["answer"]
    assert streamed == stored(service_url, stream_id)["answer"]


def test_litellm_as_a_client(service_url: str) -> None:
    litellm = load_litellm()
    reply = litellm.completion(
        model="openai/thinkpath",
        api_base=f"{service_url}/v1",
        api_key="unused",
        messages=QUESTION,
        max_retries=0,
    )
    assert reply.id
    assert reply.choices[0].message.content == stored(service_url, reply.id)["answer"]
    stream = litellm.completion(
        model="openai/thinkpath",
        api_base=f"{service_url}/v1",
        api_key="unused",
        messages=QUESTION,
        stream=True,
        max_retries=0,
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == stored(service_url, chunks[0].id)["answer"]
    with pytest.raises(litellm.BadRequestError, match="does not support the parameter"):
        litellm.completion(
            model="openai/thinkpath",
            api_base=f"{service_url}/v1",
            api_key="unused",
            messages=QUESTION,
            n=3,
            max_retries=0,
        )


def test_twenty_concurrent_streams_lose_nothing_and_never_interleave(service_url: str) -> None:
    def one(index: int) -> tuple[str, str, str]:
        question = f"Client {index}: what is {index} + {index}?"
        with OpenAI(
            base_url=f"{service_url}/v1", api_key="unused", max_retries=0, timeout=120
        ) as client:
            stream = client.chat.completions.create(
                model="thinkpath",
                messages=[{"role": "user", "content": question}],
                stream=True,
            )
            chunks = list(stream)
        ids = {chunk.id for chunk in chunks}
        assert len(ids) == 1, ids  # every chunk of one stream carries its own decision's id
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        return question, ids.pop(), text

    with ThreadPoolExecutor(max_workers=20) as pool:
        results = list(pool.map(one, range(20)))
    assert len({decision_id for _, decision_id, _ in results}) == 20
    for question, decision_id, text in results:
        decision = stored(service_url, decision_id)
        assert decision["query"] == question  # each stream is its own client's decision
        assert text == decision["answer"]  # ... and carries that decision's answer, whole


def test_beyond_loopback_the_token_is_required_and_checked(tmp_path: Path) -> None:
    refused = subprocess.run(
        [*SERVE, "--host", "0.0.0.0", "--port", str(free_port())],
        env={
            **{k: v for k, v in os.environ.items() if not k.startswith("THINKPATH_API_TOKEN")},
            "THINKPATH_HOME": str(tmp_path),
            "THINKPATH_ALLOWED_HOSTS": "127.0.0.1",
        },
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert refused.returncode != 0
    assert "THINKPATH_API_TOKEN" in refused.stdout + refused.stderr

    secret = "integration-secret"
    environment = {"THINKPATH_API_TOKEN": secret, "THINKPATH_ALLOWED_HOSTS": "127.0.0.1"}
    with serving(tmp_path, host="0.0.0.0", environment=environment) as url:
        with (
            OpenAI(base_url=f"{url}/v1", api_key="wrong", max_retries=0) as anonymous,
            pytest.raises(openai.AuthenticationError),
        ):
            anonymous.chat.completions.create(model="thinkpath", messages=QUESTION)
        bare = httpx.post(
            f"{url}/v1/chat/completions", json={"model": "thinkpath", "messages": QUESTION}
        )
        assert bare.status_code == 401
        assert bare.json()["error"]["code"] == "invalid_api_key"
        with OpenAI(base_url=f"{url}/v1", api_key=secret, max_retries=0) as keyed:
            reply = keyed.chat.completions.create(model="thinkpath", messages=QUESTION)
        assert reply.choices[0].message.content


def test_a_client_that_leaves_mid_stream_does_not_cancel_the_decision(service_url: str) -> None:
    body = {"model": "thinkpath", "messages": QUESTION, "stream": True}
    with httpx.stream("POST", f"{service_url}/v1/chat/completions", json=body) as response:
        first = next(line for line in response.iter_lines() if line.startswith("data: "))
    decision_id = json.loads(first.removeprefix("data: "))["id"]
    deadline = time.monotonic() + 60
    while httpx.get(f"{service_url}/api/v1/decisions/{decision_id}").status_code == 404:
        assert time.monotonic() < deadline, "the decision was never stored"
        time.sleep(0.2)
    assert stored(service_url, decision_id)["answer"]
