"""pytest-django's live server, with Nagle's algorithm off on the sockets it accepts.

Django's test server writes a response's headers and its body in separate sends. With Nagle on,
the body waits for the client to acknowledge the headers, and the client delays that ACK for
up to 40 ms (Linux' delayed ACK): every request to the live server took 40-50 ms whatever its
work. The API fuzz test's 450 requests spent 22 s of its 37 s so (2026-12-03); with the option
set, 4.5 s of 15. gunicorn, which serves the platform, sets it on its listening socket
(gunicorn/sock.py), so nothing of the product's own speed changes here.
"""

from __future__ import annotations

import socket
from typing import Any

import pytest
from django.core.servers.basehttp import ThreadedWSGIServer
from django.test.testcases import LiveServerThread


class NoDelayServer(ThreadedWSGIServer):
    def get_request(self) -> tuple[socket.socket, Any]:
        connection, address = super().get_request()
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return connection, address


def pytest_configure(config: pytest.Config) -> None:
    LiveServerThread.server_class = NoDelayServer
