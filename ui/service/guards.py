"""ASGI guards over the whole app: the Host allow-list and ThinkPath's own CORS policy.

They wrap everything, the API, the playground and any route added later, so that no route can
forget them. Both answer before the app does any work.

Host allow-list: a page on a foreign name that resolves to 127.0.0.1 (DNS rebinding) reaches the
loopback server with its own name in `Host`. Refusing names that are not ours stops it even on
the tokenless loopback server.

CORS: Gradio answers any `Origin` with its own `access-control-*` headers (credentials
included) unless told otherwise, so the policy here strips whatever the app set and applies only
its own: no CORS header at all by default, and for a listed origin exactly that origin, never
with credentials. It also refuses a state-changing request (POST, PUT, PATCH, DELETE) whose
`Origin` is neither the service itself nor listed: a foreign page can send such a request
without reading the answer (a form, `no-cors`), and on the tokenless loopback server that alone
would create decisions or add templates.

URL length: Gradio answered a 64 KiB URL on `/` and `/config` with a 500. No route of ours needs
more than a few hundred bytes of path and query, so anything over `MAX_URL_BYTES` gets a 414
before any app sees it (the same limit nginx applies to a request line by default).

No uploads: the playground has no upload field, yet Gradio's `/gradio_api/upload` stored any
file sent to it, without limit and outside THINKPATH_HOME. No route of ThinkPath takes a file, so
every `multipart/*` body is refused (415) whatever its path: Gradio's upload and
recording routes, and any later one, included.
"""

from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ui.service.replies import send_json

__all__ = [
    "DEFAULT_ALLOWED_HOSTS",
    "MAX_URL_BYTES",
    "CorsPolicy",
    "HostGuard",
    "NoUploads",
    "UrlLengthLimit",
    "host_name",
]

DEFAULT_ALLOWED_HOSTS = ("localhost", "127.0.0.1", "::1")
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
MAX_URL_BYTES = 8 * 1024  # path and query string together, as the client sent them


def host_name(host_header: str) -> str:
    """The name in a Host header, without port, brackets or a trailing dot, in lower case.

    >>> [host_name(h) for h in ("LocalHost:8765", "[::1]:80", "example.org.", "[::1]")]
    ['localhost', '::1', 'example.org', '::1']
    """
    host = host_header.strip().lower()
    if host.startswith("["):  # an IPv6 literal: [::1]:8765
        return host[1:].partition("]")[0]
    if host.count(":") == 1:
        host = host.partition(":")[0]
    return host.rstrip(".")


class HostGuard:
    """Answer 400 to a request whose Host is not allowed; `*` allows any (with a token only)."""

    def __init__(self, app: ASGIApp, allowed_hosts: Iterable[str]) -> None:
        self.app = app
        names = {host_name(host) for host in allowed_hosts}
        self.any_host = "*" in names
        self.allowed = frozenset(names - {"*"})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or self.any_host:
            await self.app(scope, receive, send)
            return
        host = Headers(scope=scope).get("host")
        if host is not None and host_name(host) in self.allowed:
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        await send_json(
            send,
            400,
            f"Host {host!r} is not served here; allowed: {', '.join(sorted(self.allowed))} "
            "(set THINKPATH_ALLOWED_HOSTS to serve another name)",
        )


class UrlLengthLimit:
    """Answer 414 to a request whose path and query together exceed `max_bytes`."""

    def __init__(self, app: ASGIApp, max_bytes: int = MAX_URL_BYTES) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        path = scope.get("raw_path") or scope.get("path", "").encode("utf-8", "surrogateescape")
        if len(path) + len(scope.get("query_string", b"")) <= self.max_bytes:
            await self.app(scope, receive, send)
        elif scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1009})  # "message too big"
        else:
            await send_json(send, 414, f"the URL is longer than {self.max_bytes} bytes")


class NoUploads:
    """Answer 415 to any `multipart/*` body (how files are sent): no route of ours takes one."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            content_type = Headers(scope=scope).get("content-type", "")
            if content_type.strip().lower().startswith("multipart/"):
                await send_json(send, 415, "uploads are off: no route of ThinkPath takes files")
                return
        await self.app(scope, receive, send)


class CorsPolicy:
    """Closed by default; for each listed origin exactly that origin, without credentials."""

    def __init__(
        self,
        app: ASGIApp,
        origins: Iterable[str],
        *,
        methods: Iterable[str] = ("GET", "POST"),
        headers: Iterable[str] = ("Authorization", "Content-Type"),
        max_age_s: int = 600,
    ) -> None:
        self.app = app
        self.origins = frozenset(origin.rstrip("/") for origin in origins)
        if "*" in self.origins or "null" in self.origins:
            raise ValueError("CORS origins must be named exactly: '*' and 'null' are refused")
        self.methods = ", ".join(methods)
        self.headers = ", ".join(headers)
        self.max_age_s = max_age_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Headers(scope=scope)
        origin = request.get("origin")
        listed = origin is not None and origin in self.origins
        if scope["method"] == "OPTIONS" and "access-control-request-method" in request:
            await self._preflight(send, origin if listed else None)
            return
        if (
            origin is not None
            and not listed
            and scope["method"] not in SAFE_METHODS
            and not _same_origin(origin, scope, request)
        ):
            await send_json(send, 403, f"requests from origin {origin!r} are not accepted here")
            return

        async def send_with_policy(message: Message) -> None:
            if message["type"] == "http.response.start":
                response = MutableHeaders(scope=message)
                for name in [key for key in response if key.startswith("access-control-")]:
                    del response[name]  # whatever the app (Gradio) set is not our policy
                response.add_vary_header("Origin")
                if listed and origin is not None:
                    response["access-control-allow-origin"] = origin
            await send(message)

        await self.app(scope, receive, send_with_policy)

    async def _preflight(self, send: Send, origin: str | None) -> None:
        if origin is None:
            await send_json(send, 403, "cross-origin requests from this origin are not allowed")
            return
        headers = [
            (b"access-control-allow-origin", origin.encode("latin-1")),
            (b"access-control-allow-methods", self.methods.encode()),
            (b"access-control-allow-headers", self.headers.encode()),
            (b"access-control-max-age", str(self.max_age_s).encode()),
            (b"vary", b"Origin"),
            (b"content-length", b"0"),
        ]
        await send({"type": "http.response.start", "status": 204, "headers": headers})
        await send({"type": "http.response.body", "body": b""})


def _same_origin(origin: str, scope: Scope, request: Headers) -> bool:
    """True when `Origin` names this service as the request reached it (scheme, host, port)."""
    scheme = scope.get("scheme", "http")
    default_port = 443 if scheme == "https" else 80
    try:
        given = urlsplit(origin)
        served = urlsplit(f"//{request.get('host', '')}")
        return (
            given.scheme == scheme
            and given.hostname is not None
            and given.hostname == served.hostname
            and (given.port or default_port) == (served.port or default_port)
        )
    except ValueError:  # a malformed port in either
        return False
