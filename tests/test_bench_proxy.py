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


class _Daemon:
    """conversation.prepare and confirm as the daemon answers them, on a clock they move: a
    prepare takes 30 ms, a confirm 5 ms."""

    def __init__(self, clock: list[float]):
        self.clock, self.calls, self.seq = clock, [], 0

    def call(self, method: str, params: dict) -> dict:
        self.calls.append((method, params))
        if method == "conversation.prepare":
            self.clock[0] += 0.030
            self.seq += len(params["turns"])
            return {"session": "s1", "appended_seqs": [self.seq], "last_seq": self.seq, "context": {}}
        assert method == "conversation.confirm"
        self.clock[0] += 0.005
        return {}


def test_the_daemons_share_of_a_proxied_call_is_its_prepare_timed_apart_from_its_confirm(monkeypatch):
    clock = [100.0]
    monkeypatch.setattr(proxy.time, "perf_counter", lambda: clock[0])
    daemon = _Daemon(clock)
    script = proxy._conversation(4)
    share = proxy._daemon_share(daemon, script, added_p50=50.0)
    assert share["daemon_prepare_p50_ms"] == pytest.approx(30.0)
    assert share["daemon_confirm_p50_ms"] == pytest.approx(5.0)
    assert share["added_p50_less_prepare_p50_ms"] == pytest.approx(20.0)
    methods = [m for m, _ in daemon.calls]
    assert methods == ["conversation.prepare", "conversation.confirm"] * 4
    prepare, confirm = daemon.calls[-2][1], daemon.calls[-1][1]
    assert prepare["session"] == "daemon-share" and prepare["pending"] is True and len(prepare["turns"]) == 7
    assert confirm["upto"] == daemon.seq and confirm["session"] == "s1"  # the history is not sent again
    assert [t["role"] for t in confirm["reply"]] == ["assistant"] and "routine" in confirm["reply"][0]["content"]
