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
"""

from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ui.service.replies import send_json

__all__ = ["DEFAULT_ALLOWED_HOSTS", "CorsPolicy", "HostGuard", "host_name"]

DEFAULT_ALLOWED_HOSTS = ("localhost", "127.0.0.1", "::1")
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


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
