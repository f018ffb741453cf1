"""The in-process tier: the engine and the JSON-RPC Dispatcher without a process or a socket.

``InProcessDaemon`` answers ``call(method, params)`` exactly as a ``DaemonProcess`` does
(the same Dispatcher, JSON in and out, a single store thread, errors as RpcCallError), so a
test of behaviour does not pay for a process start. Tests of what only a process shows
(the lock, signals, kill -9, the watcher, the scheduler, the socket) use DaemonProcess.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from agentmemd.daemon.socket.client import RpcCallError
from agentmemd.daemon.socket.methods import build_methods
from agentmemd.daemon.socket.rpc import Caller, Dispatcher
from agentmemd.memory.core.config import load_config
from agentmemd.memory.core.text import words
from agentmemd.memory.core.threads import background_result, become_background
from agentmemd.memory.retrieval.embeddings import Embedder, MiniLMEmbedder, embed_in_windows, windows


class HashEmbedder:
    """A fake at the expensive boundary: honours the Embedder protocol with no model.

    Each word adds a fixed pseudo-random unit vector (from its hash), so texts that share
    words are near each other and the same text always gives the same vector."""

    name = "all-MiniLM-L6-v2"  # the store checks the model's dimension, not its weights
    dim = 384

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in words(text) or [""]:
                seed = int.from_bytes(hashlib.sha256(word.encode()).digest()[:8], "little")
                out[row] += np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)
            out[row] /= max(float(np.linalg.norm(out[row])), 1e-12)
        return out

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]

    def embed_cached(self, texts: list[str]) -> np.ndarray:
        return self.embed(texts)

    def embed_passages(self, texts: list[str]) -> list[np.ndarray]:
        """Windows of 64 words overlapping by 16, so a long text takes the same path as with the real model."""
        return embed_in_windows(self, texts, lambda t: windows(t, [m.span() for m in re.finditer(r"\S+", t)], 64, 16))


_MINILM: list[MiniLMEmbedder] = []


def minilm() -> MiniLMEmbedder:
    """One real model per test process, shared by every in-process daemon that needs real recall."""
    if not _MINILM:
        _MINILM.append(MiniLMEmbedder())
    return _MINILM[0]


class InProcessConnection:
    """One connection's standing (a Caller) over the shared Dispatcher."""

    def __init__(self, dispatcher: Dispatcher, token: str | None = None):
        self.dispatcher = dispatcher
        self.caller = Caller()
        self._ids = 0
        if token is not None:
            self.call("auth", {"token": token})

    def send_raw(self, line: bytes) -> Any:
        reply = asyncio.run(self.dispatcher.handle_line(line, self.caller))
        return None if reply is None else json.loads(reply)

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        self._ids += 1
        request = {"jsonrpc": "2.0", "id": self._ids, "method": method, "params": params or {}}
        response = self.send_raw(json.dumps(request).encode("ascii"))
        if "error" in response:
            err = response["error"]
            raise RpcCallError(err["code"], err["message"], err.get("data"))
        return response["result"]


class InProcessDaemon:
    """Services + Dispatcher over a temp data dir; ``call`` as over the socket."""

    def __init__(
        self, root: Path, config: dict | None = None, *, embedder: Embedder | None = None, workspace: Path | None = None
    ):
        from agentmemd.daemon.services.app import Services

        self.root = Path(root)
        self.data_dir = self.root / "data"
        self.data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.config = load_config(None, config or {})
        chosen = workspace or (self.config.workspace.path or None)
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="test-store")
        self.wait_executor = ThreadPoolExecutor(max_workers=4, thread_name_prefix="test-wait")
        # Jobs someone asks for run here, as the daemon's jobs thread runs them: background work.
        self.jobs_executor = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="test-jobs", initializer=become_background
        )
        self.services = Services.open(
            self.config,
            self.data_dir,
            workspace=Path(chosen) if chosen else None,
            embedder=embedder or minilm(),
            run_on_store=self.run_on_store,
            run_in_background=lambda fn: background_result(self.jobs_executor.submit(fn)),
        )
        self.dispatcher = Dispatcher(
            build_methods(self.services), self.executor, self.wait_executor, self.services.access.admit
        )
        # What `serve` does before and right after the socket opens.
        if self.services.indexer is not None:
            self.services.indexer.catch_up()  # it hands its transaction to the store thread itself
        self.services.runner.catch_up()
        self.run_on_store(self.services.recover)
        self._owner = InProcessConnection(self.dispatcher)
        self._stopped = False

    def run_on_store(self, fn):
        return self.executor.submit(fn).result()

    def send_raw(self, line: bytes) -> Any:
        return self._owner.send_raw(line)

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        return self._owner.call(method, params)

    def connect(self, token: str | None = None) -> "InProcessConnection":
        """A connection of its own (as a second socket client), authenticated with ``token`` if given."""
        return InProcessConnection(self.dispatcher, token)

    def client(self) -> "InProcessDaemon":
        return self

    def __enter__(self) -> "InProcessDaemon":
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def terminate(self) -> None:
        """Stop as `serve` does on SIGTERM; a second call does nothing."""
        if self._stopped:
            return
        self._stopped = True
        self.services.stop_workers()
        self.executor.shutdown(wait=True)
        self.wait_executor.shutdown(wait=False, cancel_futures=True)
        self.jobs_executor.shutdown(wait=True)
        self.services.store.close()
