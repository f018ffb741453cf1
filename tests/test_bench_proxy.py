"""`agentmemd bench proxy`'s floor is the daemon's own work on a daemon done with its background
work (in-process: a scripted status, no daemon)."""

from __future__ import annotations

import pytest

from agentmemd.daemon.bench import proxy

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)


class _Statuses:
    """conversation.status answers in order, as the daemon works through the proxied replies."""

    def __init__(self, answers: list[tuple[bool, int]]):
        self.answers, self.asked = answers, 0

    def call(self, method: str, params: dict) -> dict:
        assert method == "conversation.status" and params == {"session": "latency"}
        idle, pending = self.answers[min(self.asked, len(self.answers) - 1)]
        self.asked += 1
        return {"idle": idle, "episodes_pending": pending}


def test_the_floor_waits_until_the_replies_are_judged_and_the_turns_indexed_two_looks_running(monkeypatch):
    """Measured right after the proxied calls, the floor's packs ran beside the judging of 120
    replies: 30.0 ms against 25.4 on a daemon done with it, which made the proxy look 1.75x its
    floor instead of 2.0x."""
    monkeypatch.setattr(proxy.time, "sleep", lambda _: None)
    daemon = _Statuses([(False, 0), (True, 3), (True, 0), (False, 0), (True, 0), (True, 0), (False, 0)])
    proxy._until_idle(daemon, "latency")
    assert daemon.asked == 6  # idle once, then busy again (a confirm's judging queued), then idle twice
