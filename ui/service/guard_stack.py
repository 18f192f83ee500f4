"""Every guard of the service, in its one order, as one ASGI middleware.

The same stack wraps the finished app (`create_api` adds it) and, in `thinkpath serve`, the
app that answers while the model is still loading (`ui.service.starting`): the guards must hold
from the first byte the server answers, not only once start-up is done. Outside in:

1. `UrlLengthLimit`: a URL over 8 KiB gets 414.
2. `HostGuard`: a Host that is not ours gets 400 (DNS rebinding).
3. `CorsPolicy`: ThinkPath's CORS headers only; a foreign origin's POST gets 403.
4. `AuthGate`: with a token, nothing but `/login` passes without it (back-off on wrong ones).
5. `NoUploads`: a multipart body gets 415.
6. `BodySizeLimit`: a body over the limit gets 413.
7. `StrictJson`: a JSON body that is not strict JSON (NaN, too deep, ...) gets 422.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from starlette.types import ASGIApp, Receive, Scope, Send

from ui.service.auth import Access, AuthGate
from ui.service.guards import (
    DEFAULT_ALLOWED_HOSTS,
    CorsPolicy,
    HostGuard,
    NoUploads,
    UrlLengthLimit,
)
from ui.service.limits import MAX_BODY_BYTES
from ui.service.security import BodySizeLimit
from ui.service.strict_json import StrictJson

__all__ = ["GuardStack", "Guards"]


@dataclass(frozen=True)
class Guards:
    """What the guards are set to: the credentials, the body limit, origins and host names."""

    access: Access
    max_body_bytes: int = MAX_BODY_BYTES
    cors_origins: Sequence[str] = ()
    allowed_hosts: Sequence[str] = DEFAULT_ALLOWED_HOSTS

    def wrap(self, app: ASGIApp) -> ASGIApp:
        """`app` inside every guard, the outermost first in the order of this module's list."""
        app = StrictJson(app)
        app = BodySizeLimit(app, max_bytes=self.max_body_bytes)
        app = NoUploads(app)
        app = AuthGate(app, access=self.access)
        app = CorsPolicy(app, origins=self.cors_origins)
        app = HostGuard(app, allowed_hosts=self.allowed_hosts)
        return UrlLengthLimit(app)


class GuardStack:
    """ASGI middleware: `guards.wrap(app)`, so that `app.add_middleware(GuardStack, guards=...)`
    puts the whole stack around a FastAPI app in one step."""

    def __init__(self, app: ASGIApp, guards: Guards) -> None:
        self.app = guards.wrap(app)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(scope, receive, send)
