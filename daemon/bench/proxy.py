"""``agentmemd bench proxy``: what the memory proxy costs and saves (issue 14).

A real daemon, a real `agentmemd proxy` process and a local upstream that answers at once, so
what is measured is the proxy's own work:

* ``latency``: the same scripted conversation sent straight to the upstream and through the
  proxy (pack on), p50/p95 of each and the difference: back to back, as an agent's tool loop
  calls, so the daemon's background work for the previous reply (its SyncScore) is still
  running; and with a 2 s pause before each call, as a person types, so it is done;
* ``tokens``: the tokens the upstream received per turn over a long scripted session, through
  the proxy in ``augment`` and ``compact`` mode, against the app's full history.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx2

from agentmemd.daemon.bench.benchmarks import _pct, bench_daemon, free_port, start_listener
from agentmemd.daemon.proxy.messages import message_text
from agentmemd.memory.core.tokens import count_tokens

TOPICS = ("hiking", "cooking", "python", "guitar", "garden", "travel", "chess", "running", "coffee", "books")
REPLY = json.dumps(
    {
        "id": "msg_bench",
        "type": "message",
        "role": "assistant",
        "model": "bench",
        # A reply with claims, as a model's are: the SyncScore judge checks them against the pack.
        "content": [
            {
                "type": "text",
                "text": "Good to hear it went well. Keep the routine that worked for you, "
                "note what felt hard, and next time try one small change so you can tell what helped.",
            }
        ],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
).encode()


class _Upstream:
    """Answers every POST at once with one short message; keeps each request body's token count."""

    def __init__(self) -> None:
        self.tokens: list[int] = []
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def setup(self):
                super().setup()
                # Headers and body go in two writes: without this, Nagle + delayed ACK add ~40 ms.
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                system = body.get("system")
                system_text = system if isinstance(system, str) else " ".join(b.get("text", "") for b in system or [])
                upstream.tokens.append(
                    count_tokens(system_text) + sum(count_tokens(message_text(m)) for m in body.get("messages", []))
                )
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(REPLY)))
                self.end_headers()
                self.wfile.write(REPLY)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _proxy(sock: Path, upstream: str, root: Path, *extra: str) -> tuple[subprocess.Popen, str]:
    port = free_port()
    args = ["proxy", "--socket", str(sock), "--listen", f"127.0.0.1:{port}", "--upstream", upstream, *extra]
    return start_listener(args, port, root / f"proxy-{port}.log"), f"http://127.0.0.1:{port}"


def _conversation(turns: int) -> list[list[dict[str, str]]]:
    """The request bodies' message lists of a scripted session: each turn adds a user message
    (and the previous reply), as an app resends its whole history."""
    history: list[dict[str, str]] = []
    requests = []
    for i in range(turns):
        topic = TOPICS[i % len(TOPICS)]
        history.append(
            {
                "role": "user",
                "content": f"Turn {i}: today I spent an hour on {topic}, step {i * 3}. It went better than last "
                f"time, and I want to keep a note of what worked and what to try next with {topic}.",
            }
        )
        requests.append(list(history))
        history.append(
            {
                "role": "assistant",
                "content": f"Good to hear the {topic} went well. Keep the step {i * 3} routine, note what "
                "felt hard, and next time try one small change so you can tell what helped.",
            }
        )
    return requests


def _send_all(
    http: httpx2.Client, base: str, requests: list, headers: dict[str, str], pause: float = 0.0
) -> list[float]:
    times = []
    for messages in requests:
        time.sleep(pause)
        body = {"model": "bench", "max_tokens": 16, "system": "You are a helpful app.", "messages": messages}
        started = time.perf_counter()
        response = http.post(f"{base}/v1/messages", json=body, headers=headers)
        times.append((time.perf_counter() - started) * 1000)
        response.raise_for_status()
    return times


PAUSE_SECONDS = 2.0  # between the paced calls, as a person types: the previous reply's SyncScore is done


def _added(direct: list[float], proxied: list[float]) -> dict[str, Any]:
    return {
        "requests": len(proxied),
        "direct_p50_ms": _pct(direct, 50),
        "direct_p95_ms": _pct(direct, 95),
        "proxy_p50_ms": _pct(proxied, 50),
        "proxy_p95_ms": _pct(proxied, 95),
        "added_p50_ms": round(_pct(proxied, 50) - _pct(direct, 50), 1),
        "added_p95_ms": round(_pct(proxied, 95) - _pct(direct, 95), 1),
    }


def bench_proxy(args) -> dict[str, Any]:
    root = Path(args.work_dir) if args.work_dir else Path(tempfile.mkdtemp(prefix="amdp", dir="/tmp"))
    root.mkdir(parents=True, exist_ok=True)
    upstream = _Upstream()
    procs: list[subprocess.Popen] = []
    try:
        with bench_daemon(root / "daemon") as (client, _):
            items = [
                {"content": f"The user enjoys {TOPICS[i % 10]}; note {i} about it.", "type": "fact"}
                for i in range(args.memories)
            ]
            for start in range(0, len(items), 500):
                client.call("memory.add_many", {"items": items[start : start + 500]})
            token = client.call("access.tokens.create", {"name": "bench", "namespaces": ["default"]})["secret"]
            sock = root / "daemon" / "s.sock"
            key = {"x-api-key": "bench-key", "anthropic-version": "2023-06-01"}
            out: dict[str, Any] = {"memories": args.memories}
            with httpx2.Client(timeout=120) as http:
                script = _conversation(args.turns)
                proc, base = _proxy(sock, upstream.url, root)
                procs.append(proc)
                _send_all(http, upstream.url, script[:3], key)  # warm both paths
                _send_all(http, f"{base}/t/{token}", script[:3], {**key, "x-agentmemd-session": "warm"})
                direct = _send_all(http, upstream.url, script, key)
                upstream.tokens.clear()
                proxied = _send_all(http, f"{base}/t/{token}", script, {**key, "x-agentmemd-session": "latency"})
                augment_tokens = list(upstream.tokens)
                out["latency"] = _added(direct, proxied)
                paced = script[: args.paced_turns]
                direct = _send_all(http, upstream.url, paced, key, PAUSE_SECONDS)
                headers = {**key, "x-agentmemd-session": "paced"}
                out["latency_paced"] = {
                    "pause_ms": PAUSE_SECONDS * 1000,
                    **_added(direct, _send_all(http, f"{base}/t/{token}", paced, headers, PAUSE_SECONDS)),
                }
                proc, compact_base = _proxy(sock, upstream.url, root, "--mode", "compact", "--budget", str(args.budget))
                procs.append(proc)
                upstream.tokens.clear()
                _send_all(http, f"{compact_base}/t/{token}", script, {**key, "x-agentmemd-session": "compact"})
                compact_tokens = list(upstream.tokens)
            full = [sum(count_tokens(m["content"]) for m in messages) for messages in script]
            out["tokens"] = {
                "turns": len(script),
                "compact_budget": args.budget,
                "full_history_mean": round(sum(full) / len(full), 1),
                "full_history_last": full[-1],
                "augment_mean": round(sum(augment_tokens) / len(augment_tokens), 1),
                "augment_last": augment_tokens[-1],
                "compact_mean": round(sum(compact_tokens) / len(compact_tokens), 1),
                "compact_last": compact_tokens[-1],
            }
            return out
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(30)
        upstream.close()
        if not args.work_dir:
            shutil.rmtree(root, ignore_errors=True)
