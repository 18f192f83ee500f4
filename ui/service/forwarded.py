"""Forwarded headers from a trusted proxy: the client's address, only where it is an address.

uvicorn's own proxy middleware takes the rightmost X-Forwarded-For entry that is not a trusted
proxy, whatever it holds: behind `THINKPATH_TRUSTED_PROXIES=127.0.0.1`, any local process sent
`X-Forwarded-For: garbage-N` and was counted by the back-off (`ui.service.throttle`) as a fresh
client `garbage-N`, once per name. Here the same rightmost untrusted entry is taken only when it
parses as an IP address; otherwise the request keeps its peer's own address.

What holds, and what does not: whoever reaches the service from a trusted proxy's address (the
proxy itself, or any local process when 127.0.0.1 is trusted, or a client whose header the proxy
passes on unchanged) can name any IP address as the client, a new one on every request. So the
forwarded address is not an identity a guesser cannot choose, and a back-off per forwarded
address alone bought 1,000 wrong tokens without a 429. Each request from a trusted peer is
therefore also marked with the trusted entry it came through (`scope[TRUSTED_PROXY]`, e.g.
`"127.0.0.1/32"`), and the gate (`ui.service.auth`) counts its failures against that entry's
budget too, which no header can change. The entry, not the peer's own address: with
`127.0.0.0/8` trusted, a local process can connect from any of 16 million loopback addresses.

Why the rightmost: each proxy appends the address it was connected from, so the entries left of
the last untrusted one were written by the client itself, and any of them could be forged.

Scope: X-Forwarded-For and X-Forwarded-Proto, the two headers uvicorn believed before. An entry
is a bare IPv4 or IPv6 address (what nginx's `$proxy_add_x_forwarded_for` and most proxies
write); one with a port, or RFC 7239's `Forwarded`, is not read.
"""

import ipaddress
from collections.abc import Sequence

from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["TRUSTED_PROXY", "TrustedProxyHeaders", "forwarded_client"]

# The scope key naming the trusted proxy entry a request came through (absent when it did not).
TRUSTED_PROXY = "thinkpath.trusted_proxy"

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
_SCHEMES = {"http": "http", "https": "https", "ws": "http", "wss": "https"}


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text.strip())
    except ValueError:
        return None


def forwarded_client(header: str, trusted: Sequence[IPNetwork]) -> str | None:
    """The client address an X-Forwarded-For value names: its rightmost entry that no trusted
    proxy holds, when that entry is an IP address; None when there is none to believe.

    >>> proxies = [ipaddress.ip_network("127.0.0.0/8")]
    >>> forwarded_client("203.0.113.9, 127.0.0.1", proxies)
    '203.0.113.9'
    >>> forwarded_client("1.2.3.4, garbage-7", proxies) is None
    True
    """
    for entry in reversed(header.split(",")):
        address = _address(entry)
        if address is None:  # unparsable: nothing left of it can be believed either
            return None
        if not any(address in network for network in trusted):
            return str(address)
    return None  # every entry a trusted proxy: keep the peer's own address


class TrustedProxyHeaders:
    """ASGI middleware: from a trusted peer, the client address and scheme its proxy forwarded."""

    def __init__(self, app: ASGIApp, trusted: Sequence[str]) -> None:
        self.app = app
        self.trusted = [ipaddress.ip_network(proxy, strict=False) for proxy in trusted]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        proxy = self._proxy_of(scope) if scope["type"] in ("http", "websocket") else None
        if proxy is not None:
            scope = dict(scope)
            scope[TRUSTED_PROXY] = str(proxy)
            # A repeated header is one list, in order (RFC 9110): a proxy that adds its own line
            # instead of appending to the client's still has the last word.
            values: dict[bytes, list[str]] = {}
            for name, value in scope["headers"]:
                values.setdefault(name.lower(), []).append(value.decode("latin-1"))
            proto = ",".join(values.get(b"x-forwarded-proto", []))
            scheme = _SCHEMES.get(proto.split(",")[-1].strip().lower())
            if scheme is not None:
                ws = scope["type"] == "websocket"
                scope["scheme"] = scheme.replace("http", "ws") if ws else scheme
            forwarded = ",".join(values.get(b"x-forwarded-for", []))
            client = forwarded_client(forwarded, self.trusted) if forwarded else None
            if client is not None:
                scope["client"] = (client, 0)
        await self.app(scope, receive, send)

    def _proxy_of(self, scope: Scope) -> IPNetwork | None:
        """The first trusted entry holding the request's peer; None when none does."""
        peer = scope.get("client")
        address = _address(str(peer[0])) if peer else None
        if address is None:
            return None
        return next((network for network in self.trusted if address in network), None)
