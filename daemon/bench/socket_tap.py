"""A socket in front of a daemon's that counts what a door asks of it (``agentmemd bench proxy``
and the tests of a proxied call's round trips): every line passes through unchanged."""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path


class SocketTap:
    """A socket in front of a real daemon's: every line passes through unchanged, and each request
    (method and size in bytes) is noted with the connection it came on, so a test can count what a
    door asks of its daemon."""

    def __init__(self, path: Path, daemon_socket: Path):
        self.path, self.daemon_socket = Path(path), Path(daemon_socket)
        self.requests: list[tuple[int, str, int]] = []  # (connection number, method, bytes)
        self.connections = 0
        self._lock = threading.Lock()
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(str(self.path))
        self._server.listen(64)
        threading.Thread(target=self._accept, daemon=True).start()

    def methods(self) -> list[str]:
        with self._lock:
            return [method for _, method, _ in self.requests]

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._server.accept()
            except OSError:
                return
            with self._lock:
                self.connections += 1
                number = self.connections
            upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                upstream.connect(str(self.daemon_socket))
            except OSError:  # no daemon there (stopped, restarting): the door sees its connection closed
                upstream.close()
                conn.close()
                continue
            threading.Thread(target=self._requests, args=(number, conn, upstream), daemon=True).start()
            threading.Thread(target=self._answers, args=(conn, upstream), daemon=True).start()

    def _requests(self, number: int, conn: socket.socket, upstream: socket.socket) -> None:
        try:
            with conn.makefile("rb") as lines:
                for line in lines:
                    with self._lock:
                        self.requests.append((number, json.loads(line)["method"], len(line)))
                    upstream.sendall(line)
            upstream.shutdown(socket.SHUT_WR)
        except OSError:  # either side went away (a daemon stopped): the other is closed by _answers
            upstream.close()

    @staticmethod
    def _answers(conn: socket.socket, upstream: socket.socket) -> None:
        try:
            with upstream, upstream.makefile("rb") as lines:
                for line in lines:
                    conn.sendall(line)
        except OSError:
            pass
        conn.close()

    def close(self) -> None:
        self._server.close()
        self.path.unlink(missing_ok=True)

    def __enter__(self) -> "SocketTap":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
