"""Tries to reach a listener on the host's loopback (port given in the options)."""

import socket

port = None


def start(info):
    global port
    port = info["options"]["port"]


def act(observation, legal):
    s = socket.create_connection(("127.0.0.1", port), timeout=0.5)
    s.sendall(b"stolen")
    return legal["actions"][0]
