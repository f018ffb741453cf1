"""Door processes for tests: `agentmemd proxy|webhooks|...` started on a port with their stderr
(the JSON log lines) in a file of its own, and the lines read back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx2

REQUEST = {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}


def start_door(args: list[str], port: int, log: Path) -> subprocess.Popen:
    """`agentmemd ARGS` listening on ``port``; ``log`` gets its stderr alone (stdout goes beside it)."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    with open(log.with_suffix(".stdout"), "ab") as out, open(log, "ab") as err:
        proc = subprocess.Popen([sys.executable, "-m", "agentmemd.daemon.cli", *args], stdout=out, stderr=err, env=env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            httpx2.get(f"http://127.0.0.1:{port}/", timeout=1)
            return proc
        except httpx2.HTTPError:
            if proc.poll() is not None:
                raise RuntimeError(f"{args[0]} exited with {proc.returncode}:\n{log.read_text()}") from None
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"{args[0]} did not listen on {port}:\n{log.read_text()}")


def json_lines(log: Path) -> list[dict]:
    entries = []
    for line in log.read_text().splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict):
            entries.append(entry)
    return entries


def warnings_about(log: Path, event: str) -> list[dict]:
    return [e for e in json_lines(log) if e.get("level") == "warning" and event in e.get("event", "")]


def stop(proc: subprocess.Popen) -> None:
    """SIGTERM; SIGKILL if a request it is still serving keeps it past 5 s (a hung daemon's)."""
    proc.terminate()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=30)


def start_proxy(
    daemon_socket: Path, upstream: str, log: Path, *extra: str, openai_upstream: str | None = None
) -> tuple[subprocess.Popen, int]:
    """`agentmemd proxy` on a free port in front of ``upstream`` (and ``openai_upstream``, the same
    one unless given); its process and port. Its memory step gets a budget no loaded machine
    runs out of (``MEMORY_BUDGET``), unless ``extra`` sets one: a test of what memory adds must not
    see the fail-open path because CI was busy (test_proxy_budget.py tests that path on purpose)."""
    from conftest import free_port, start_listener

    port = free_port()
    args = ["proxy", "--socket", str(daemon_socket), "--listen", f"127.0.0.1:{port}", "--upstream", upstream]
    budget = [] if "--memory-timeout" in extra else ["--memory-timeout", str(MEMORY_BUDGET)]
    return start_listener([*args, "--openai-upstream", openai_upstream or upstream, *budget, *extra], port, log), port


MEMORY_BUDGET = 60.0  # seconds; the default (2 s) is for people, whose daemon is not sharing 2 cores with pytest
