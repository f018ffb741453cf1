"""``agentmemd bench proxy``: what the memory proxy costs and saves.

A real daemon, a real `agentmemd proxy` process and a local upstream that answers at once, so
what is measured is the proxy's own work:

* ``latency``: the same scripted conversation sent straight to the upstream and through the
  proxy (pack on), p50/p95 of each and the difference: back to back, as an agent's tool loop
  calls, so the daemon's background work for the previous reply (its SyncScore) is still
  running; and with a 2 s pause before each call, as a person types, so it is done. Beside it
  the floor, the daemon's own work for a turn (a query embedding and the pack, by `context.pack`
  on the socket, once the daemon is done with the proxied calls' background work), and the added
  p50 over it (target 1.5x); and the daemon's share, the same requests' `conversation.prepare`
  and `conversation.confirm` asked straight over the socket, back to back (what is left of the
  added latency is the proxy's own);
* ``socket_calls``: what each proxied call asks of the daemon, counted on a socket between them
  (target: at most 2, `conversation.prepare` and `conversation.confirm`, after the first call has
  opened and authenticated its connections);
* ``hung_daemon``: what a daemon that accepts and never answers costs a request at the default
  memory budget (target: at most 2 s, the request passing through unchanged);
* ``tokens``: the tokens the upstream received per turn over a long scripted session, through
  the proxy in ``augment`` and ``compact`` mode, against the app's full history;
* ``caching``: Anthropic's prompt cache over a 20-turn session of an app that caches its system
  prompt and moves its own breakpoint to its newest message each turn, sent straight to a fake
  upstream that keeps the cache's rules (daemon/bench/fake_upstream.py) and through the proxy in
  the same run: cache tokens written and read and plain input tokens per turn, direct, augment and
  compact, and the target: writes through the proxy at most 1.2 x direct plus the Memory Packs'
  tokens, reads growing with the history as they do direct. ``count_tokens``: what the proxy's
  `/v1/messages/count_tokens` answers for the last turn, against the tokens it sent for it.
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
from agentmemd.daemon.bench.fake_upstream import DEFAULT_MIN_CACHE_TOKENS, FakeAnthropic
from agentmemd.daemon.bench.socket_tap import SocketTap
from agentmemd.daemon.doors.history import sync_history, sync_turn
from agentmemd.daemon.proxy.messages import message_text
from agentmemd.memory.core.config import ConversationConfig
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


def _until_idle(client, session: str, seconds: float = 600.0) -> float:
    """Wait until the daemon has done its background work for ``session`` (its replies judged, its
    turns observed and made episodes), seen so on two looks 0.5 s apart; the seconds waited."""
    began = time.perf_counter()
    calm = 0
    while calm < 2 and time.perf_counter() - began < seconds:
        status = client.call("conversation.status", {"session": session})
        calm = calm + 1 if status["idle"] and status["episodes_pending"] == 0 else 0
        time.sleep(0.5)
    return round(time.perf_counter() - began, 1)


def _floor(client, script: list, added_p50: float) -> dict[str, Any]:
    """The daemon's own work for a turn, without the proxy: one query embedding and the pack, for
    each request's newest user text (a number appended, so the embedding is not one it cached), with
    the pack's share of the default context budget, on a daemon done with its background work (the
    floor measured while it still judged the proxied replies was ~6 ms higher). Target: the proxy
    adds at most 1.5x this."""
    conversation = ConversationConfig()
    budget = int(conversation.context_budget_tokens * conversation.memories_share)
    times = []
    for n, messages in enumerate(script):
        started = time.perf_counter()
        client.call("context.pack", {"query": f"{messages[-1]['content']} ({n})", "budget_tokens": budget})
        times.append((time.perf_counter() - started) * 1000)
    floor = _pct(times, 50)
    ratio = round(added_p50 / floor, 2) if floor else None
    return {
        "floor_p50_ms": floor,
        "floor_p95_ms": _pct(times, 95),
        "added_over_floor": ratio,
        "target_added_over_floor": 1.5,
        "met": ratio is not None and ratio <= 1.5,
    }


def _daemon_share(client, script: list, added_p50: float) -> dict[str, Any]:
    """The daemon's part of a proxied call: the same requests' ``conversation.prepare`` (the history
    synced, the context built) and ``conversation.confirm`` (the reply), asked straight over the
    socket as the proxy asks them, back to back, on a session of their own. What is left of the
    added latency is the proxy's own: HTTP, JSON, the request's rewriting and the upstream hop."""
    reply = [sync_turn(("assistant", message_text(json.loads(REPLY))))]
    prepared, confirmed = [], []
    for messages in script:
        turns = [(m["role"], m["content"]) for m in messages]
        started = time.perf_counter()
        out = sync_history(client, "daemon-share", None, turns, pending=True, context={"anchors_as": "user"})
        synced = time.perf_counter()
        client.call("conversation.confirm", {"session": out["session"], "upto": out["last_seq"], "reply": reply})
        prepared.append((synced - started) * 1000)
        confirmed.append((time.perf_counter() - synced) * 1000)
    prepare = _pct(prepared, 50)
    return {
        "daemon_prepare_p50_ms": prepare,
        "daemon_prepare_p95_ms": _pct(prepared, 95),
        "daemon_confirm_p50_ms": _pct(confirmed, 50),
        # p50s do not subtract exactly; near enough to say which side the time is on
        "added_p50_less_prepare_p50_ms": round(added_p50 - prepare, 1),
    }


def _hung_daemon(http: httpx2.Client, upstream: str, root: Path, script: list, key: dict) -> dict[str, Any]:
    """What a daemon that accepts and never answers costs a request, at the proxy's default memory
    budget (2 s): the worst of a few requests, which pass through unchanged. Target: at most 2 s added."""
    path = root / "hung.sock"
    held: list[socket.socket] = []
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(16)

    def accept() -> None:
        while True:
            try:
                held.append(server.accept()[0])  # kept open, never answered
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    proc, base = _proxy(path, upstream, root)
    try:
        times = _send_all(http, f"{base}/t/amt_hung", script, key)
    finally:
        proc.terminate()
        proc.wait(30)
        server.close()
        for conn in held:
            conn.close()
    worst = round(max(times), 1)
    return {
        "requests": len(times),
        "p50_ms": _pct(times, 50),
        "worst_ms": worst,
        "target_worst_ms": 2000 + 250,
        "met": worst <= 2250,
    }


def _socket_calls(
    http: httpx2.Client, sock: Path, token: str, upstream: str, root: Path, script: list, key: dict
) -> dict[str, Any]:
    """What each proxied call of a growing conversation asks of the daemon, counted on a socket
    between them (a fresh proxy, so its first call opens its connections). Target: at most 2."""
    with SocketTap(root / "tap.sock", sock) as tap:
        proc, base = _proxy(tap.path, upstream, root)
        try:
            per_call = []
            for messages in script:
                before = len(tap.requests)
                _send_all(http, f"{base}/t/{token}", [messages], {**key, "x-agentmemd-session": "counted"})
                deadline = time.monotonic() + 30  # the confirm runs beside the app: wait for it
                while time.monotonic() < deadline and "conversation.confirm" not in tap.methods()[before:]:
                    time.sleep(0.01)
                per_call.append(tap.methods()[before:])
        finally:
            proc.terminate()
            proc.wait(30)
    counts = [len(methods) for methods in per_call]
    beyond_auth = [len([m for m in methods if m != "auth"]) for methods in per_call]
    return {
        "calls": len(per_call),
        "per_call": counts,  # each call's, `auth` included where the call opened a connection
        "per_call_max_without_auth": max(beyond_auth),
        "auth": sum(methods.count("auth") for methods in per_call),  # once a connection
        "connections": tap.connections,
        "first_call": per_call[0],
        "later_call": per_call[-1],
        "target_per_call": 2,
        "met": max(beyond_auth) <= 2 and sum(methods.count("auth") for methods in per_call) <= tap.connections,
    }


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
                out["latency"]["floor_waited_for_idle_s"] = _until_idle(client, "latency")
                out["latency"].update(_floor(client, script, out["latency"]["added_p50_ms"]))
                out["latency"].update(_daemon_share(client, script, out["latency"]["added_p50_ms"]))
                _until_idle(client, "daemon-share")  # its replies judged before the paced calls
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
                out["socket_calls"] = _socket_calls(http, sock, token, upstream.url, root, script[:10], key)
                out["caching"] = _caching(http, sock, token, root, args)
                out["hung_daemon"] = _hung_daemon(http, upstream.url, root, script[:5], key)
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


# ---- caching: the provider's prompt cache, direct and through the proxy ----------------------------------

CACHE_TURNS = 20
CACHE_KEY = "bench-cache-key"
CACHE_MODEL = "claude-sonnet-4-6"
EPHEMERAL = {"type": "ephemeral"}
# An app's system prompt, over the cache's minimum (1,024 tokens), as a real one with tools and rules is.
APP_RULES = "You are the app's assistant. " + " ".join(
    f"Rule {i}: answer about {TOPICS[i % len(TOPICS)]} plainly, cite what the user said, keep it short."
    for i in range(60)
)


def _cached_turns(
    http: httpx2.Client, base: str, headers: dict[str, str], fake: FakeAnthropic, turns: int
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The app's conversation: its system prompt with a breakpoint, and a breakpoint on its newest
    message's last block, moved there each turn (the multi-turn pattern of Anthropic's caching docs).
    Returns the fake's usage for each turn, and the app's last request body."""
    history: list[dict[str, Any]] = []
    system = [{"type": "text", "text": APP_RULES, "cache_control": EPHEMERAL}]
    first = len(fake.usage_log)
    body: dict[str, Any] = {}
    for i in range(turns):
        topic = TOPICS[i % len(TOPICS)]
        text = f"Turn {i}: an hour on {topic} today, step {i * 3}. What should I try next with {topic}?"
        reply = f"Keep the step {i * 3} routine for {topic}, and change one thing next time."
        fake.script(text=reply)
        newest = {"role": "user", "content": [{"type": "text", "text": text, "cache_control": EPHEMERAL}]}
        body = {"model": CACHE_MODEL, "max_tokens": 64, "system": system, "messages": [*history, newest]}
        http.post(f"{base}/v1/messages", json=body, headers=headers).raise_for_status()
        history += [
            {"role": "user", "content": [{"type": "text", "text": text}]},
            {"role": "assistant", "content": reply},
        ]
    return fake.usage_log[first:], body


def _series(usage: list[dict[str, Any]]) -> dict[str, Any]:
    written = [u["cache_creation_input_tokens"] for u in usage]
    read = [u["cache_read_input_tokens"] for u in usage]
    plain = [u["input_tokens"] for u in usage]
    return {
        "written": written,
        "read": read,
        "input": plain,
        "total_input": [w + r + p for w, r, p in zip(written, read, plain)],
        "written_sum": sum(written),
        "read_sum": sum(read),
    }


def _caching(http: httpx2.Client, sock: Path, token: str, root: Path, args) -> dict[str, Any]:
    turns = getattr(args, "cache_turns", None) or CACHE_TURNS
    headers = {"x-api-key": CACHE_KEY, "anthropic-version": "2023-06-01"}
    out: dict[str, Any] = {"turns": turns, "min_cache_tokens": DEFAULT_MIN_CACHE_TOKENS}
    procs = []
    try:
        for mode in ("direct", "augment", "compact"):
            with FakeAnthropic(api_key=CACHE_KEY) as fake:
                base, mine = fake.base_url, headers
                if mode != "direct":
                    extra = ("--mode", "compact", "--budget", str(args.budget)) if mode == "compact" else ()
                    proc, proxy = _proxy(sock, fake.base_url, root, *extra)
                    procs.append(proc)
                    base, mine = f"{proxy}/t/{token}", {**headers, "x-agentmemd-session": f"cache-{mode}"}
                usage, last = _cached_turns(http, base, mine, fake, turns)
                sent = [r["body"] for r in fake.requests if r["path"] == "/v1/messages"]
                out[mode] = {**_series(usage), "prompt_tokens": [fake.count_tokens(b) for b in sent]}
                if mode == "augment":
                    # Our stable block: the last system block, when the proxy added one.
                    ours = [b["system"][-1] for b in sent if len(b.get("system") or []) > 1]
                    out[mode]["stable_block_tokens"] = [fake.count_tokens({"system": [b]}) for b in ours]
                    out["count_tokens"] = _count_check(http, base, mine, fake, last, sent[-1])
                if fake.internal_errors:
                    raise RuntimeError(f"the fake upstream failed: {fake.internal_errors[:3]}")
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(30)
    out["target"] = _target(out["direct"], out["augment"])
    return out


def _count_check(
    http: httpx2.Client, base: str, headers: dict[str, str], fake: FakeAnthropic, app_body: dict, sent: dict
) -> dict[str, Any]:
    """The proxy's count_tokens for the app's last request, against what the proxy sent for it."""
    counting = {k: v for k, v in app_body.items() if k != "max_tokens"}
    counted = http.post(f"{base}/v1/messages/count_tokens", json=counting, headers=headers)
    counted.raise_for_status()
    return {
        "app_body": fake.count_tokens(app_body),
        "counted_through_the_proxy": counted.json()["input_tokens"],
        "sent_through_the_proxy": fake.count_tokens(sent),
    }


def _target(direct: dict[str, Any], proxied: dict[str, Any]) -> dict[str, Any]:
    """Writes through the proxy at most 1.2 x direct plus the packs' tokens (what the proxy adds
    besides its stable block); reads growing with the history as they do direct."""
    added = [p - d for p, d in zip(proxied["prompt_tokens"], direct["prompt_tokens"])]
    stable = proxied.get("stable_block_tokens") or [0] * len(added)
    pack_tokens = sum(a - s for a, s in zip(added, stable + [0] * (len(added) - len(stable))))
    limit = 1.2 * direct["written_sum"] + pack_tokens
    reads = proxied["read"]
    grows = all(later > earlier for earlier, later in zip(reads[1:], reads[2:]))
    as_direct = all(p >= d for p, d in zip(reads[1:], direct["read"][1:]))
    written_ok = proxied["written_sum"] <= limit
    return {
        "written_proxy": proxied["written_sum"],
        "written_direct": direct["written_sum"],
        "pack_tokens": pack_tokens,
        "written_limit": round(limit, 1),
        "written_ok": written_ok,
        "reads_grow": grows and as_direct,
        "met": written_ok and grows and as_direct,
    }
