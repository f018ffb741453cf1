"""A correction keeps the date of what the memory says: memory.update with ``correction`` (what the
dashboard's "Correct it" form sends) writes a new version dated as the old one; the version's own
time is when it was written (``ingested``, the history's new_version event). Without it the fact
changed, and the new version is dated now. In process, fake embedder."""

from __future__ import annotations

import asyncio

import anyio
import httpx2
import pytest

from agentmemd.daemon.dashboard.app import Dashboard, DashboardSettings
from agentmemd.daemon.dashboard.link import PageError
from agentmemd.daemon.dashboard.routes import dashboard_app
from agentmemd.daemon.doors.calls import http_status
from agentmemd.daemon.socket.client import RpcCallError

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)

HAPPENED = "2024-05-01T10:00:00Z"
TOKEN = "dashboard-token-for-this-test"


@pytest.fixture
def d(in_process):
    return in_process({"clock": {"start": "2026-01-01T00:00:00Z"}}, fake_embedder=True)


def test_a_correction_keeps_the_memorys_date_and_is_written_now(d):
    first = d.call(
        "memory.add", {"content": "The user ran the Lisbon half maraton", "type": "fact", "created": HAPPENED}
    )
    happened = d.call("memory.get", {"id": first["id"]})["created"]
    assert happened.startswith("2024-05-01T10:00:00")
    d.call("clock.advance", {"hours": 24 * 10})
    now = d.call("clock.now", {})["now"]

    fixed = d.call(
        "memory.update", {"id": first["id"], "content": "The user ran the Lisbon half marathon", "correction": True}
    )["id"]
    record = d.call("memory.get", {"id": fixed})
    assert record["created"] == happened and record["version"] == 2
    listed = d.call("memory.list", {"contains": "marathon"})["items"]
    assert [(i["id"], i["created"]) for i in listed] == [(fixed, happened)]
    assert d.call("memory.list", {"created_from": "2026-01-01"})["total"] == 0  # not moved to the correction's day
    pack = d.call("context.pack", {"query": "Lisbon half marathon", "budget_tokens": 200})
    assert "2024-05-01" in pack["text"] and now[:10] not in pack["text"]

    # The version itself is of now: stored then, and the history's event says so.
    history = d.call("memory.history", {"id": fixed})
    assert history["versions"][-1]["ingested"] == now and history["versions"][-1]["created"] == happened
    assert [(e["kind"], e["at"]) for e in history["events"]] == [("new_version", now)]


def test_a_memory_added_without_a_date_keeps_its_day_through_corrections(d):
    added = d.call("memory.add", {"content": "The user's sister is called Ines", "type": "fact"})["id"]
    day = d.call("memory.get", {"id": added})["created"]
    d.call("clock.advance", {"hours": 24 * 3})
    second = d.call("memory.update", {"id": added, "content": "The user's sister is called Inês", "correction": True})
    d.call("clock.advance", {"hours": 24 * 3})
    third = d.call(
        "memory.update", {"id": second["id"], "content": "The user's older sister is called Inês", "correction": True}
    )["id"]
    assert d.call("memory.get", {"id": third})["created"] == day


def test_a_fact_that_changed_is_dated_now(d):
    lived = d.call("memory.add", {"content": "The user lives in Lyon", "type": "fact", "created": HAPPENED})["id"]
    d.call("clock.advance", {"hours": 24})
    now = d.call("clock.now", {})["now"]
    moved = d.call("memory.update", {"id": lived, "content": "The user lives in Paris"})["id"]
    assert d.call("memory.get", {"id": moved})["created"] == now


def test_a_fact_that_changed_may_be_dated_when_it_changed(d):
    lived = d.call("memory.add", {"content": "The user lives in Lyon", "type": "fact", "created": HAPPENED})["id"]
    moved = d.call(
        "memory.update", {"id": lived, "content": "The user lives in Paris", "created": "2025-09-01T00:00:00Z"}
    )["id"]
    assert d.call("memory.get", {"id": moved})["created"].startswith("2025-09-01")
    with pytest.raises(RpcCallError, match="created"):
        d.call("memory.update", {"id": moved, "content": "The user lives in Nice", "created": "last spring"})
    assert d.call("memory.get", {"id": moved})["superseded_by"] is None  # nothing changed


class _InProcessLink:
    """The dashboard's line to the daemon, to the in-process one (in a worker thread, as over the socket)."""

    def __init__(self, daemon):
        self.daemon = daemon

    async def call(self, method, params=None):
        try:
            return await anyio.to_thread.run_sync(lambda: self.daemon.call(method, params or {}))
        except RpcCallError as exc:
            raise PageError(http_status(exc), exc.message) from None

    async def optional(self, method, params=None):
        try:
            return await self.call(method, params)
        except PageError as exc:
            return {"unavailable": exc.message}


def test_correcting_on_the_dashboard_page_keeps_the_date(d, tmp_path):
    mid = d.call("memory.add", {"content": "The user adopted a cat named Mizo", "type": "fact", "created": HAPPENED})[
        "id"
    ]
    happened = d.call("memory.get", {"id": mid})["created"]
    d.call("clock.advance", {"hours": 24 * 30})
    dashboard = Dashboard(DashboardSettings(socket_path=tmp_path / "unused.sock", token=TOKEN))
    dashboard.link = _InProcessLink(d)

    async def correct() -> tuple[httpx2.Response, httpx2.Response]:
        transport = httpx2.ASGITransport(app=dashboard_app(dashboard))
        headers = {"Authorization": f"Bearer {TOKEN}"}
        async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1:8791", headers=headers) as web:
            posted = await web.post(
                f"/memories/default/{mid}/edit", data={"content": "The user adopted a cat named Miso"}
            )
            page = await web.get(posted.headers["location"]) if posted.status_code == 303 else posted
            return posted, page

    posted, page = asyncio.run(correct())
    assert posted.status_code == 303, posted.text
    fixed = posted.headers["location"].rsplit("/", 1)[-1]
    record = d.call("memory.get", {"id": fixed})
    assert record["content"].endswith("Miso") and record["supersedes"] == mid and record["created"] == happened
    assert page.status_code == 200 and "2024-05-01 10:00:00" in page.text
