"""The root conftest keeps every test offline: outside addresses and lookups fail at once."""

import socket

import pytest


def test_an_outside_address_is_refused() -> None:
    with (
        socket.socket(socket.AF_INET, socket.SOCK_STREAM) as client,
        pytest.raises(OSError, match="tests stay offline"),
    ):
        client.connect(("203.0.113.7", 80))  # TEST-NET-3: never routed


def test_an_outside_name_is_not_even_looked_up() -> None:
    with pytest.raises(OSError, match="tests stay offline"):
        socket.getaddrinfo("example.com", 443)


def test_loopback_still_works() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        with socket.create_connection(server.getsockname(), timeout=5) as client:
            accepted, _ = server.accept()
            client.sendall(b"ping")
            assert accepted.recv(4) == b"ping"
            accepted.close()
