"""The token gate over the whole app: a bearer header, or a session from the login page.

With a token configured, every request needs one of the two, whatever its route: the API, the
OpenAPI description (`/docs`, `/openapi.json`), the playground and its API description, and any
route added later. Only `/login` and `/logout` are open. Browsers cannot send a bearer header
while navigating, so the login page trades the token for a session cookie (`HttpOnly`,
`SameSite=Strict`: a foreign page's requests do not carry it).

Every wrong bearer token and every wrong login counts against the client's address in a
`FailureThrottle`, and, for a request that came through a trusted proxy, also against that
proxy's budget (`proxy_throttle`): behind a proxy the address is whatever the sender named in
`X-Forwarded-For` (`ui.service.forwarded`), so the address's count alone was the sender's to
escape: a new address per guess bought 1,000 guesses with no 429. Once either is in back-off,
each wrong credential is answered only after a pause (`Access.pause`, up to `MAX_PAUSE_S`) and
with 429 and `Retry-After`; the right token is still admitted at once. An earlier design refused
every credential during back-off, the right one too: 25 wrong requests an hour from a shared (or
spoofed) address kept the owner out. The token itself is what makes guessing hopeless (16+
characters, not repetitive: `ui.service.security.check_token`); the back-off slows a guesser and
says so.
"""

import asyncio
import hashlib
import hmac
import html
import ipaddress
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from http.cookies import CookieError, SimpleCookie
from urllib.parse import parse_qs

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from ui.service.forwarded import TRUSTED_PROXY
from ui.service.replies import send_json, send_response
from ui.service.security import check_token
from ui.service.throttle import FailureThrottle, proxy_throttle

__all__ = ["SESSION_COOKIE", "Access", "AuthGate", "SessionBook", "client_key"]

USER = "thinkpath"  # the one user: whoever holds the token
SESSION_COOKIE = "thinkpath_session"
LOGIN_PATH = "/login"
LOGOUT_PATH = "/logout"
MAX_LOGIN_BODY = 4096
# How long a wrong credential from an address in back-off waits for its 429: enough to slow a
# guesser that sends one request after another, short enough not to pile up connections.
MAX_PAUSE_S = 2.0


class SessionBook:
    """Session ids handed out by the login page, each valid for `ttl_s`, at most `max_sessions`."""

    def __init__(
        self,
        *,
        ttl_s: float = 12 * 3600,
        max_sessions: int = 1000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ttl_s = ttl_s
        self.max_sessions = max_sessions
        self._clock = clock
        self._lock = threading.Lock()
        self._expiry: OrderedDict[str, float] = OrderedDict()

    def open(self) -> str:
        """A new session id (256 random bits); the oldest session goes when the book is full."""
        session = secrets.token_urlsafe(32)
        with self._lock:
            self._expiry[session] = self._clock() + self.ttl_s
            while len(self._expiry) > self.max_sessions:
                self._expiry.popitem(last=False)
        return session

    def is_open(self, session: str | None) -> bool:
        if not session:
            return False
        with self._lock:
            expiry = self._expiry.get(session)
            if expiry is None:
                return False
            if expiry < self._clock():
                del self._expiry[session]
                return False
            return True

    def close(self, session: str | None) -> None:
        with self._lock:
            self._expiry.pop(session or "", None)


class Access:
    """Who may in: the token (as a digest), the sessions opened with it, the failure back-off
    per client address (`throttle`) and per trusted proxy (`proxies`, see `proxy_throttle`).

    `pause(seconds)` is how a wrong credential in back-off is slowed (tests pass a recorder).
    """

    def __init__(
        self,
        token: str | None,
        *,
        throttle: FailureThrottle | None = None,
        proxies: FailureThrottle | None = None,
        sessions: SessionBook | None = None,
        pause: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        if token is not None:
            check_token(token)  # however the app is built, a guessable token is refused
        # Digests of equal length: the comparison time reveals neither content nor length.
        self._digest = _digest(token) if token else None
        self.throttle = throttle if throttle is not None else FailureThrottle()
        self.proxies = proxies if proxies is not None else proxy_throttle()
        self.sessions = sessions if sessions is not None else SessionBook()
        self.pause = pause

    @property
    def required(self) -> bool:
        return self._digest is not None

    def matches(self, given: str) -> bool:
        """Whether `given` is the token, compared in constant time."""
        return self._digest is not None and hmac.compare_digest(_digest(given), self._digest)

    def user_of(self, headers: Headers) -> str | None:
        """'thinkpath' for a request with a valid bearer token or session (or no token set)."""
        if self._digest is None:
            return USER
        scheme, _, given = headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and self.matches(given):
            return USER
        return USER if self.sessions.is_open(_session_of(headers)) else None


class AuthGate:
    """ASGI middleware: with a token set, nothing but `/login` passes without a credential."""

    def __init__(self, app: ASGIApp, access: Access) -> None:
        self.app = app
        self.access = access
        self.throttle = access.throttle
        self.sessions = access.sessions

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or not self.access.required:
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        caller = _Caller(
            address=client_key(scope["client"][0] if scope.get("client") else "unknown"),
            proxy=scope.get(TRUSTED_PROXY),
        )
        if scope["type"] == "websocket":  # no page to show and no JSON to send: admit or close
            if self.access.user_of(headers) is None:
                if "authorization" in headers:  # a wrong token is a guess here too: count it
                    await self._failed(caller)
                await send({"type": "websocket.close", "code": 1008})
            else:
                await self.app(scope, receive, send)
        elif scope["path"] in (LOGIN_PATH, LOGOUT_PATH):
            await self._own_page(scope, receive, send, headers, caller)
        elif await self._admitted(scope, send, headers, caller):
            await self.app(scope, receive, send)

    async def _own_page(
        self, scope: Scope, receive: Receive, send: Send, headers: Headers, caller: "_Caller"
    ) -> None:
        if scope["path"] == LOGOUT_PATH:
            self.sessions.close(_session_of(headers))
            await _redirect(send, LOGIN_PATH, clear_session=True)
        elif scope.get("method") == "POST":
            await self._login(receive, send, caller, secure=scope.get("scheme") == "https")
        else:
            await _send_page(send, 200, _login_page(""))

    async def _admitted(
        self, scope: Scope, send: Send, headers: Headers, caller: "_Caller"
    ) -> bool:
        """Whether the request may pass; if not, the refusal has been sent."""
        authorization = headers.get("authorization")
        if authorization is None:
            if self.sessions.is_open(_session_of(headers)):
                return True
            await self._unauthenticated(scope, send, headers)
            return False
        scheme, _, given = authorization.partition(" ")
        if scheme.lower() == "bearer" and self.access.matches(given):
            return True  # in back-off or not: the right token is never refused
        backoff = await self._failed(caller)
        if backoff is not None:
            await send_json(
                send,
                429,
                f"too many wrong tokens {backoff.whose}: wait {backoff.retry} s",
                [(b"retry-after", backoff.retry.encode())],
            )
        else:
            await send_json(
                send,
                401,
                "wrong API token: send 'Authorization: Bearer <token>'",
                [(b"www-authenticate", b"Bearer")],
            )
        return False

    async def _failed(self, caller: "_Caller") -> "_Backoff | None":
        """Count a wrong credential against the address and the proxy it came through; in
        back-off (either one's), pause and say for how long, and whose back-off it is."""
        self.throttle.fail(caller.address)
        wait, whose = self.throttle.retry_after(caller.address), "from this address"
        if caller.proxy is not None:
            proxies = self.access.proxies
            proxies.fail(caller.proxy)
            if proxies.retry_after(caller.proxy) > wait:
                wait, whose = proxies.retry_after(caller.proxy), "through this proxy"
        if wait <= 0:
            return None
        await self.access.pause(min(wait, MAX_PAUSE_S))
        return _Backoff(retry=str(int(wait) + 1), whose=whose)

    async def _login(
        self, receive: Receive, send: Send, caller: "_Caller", *, secure: bool
    ) -> None:
        """Trade the token for a session: the page's form field `token`, or Gradio's `password`.

        `gradio_client.Client(url, auth=("thinkpath", token))` posts `username` and `password`
        and wants a 200 with the cookie, so that form gets one; the page's form gets a redirect.
        """
        body = await _read_body(receive, MAX_LOGIN_BODY)
        fields = parse_qs(body.decode("utf-8", "replace")) if body else {}
        programmatic = "password" in fields
        given = (fields.get("token") or fields.get("password") or [""])[0]
        if not self.access.matches(given):
            backoff = await self._failed(caller)
            if backoff is None:
                await _send_page(send, 401, _login_page("Wrong token."))
            else:
                message = f"Wrong token, and too many {backoff.whose}: wait {backoff.retry} s."
                await _send_page(
                    send, 429, _login_page(message), [(b"retry-after", backoff.retry.encode())]
                )
            return
        session = self.sessions.open()
        if programmatic:
            cookie = (b"set-cookie", _session_cookie(session, secure=secure).encode())
            await send_json(send, 200, "logged in", [cookie])
        else:
            await _redirect(send, "/", session=session, secure=secure)

    async def _unauthenticated(self, scope: Scope, send: Send, headers: Headers) -> None:
        if scope.get("method") == "GET" and "text/html" in headers.get("accept", ""):
            await _redirect(send, LOGIN_PATH)  # a person in a browser: show the login page
        else:
            await send_json(
                send,
                401,
                "missing API token: send 'Authorization: Bearer <token>' (or log in at /login)",
                [(b"www-authenticate", b"Bearer")],
            )


@dataclass(frozen=True)
class _Caller:
    """Whom a failure is counted against: the client's address (`client_key`) and the trusted
    proxy entry the request came through (`ui.service.forwarded.TRUSTED_PROXY`), if any."""

    address: str
    proxy: str | None


@dataclass(frozen=True)
class _Backoff:
    retry: str  # the Retry-After seconds
    whose: str  # "from this address" or "through this proxy", for the answer's text


def client_key(address: str) -> str:
    """Whom the back-off counts: the IPv4 address, or the /64 network of an IPv6 one.

    One IPv6 subscriber usually holds a whole /64; counting each address apart would give a
    guesser 2**64 fresh starts.

    >>> client_key("2001:db8:1:2:aaaa::1"), client_key("10.0.0.7"), client_key("::1")
    ('2001:db8:1:2::/64', '10.0.0.7', '::1')
    """
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address
    if parsed.version == 6 and not parsed.is_loopback:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return address


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def _session_of(headers: Headers) -> str | None:
    cookie = SimpleCookie()
    try:
        cookie.load(headers.get("cookie", ""))
    except CookieError:  # a malformed cookie header is just no session
        return None
    morsel = cookie.get(SESSION_COOKIE)
    return morsel.value if morsel else None


async def _read_body(receive: Receive, limit: int) -> bytes:
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b""
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return b""  # no token is that long: treat as a wrong one
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


async def _redirect(
    send: Send,
    location: str,
    *,
    session: str | None = None,
    secure: bool = False,
    clear_session: bool = False,
) -> None:
    headers = [(b"location", location.encode()), (b"content-length", b"0")]
    if session is not None or clear_session:
        cookie = _session_cookie(session or "", secure=secure, clear=clear_session)
        headers.append((b"set-cookie", cookie.encode()))
    await send({"type": "http.response.start", "status": 303, "headers": headers})
    await send({"type": "http.response.body", "body": b""})


def _session_cookie(session: str, *, secure: bool, clear: bool = False) -> str:
    # Strict: a request that a foreign page starts (link, form, fetch) carries no session.
    attributes = "; Path=/; HttpOnly; SameSite=Strict" + ("; Secure" if secure else "")
    return f"{SESSION_COOKIE}={session}{attributes}" + ("; Max-Age=0" if clear else "")


async def _send_page(
    send: Send, status: int, page: str, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    extra = [(b"cache-control", b"no-store"), *(headers or [])]
    await send_response(send, status, page.encode(), b"text/html; charset=utf-8", extra)


def _login_page(message: str) -> str:
    # Deliberately bare: nothing about the API is shown before the token is given.
    notice = f'<p role="alert">{html.escape(message)}</p>' if message else ""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>ThinkPath: log in'
        "</title></head><body><h1>ThinkPath</h1>"
        f'{notice}<form method="post" action="{LOGIN_PATH}">'
        '<label>API token <input id="token" name="token" type="password" '
        'autocomplete="current-password" required></label> '
        '<button id="login" type="submit">Log in</button></form></body></html>'
    )
