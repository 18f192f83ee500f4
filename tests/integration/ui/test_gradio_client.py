"""The playground's API through `gradio_client`, as an authenticated program uses it.

`download_files=False`: gradio_client 2.7 reads any JSON object with a string "path" as a file
to download (under the sse_v3 protocol it falls back to its Gradio-4 guess), and the decision
trace has such objects (`{"path": "<arm id>"}`); the playground returns no files.
"""

import pytest
from gradio_client import Client

from tests.integration.ui.conftest import GuardedService


def test_ask_with_the_bearer_token(guarded_service: GuardedService) -> None:
    client = Client(
        f"{guarded_service.url}/",
        headers=guarded_service.bearer,
        download_files=False,
        verbose=False,
    )
    result = client.predict("What is 2 + 3?", "5", "numeric", "", api_name="/ask")
    texts = [item for item in result if isinstance(item, str)]
    card = next(text for text in texts if "**Verified:**" in text)  # the exact check: right
    assert "Reasoning path:" in card


def test_ask_after_logging_in(guarded_service: GuardedService) -> None:
    client = Client(
        f"{guarded_service.url}/",
        auth=("thinkpath", guarded_service.token),
        download_files=False,
        verbose=False,
    )
    result = client.predict("What is 4 + 4?", "8", "numeric", "sums", api_name="/ask")
    card = next(item for item in result if isinstance(item, str) and "**Verified:**" in item)
    assert "the named task `sums`" in card


def test_no_token_no_client(guarded_service: GuardedService) -> None:
    with pytest.raises(Exception, match=r"401|Could not"):
        Client(f"{guarded_service.url}/", download_files=False, verbose=False)
