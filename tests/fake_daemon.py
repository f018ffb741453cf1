"""A stand-in for the daemon's socket that misbehaves on purpose: it speaks just enough of the
line protocol (one JSON-RPC request per line) for a door to get as far as the test wants, then
errs or hangs. For what a door does when its daemon is broken, not for what the daemon does."""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path
from typing import Any, Callable

HANG = object()  # read the request, never answer (until the fake is closed)
SCOPE = {"name": "app", "namespaces": ["default"], "default_namespace": "default"}
EMPTY_CONTEXT = {"system": "", "messages": [], "injected": {}, "budget_tokens": 16_000}


def error(code: int, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}


def hang_everything(method: str, params: dict[str, Any]) -> Any:
    return HANG


def hangs_after_the_context() -> Callable[[str, dict[str, Any]], Any]:
    """A daemon that authenticates, syncs and gives an empty context at once (`conversation.prepare`,
    or a sync and a `conversation.context`), then hangs on every later request (whatever method
    records the reply)."""
    answered_context = threading.Event()

    def answer(method: str, params: dict[str, Any]) -> Any:
        if answered_context.is_set():
            return HANG
        if method == "auth":
            return {"result": SCOPE}
        if method in ("conversation.sync", "conversation.prepare"):  # as if every turn was stored already
            turns = len(params.get("turns") or [])
            session = params.get("session") or "found-by-content"
            stored = params.get("offset", 0) + turns
            synced = {"session": session, "turns": stored, "transcript_turns": stored, "appended_seqs": []}
            if method == "conversation.sync":
                return {"result": {**synced, "last_seq": stored}}
            answered_context.set()  # the prepare holds the context
            return {"result": {**synced, "last_seq": stored, "context": EMPTY_CONTEXT}}
        if method == "conversation.context":
            answered_context.set()
            return {"result": EMPTY_CONTEXT}
        return {"result": {}}

    return answer


class FakeDaemon:
    """Listens on ``path``; ``answer(method, params)`` gives each request's reply: a dict with
    ``result`` or ``error``, or HANG. ``methods`` lists what was asked, in order."""

    def __init__(self, path: Path, answer: Callable[[str, dict[str, Any]], Any]):
        self.path, self.answer = Path(path), answer
        self.methods: list[str] = []
        self._stop = threading.Event()
        self._conns: list[socket.socket] = []
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(str(self.path))
        self._server.listen(64)
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._server.accept()
            except OSError:
                return
            self._conns.append(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn, conn.makefile("rb") as lines:
            for line in lines:
                request = json.loads(line)
                self.methods.append(request["method"])
                reply = self.answer(request["method"], request.get("params") or {})
                if reply is HANG:
                    self._stop.wait()
                    return
                conn.sendall(json.dumps({"jsonrpc": "2.0", "id": request["id"], **reply}).encode() + b"\n")

    def close(self) -> None:
        self._stop.set()
        self._server.close()
        for conn in self._conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self.path.unlink(missing_ok=True)

    def __enter__(self) -> "FakeDaemon":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
