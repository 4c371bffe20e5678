"""The live server of the tests answers without waiting on delayed ACKs (tests/support/live_server.py)."""

from __future__ import annotations

import socket

from django.core.servers.basehttp import WSGIRequestHandler
from django.test.testcases import LiveServerThread

from tests.support.live_server import NoDelayServer


def test_the_live_server_accepts_connections_with_nagle_off() -> None:
    assert LiveServerThread.server_class is NoDelayServer
    server = NoDelayServer(("127.0.0.1", 0), WSGIRequestHandler)
    try:
        with socket.create_connection(("127.0.0.1", server.server_port)):
            accepted, _ = server.get_request()
            with accepted:
                assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
    finally:
        server.server_close()
