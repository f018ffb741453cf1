"""`agentmemd bench import`: how fast `agentmemd import` stores a big chat export.

LoCoMo's conversations are rendered as each app's export (daemon/bench/exports.py), repeated a
year apart until there are ``--messages`` of them, and imported with the real command into a real
daemon, twice (the second run must add nothing). Two daemons: one as configured by default, where
the Observer compresses every finished imported session in the background while the import goes
on (``observer_caught_up_s``: from the import's start until it is done); and one with the Observer
out of reach (thresholds and ``observe_finished`` off), which is the import's own cost.

Next to the rate the import stores at (``--no-wait``), ``searchable_s``: from the import's start
until every message is searchable, by the readiness check `agentmemd import` waits on
(``channels.pending`` over the import's sessions), then checked by ``memory.search`` for the rare
words the last messages were given (``searchable_verified``).
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import tempfile
import time
import zipfile
from datetime import timedelta
from pathlib import Path
from typing import Any

import click

from agentmemd.daemon.bench import exports as render
from agentmemd.daemon.bench.benchmarks import _peak_rss_mb, bench_daemon
from agentmemd.memory.channels.formats import read_chat_export
from agentmemd.memory.core.models import PENDING_SESSIONS_MAX

RENDERED = ("whatsapp", "telegram", "slack", "discord")  # the declared formats LoCoMo is rendered as (exports.py)
MARKERS = ("quixotry", "zugzwang", "sphygmograph")  # words LoCoMo never uses, said by the last messages
NO_OBSERVER = (
    "[conversation]\nobserver_threshold_tokens = 1000000000\nreflector_threshold_tokens = 1000000000\n"
    "[channels]\nobserve_finished = false\n"
)


def _samples(locomo: list[dict[str, Any]], messages: int) -> list[tuple[dict[str, Any], timedelta]]:
    """LoCoMo conversations, cycled with a time shift, until they hold ``messages`` turns."""
    out, total, index = [], 0, 0
    while total < messages:
        sample = locomo[index % len(locomo)]
        out.append((sample, timedelta(days=400 * (index // len(locomo)))))
        total += render.whatsapp_message_count(sample)
        index += 1
    last, shift = out[-1]
    out[-1] = (_marked(last), shift)
    return out


def _marked(sample: dict[str, Any]) -> dict[str, Any]:
    """The sample with its last turns each saying one of the MARKERS (a repeated conversation's
    words are not its own: these find the last messages only)."""
    sample = copy.deepcopy(sample)
    conv = sample["conversation"]
    final = max(int(key.split("_")[1]) for key in conv if key.startswith("session_") and key.count("_") == 1)
    for turn, word in zip(conv[f"session_{final}"][-len(MARKERS) :], MARKERS):
        turn["text"] = f"{turn['text'].strip()} Word of the day: {word}."
    return sample


def _render(fmt: str, samples: list[tuple[dict[str, Any], timedelta]], root: Path) -> Path:
    if fmt == "whatsapp":  # one long chat: every conversation after the other
        path = root / "WhatsApp Chat with LoCoMo.txt"
        path.write_text("".join(render.render_whatsapp(s, shift=shift) for s, shift in samples))
        return path
    if fmt == "telegram":
        chats = [render.render_telegram([s], shift)["chats"]["list"][0] for s, shift in samples]
        for number, chat in enumerate(chats):
            chat["id"] = 5000 + number
        path = root / "result.json"
        path.write_text(json.dumps({"chats": {"list": chats}}))
        return path
    if fmt == "slack":  # one channel per conversation (a repeated one at the same times: other channels)
        return render.render_slack([s for s, _ in samples], root / "slack.zip")
    path = root / "discord.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for number, (sample, shift) in enumerate(samples):
            archive.writestr(f"chat-{number}.json", json.dumps(render.render_discord(sample, number, shift)))
    return path


def _import(socket: Path, fmt: str, path: Path, namespace: str) -> tuple[float, dict[str, Any]]:
    """The import's wall time until its messages are stored (--no-wait), and its report."""
    command = [sys.executable, "-m", "agentmemd.daemon.cli", "--socket", str(socket), "--json"]
    command += ["import", fmt, str(path), "--namespace", namespace, "--tz", "UTC", "--no-wait"]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, timeout=1800)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"agentmemd import {fmt} failed: {done.stderr[-2000:]}")
    return wall, json.loads(done.stdout)


def _searchable_at(client, report: dict[str, Any], namespace: str) -> float:
    """When (perf_counter) none of the import's messages was waiting for its episode any more."""
    sessions = [s for c in report["chats"] for s in c["sessions"]]
    params = {"namespace": namespace, **({"sessions": sessions} if len(sessions) <= PENDING_SESSIONS_MAX else {})}
    stopped_since = None
    while True:
        state = client.call("channels.pending", params)
        if state["pending"] == 0:
            return time.perf_counter()
        if state["indexing"]:
            stopped_since = None
        elif stopped_since is None:
            stopped_since = time.perf_counter()
        elif time.perf_counter() - stopped_since > 10:
            raise RuntimeError(f"the episode worker stopped with {state['pending']} turns left; see the daemon log")
        time.sleep(0.1)


def _markers_found(client, namespace: str) -> bool:
    """Whether memory.search finds each last message by its rare word (its episode is indexed)."""
    for word in MARKERS:
        hits = client.call("memory.search", {"query": word, "k": 5, "namespace": namespace})["results"]
        if not any(word in hit["content"] for hit in hits):
            return False
    return True


def _observer_caught_up(client, report: dict[str, Any], namespace: str) -> float:
    """When (perf_counter) the compaction worker had nothing left to do."""
    session = report["chats"][0]["sessions"][0]
    while not client.call("conversation.status", {"session": session, "namespace": namespace})["idle"]:
        time.sleep(0.2)
    return time.perf_counter()


def _observations(client, namespace: str) -> int:
    return len(client.call("observations.list", {"namespace": namespace})["observations"])


def bench_import(args) -> dict[str, Any]:
    locomo = json.loads(Path(args.data).read_text())
    formats = RENDERED if args.format == "all" else (args.format,)
    if not set(formats) <= set(RENDERED):
        raise click.UsageError(f"--format {args.format}: the bench renders LoCoMo as {', '.join(RENDERED)} only")
    root = Path(args.work_dir) if args.work_dir else Path(tempfile.mkdtemp(prefix="amdi", dir="/tmp"))
    root.mkdir(parents=True, exist_ok=True)
    samples = _samples(locomo, args.messages)
    results: dict[str, Any] = {"messages_asked": args.messages, "runs": {}}
    model = getattr(args, "model", None)
    chosen = f'[embedding]\nmodel = "{model}"\n' if model else ""
    for mode, extra in (("default_config", ""), ("observer_out_of_reach", NO_OBSERVER)):
        with bench_daemon(root / mode, chosen + extra) as (client, proc):
            socket = root / mode / "s.sock"
            for fmt in formats:
                path = _render(fmt, samples, root)
                started = time.perf_counter()
                parsed = read_chat_export(fmt, path)
                parse_s = time.perf_counter() - started
                count = sum(len(c.messages) for c in parsed.chats)
                started = time.perf_counter()
                wall, report = _import(socket, fmt, path, f"bench-{fmt}")
                searchable = _searchable_at(client, report, f"bench-{fmt}") - started
                verified = _markers_found(client, f"bench-{fmt}")
                caught_up = _observer_caught_up(client, report, f"bench-{fmt}") - started
                again_wall, again = _import(socket, fmt, path, f"bench-{fmt}")
                results["runs"][f"{mode}/{fmt}"] = {
                    "messages": count,
                    "chats": len(parsed.chats),
                    "file_mb": round(path.stat().st_size / 1e6, 2),
                    "parse_s": round(parse_s, 2),
                    "import_wall_s": round(wall, 2),
                    "messages_per_s": round(count / wall),
                    "searchable_s": round(searchable, 1),
                    "searchable_verified": verified,
                    "added": report["added"],
                    "sessions": sum(len(c["sessions"]) for c in report["chats"]),
                    "observer_caught_up_s": round(caught_up, 1),
                    "observations": _observations(client, f"bench-{fmt}"),
                    "reimport_wall_s": round(again_wall, 2),
                    "reimport_added": again["added"],
                }
            results[f"{mode}_daemon_peak_rss_mb"] = _peak_rss_mb(proc.pid)
    return results
