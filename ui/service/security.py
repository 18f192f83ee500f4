"""The service's start-up checks (bind address, token strength) and its bounded request bodies.

Why these defaults: the service runs a model and writes learning state, so an open port on a
shared network would let anyone spend compute and poison what was learned. Binding beyond
loopback is therefore refused until a token is configured, and then every request must carry it
(`ui.service.auth`). A token is at least 16 characters: a short one is guessed quickly even with
back-off, and the error says how to generate a good one. It must also not be made of a few
characters repeated (`check_token`): sixteen times the same letter passed the length rule.
"""

import ipaddress
import math
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from fastapi import status
from starlette.types import ASGIApp, Receive, Scope, Send

from engine.errors import ConfigError
from ui.service.replies import replaying, send_json

LOCAL_HOST_NAMES = frozenset({"localhost", "localhost.localdomain"})


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and the name localhost."""
    if host in LOCAL_HOST_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


MIN_TOKEN_CHARS = 16
# Two floors on the Shannon entropy of the token's own character frequencies: per character
# (so that repeating a few characters longer does not pass: "abab..." is 1 bit a character
# however long) and in all (length x that, in bits). They refuse repetition and tiny alphabets;
# random 16-character tokens over 16 or more symbols pass (hex: 2.08 bits a character and 32.1
# in all at the least, in 200,000 draws). They cannot see words or patterns ("abcd" repeated
# passes): the token must be generated.
MIN_TOKEN_BITS_PER_CHAR = 2.0
MIN_TOKEN_BITS = 32.0
TOKEN_HOWTO = 'python -c "import secrets; print(secrets.token_urlsafe(32))"'
WILDCARD_HOSTS = frozenset({"0.0.0.0", "::", "[::]", ""})


def token_bits(token: str) -> float:
    """The token's length times the Shannon entropy of its characters' frequencies, in bits.

    >>> token_bits("a" * 16), token_bits("ab" * 8), token_bits("0123456789abcdef")
    (0.0, 16.0, 64.0)
    """
    counts = Counter(token)
    return sum(count * math.log2(len(token) / count) for count in counts.values())


def check_token(token: str) -> None:
    """Refuse a token short enough to guess, or made of a few characters repeated; say how to
    make a good one."""
    if len(token) < MIN_TOKEN_CHARS or token.strip() != token or not token.isprintable():
        raise ConfigError(
            f"the API token must be at least {MIN_TOKEN_CHARS} printable characters without "
            f"surrounding spaces; generate one with: {TOKEN_HOWTO}"
        )
    bits = token_bits(token)
    if bits < MIN_TOKEN_BITS or bits / len(token) < MIN_TOKEN_BITS_PER_CHAR:
        raise ConfigError(
            "the API token repeats too few characters to be secret (the entropy of its "
            f"characters is {bits / len(token):.1f} bits each and {bits:.0f} in all; at least "
            f"{MIN_TOKEN_BITS_PER_CHAR:g} and {MIN_TOKEN_BITS:g} are needed); generate one "
            f"with: {TOKEN_HOWTO}"
        )


def read_token_file(path: Path) -> str:
    """The token in `path` (one line; a trailing newline is dropped), checked like any token."""
    try:
        text = path.expanduser().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"cannot read the API token file {str(path)!r}: {error}") from None
    token = text.removesuffix("\n").removesuffix("\r")
    if "\n" in token:
        raise ConfigError(f"the API token file {str(path)!r} must hold the token on one line")
    check_token(token)
    return token


def check_bind(host: str, token: str | None, allowed_hosts: Sequence[str] = ()) -> None:
    """Refuse to serve beyond loopback without a token, or on every address without host names."""
    if not is_loopback(host) and not token:
        raise ConfigError(
            f"refusing to listen on {host!r} without an API token: set THINKPATH_API_TOKEN or "
            "THINKPATH_API_TOKEN_FILE (or pass --token-file) so that every request must carry "
            "it, or bind to 127.0.0.1"
        )
    if host in WILDCARD_HOSTS and not allowed_hosts:
        raise ConfigError(
            f"listening on {host!r} serves every name this machine has: set "
            "THINKPATH_ALLOWED_HOSTS to the names clients use (e.g. 'thinkpath.lan,10.0.0.5'), "
            "or to '*' to accept any Host header"
        )


class BodySizeLimit:
    """ASGI middleware: answer 413 for a request body over `max_bytes`, declared or streamed."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self._reject(send)
            return
        # Read the body up front, bounded: a body that streams past the limit is refused before
        # the app sees any of it (an exception raised mid-parse would come out as a 400 instead).
        chunks: list[bytes] = []
        received = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunks.append(message.get("body", b""))
            received += len(chunks[-1])
            if received > self.max_bytes:
                await self._reject(send)
                return
            if not message.get("more_body", False):
                break
        await self.app(scope, replaying(b"".join(chunks), receive), send)

    async def _reject(self, send: Send) -> None:
        message = f"request body larger than {self.max_bytes} bytes"
        await send_json(send, status.HTTP_413_CONTENT_TOO_LARGE, message)
