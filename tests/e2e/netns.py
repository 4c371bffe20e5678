"""Separate hosts on this machine, for the multi-host test: each a network namespace of its own
joined to this one by a veth pair, and TCP relays that bring this machine's services (which
listen on 127.0.0.1 only) to the veth address, as a database or broker host would be reached.

Nothing here is simulated: a process in the namespace has its own loopback and routes, and
reaches Postgres, RabbitMQ and Redis only through its veth link and the relay.
"""

from __future__ import annotations

import contextlib
import ipaddress
import random
import socket
import subprocess
import threading
import uuid
from collections import Counter
from dataclasses import dataclass, field


def ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True, timeout=30)


def used_networks() -> list[ipaddress.IPv4Network]:
    out = subprocess.run(
        ["ip", "-o", "-4", "addr", "show"], check=True, capture_output=True, text=True
    ).stdout
    return [ipaddress.ip_interface(line.split()[3]).network for line in out.splitlines()]


def free_subnet() -> ipaddress.IPv4Network:
    """A /30 in 10.200.0.0/13 that no interface here uses (other suites may make hosts too)."""
    used = used_networks()
    while True:
        base = ipaddress.ip_address("10.200.0.0") + 4 * random.randrange(2**17)
        net = ipaddress.ip_network(f"{base}/30")
        if not any(net.overlaps(u) for u in used):
            return net


@dataclass
class Host:
    """A network namespace with a veth link to this one: ``address`` inside, ``gateway`` here."""

    namespace: str
    address: str
    gateway: str
    link: str

    @classmethod
    def create(cls) -> Host:
        tag = uuid.uuid4().hex[:8]
        namespace, here, there = f"br-{tag}", f"vbr{tag}", f"vbr{tag}p"
        net = free_subnet()
        gateway, address = (str(h) for h in net.hosts())
        ip("netns", "add", namespace)
        host = cls(namespace, address, gateway, here)
        try:
            ip("link", "add", here, "type", "veth", "peer", "name", there)
            ip("link", "set", there, "netns", namespace)
            ip("addr", "add", f"{gateway}/30", "dev", here)
            ip("link", "set", here, "up")
            ip("-n", namespace, "addr", "add", f"{address}/30", "dev", there)
            ip("-n", namespace, "link", "set", there, "up")
            ip("-n", namespace, "link", "set", "lo", "up")
        except BaseException:
            host.remove()
            raise
        return host

    def command(self, *argv: str) -> list[str]:
        """``argv`` run inside this host's namespace."""
        return ["ip", "netns", "exec", self.namespace, *argv]

    def remove(self) -> None:
        # Deleting the namespace deletes its end of the veth pair, and with it this end.
        subprocess.run(["ip", "netns", "del", self.namespace], capture_output=True, timeout=30)
        subprocess.run(["ip", "link", "del", self.link], capture_output=True, timeout=30)


@dataclass
class Relay:
    """Accepts on ``listen`` and forwards each connection to ``target``; counts who connected."""

    listen: tuple[str, int]
    target: tuple[str, int]
    peers: Counter[str] = field(default_factory=Counter)
    _server: socket.socket | None = None

    def start(self) -> Relay:
        server = socket.socket()
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(self.listen)
        server.listen(64)
        self._server = server
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def _accept(self) -> None:
        assert self._server is not None
        while True:
            try:
                client, (peer, _) = self._server.accept()
            except OSError:
                return  # closed
            self.peers[peer] += 1
            try:
                upstream = socket.create_connection(self.target, timeout=10)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=_pump, args=(a, b), daemon=True).start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.close()


def _pump(source: socket.socket, sink: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass
    finally:
        for s in (source, sink):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)


def unavailable() -> str | None:
    """Why hosts cannot be made here, or None if they can (tried for real)."""
    try:
        host = Host.create()
    except FileNotFoundError:
        return "iproute2's `ip` is not installed"
    except subprocess.CalledProcessError as exc:
        return f"cannot make a network namespace and veth pair ({exc.stderr.strip()}): needs root"
    host.remove()
    return None
