"""Corrections that arrive after a chat message was stored: a Slack or Telegram edit supersedes the
message's turn and what was made only from it; a Slack deletion leaves a tombstone and forgets what
was made only from it; a live Slack speaker is named, not shown by their user id. The webhook
listener's app, in process, in front of an in-process daemon (no socket: its one daemon call goes
to the daemon's dispatcher)."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from pathlib import Path

import anyio
import pytest
from conftest import REPO
from starlette.testclient import TestClient

from agentmemd.daemon.socket.client import RpcCallError
from agentmemd.daemon.webhooks.app import WebhookSettings, build_webhook_app
from agentmemd.memory.channels.exports import from_epoch
from agentmemd.memory.channels.ingest import batches
from agentmemd.memory.channels.slack import read_slack
from agentmemd.memory.core.clock import format_time
from agentmemd.memory.llm.tasks import SUMMARISE

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)

SLACK_SECRET = "slack-signing-corrections"
TELEGRAM_SECRET = "tg-secret-corrections"
NS = "live"
SENT = 1710236000  # 2024-03-12 09:33:20 UTC


@pytest.fixture
def hooks(in_process, monkeypatch):
    """(daemon, the listener's HTTP client) over one in-process daemon with the fake embedder."""
    d = in_process({"clock": {"start": "2024-03-20T09:00:00Z"}}, fake_embedder=True)

    async def call_daemon(socket_path, method, params=None, *, token=None, timeout=60.0):
        return await anyio.to_thread.run_sync(lambda: d.call(method, params))  # it runs a loop of its own

    monkeypatch.setattr("agentmemd.daemon.webhooks.app.call_daemon", call_daemon)
    settings = WebhookSettings(
        socket_path=Path("/nonexistent.sock"),
        namespace=NS,
        telegram_secret=TELEGRAM_SECRET,
        slack_signing_secret=SLACK_SECRET,
    )
    with TestClient(build_webhook_app(settings)) as client:
        yield d, client


def _slack(client: TestClient, event: dict) -> dict:
    body = json.dumps({"type": "event_callback", "event_id": "Ev1", "event": event}).encode()
    stamp = str(int(time.time()))
    signature = "v0=" + hmac.new(SLACK_SECRET.encode(), f"v0:{stamp}:".encode() + body, hashlib.sha256).hexdigest()
    headers = {"X-Slack-Request-Timestamp": stamp, "X-Slack-Signature": signature, "Content-Type": "application/json"}
    sent = client.post("/slack", content=body, headers=headers)
    assert sent.status_code == 200, sent.text
    return sent.json()


def _said(ts: str, text: str, user: str = "U01ANA", **extra) -> dict:
    return {"type": "message", "channel": "C0TEAM", "channel_type": "channel", "user": user, "text": text,
            "ts": ts, **extra}  # fmt: skip


def _changed(ts: str, text: str, edited: str) -> dict:
    return {"type": "message", "subtype": "message_changed", "hidden": True, "channel": "C0TEAM", "ts": edited,
            "event_ts": edited, "message": {"type": "message", "user": "U01ANA", "text": text, "ts": ts,
                                            "edited": {"user": "U01ANA", "ts": edited}}}  # fmt: skip


def _deleted(ts: str, at: str) -> dict:
    return {"type": "message", "subtype": "message_deleted", "hidden": True, "channel": "C0TEAM", "ts": at,
            "event_ts": at, "deleted_ts": ts}  # fmt: skip


def _turns(d, query: str) -> list[dict]:
    return d.call("conversation.search", {"query": query, "namespace": NS})["turns"]


def _memories(d, query: str) -> list[dict]:
    return d.call("memory.search", {"query": query, "namespace": NS})["results"]


def _row(d, memory_id: str) -> dict:
    return d.run_on_store(lambda: d.services.store.get(memory_id))[0]


def _messages(d) -> int:
    return sum(c["messages"] for c in d.call("chats.list", {"namespace": NS})["chats"])


def test_a_slack_edit_supersedes_the_turn_and_its_episode_dated_at_the_edit(hooks):
    d, client = hooks
    first, later, edit_ts = f"{SENT}.000100", f"{SENT + 60}.000100", f"{SENT + 500}.000200"
    assert _slack(client, _said(first, "The offsite moves to Sintra on Friday"))["stored"] == 1
    assert _slack(client, _said(later, "Bring walking shoes", user="U02BEN"))["stored"] == 1
    d.services.episodes.catch_up()
    episode = _memories(d, "offsite Sintra")[0]
    assert "Sintra" in episode["content"]
    neighbour = next(h for h in _memories(d, "walking shoes") if "walking shoes" in h["content"])
    assert "Sintra" in _row(d, neighbour["id"])["context"]  # its neighbourhood quotes the first message

    done = _slack(client, _changed(first, "The offsite moves to Cascais on Friday", edit_ts))
    assert done == {"ok": True, "status": "edited", "chat": "slack:C0TEAM"}
    assert _turns(d, "Sintra") == [] and _messages(d) == 2  # one turn per message, as sent last
    (turn,) = _turns(d, "Cascais")
    assert turn["content"] == "The offsite moves to Cascais on Friday" and turn["ts"].startswith("2024-03-12T09:33:20")
    assert not any("Sintra" in h["content"] for h in _memories(d, "offsite Sintra"))
    current = next(h for h in _memories(d, "offsite Cascais") if "Cascais" in h["content"])
    history = d.call("memory.history", {"id": current["id"], "namespace": NS})
    old, new = history["versions"]
    assert old["id"] == episode["id"] and "Sintra" in old["content"] and new["id"] == current["id"]
    assert new["created"] == format_time(from_epoch(edit_ts))  # dated at the edit, not when it arrived
    assert "Cascais" in _row(d, neighbour["id"])["context"] and "Sintra" not in _row(d, neighbour["id"])["context"]

    # Slack sends an event again when it got no 200 in time: the second changes nothing.
    again = _slack(client, _changed(first, "The offsite moves to Cascais on Friday", edit_ts))
    assert again["status"] == "unchanged"
    assert len(d.call("memory.history", {"id": current["id"], "namespace": NS})["versions"]) == 2
    # An older edit arriving late is not applied over the newer one.
    late = _slack(client, _changed(first, "The offsite moves to Porto", f"{SENT + 300}.000000"))
    assert late["status"] == "stale" and _turns(d, "Porto") == []


def test_a_slack_deletion_leaves_a_tombstone_and_forgets_what_was_made_only_from_it(hooks):
    d, client = hooks
    secret, after = f"{SENT}.000100", f"{SENT + 60}.000100"
    _slack(client, _said(secret, "The door code for the lab is 4417, keep it quiet"))
    _slack(client, _said(after, "See you at lunch", user="U02BEN"))
    d.services.episodes.catch_up()
    episode = next(h for h in _memories(d, "door code lab") if "4417" in h["content"])
    neighbour = next(h for h in _memories(d, "see you at lunch") if "lunch" in h["content"])
    assert "4417" in _row(d, neighbour["id"])["context"]
    seqs = sorted(t["seq"] for t in _turns(d, "door code lunch"))
    # A fact made from this message alone goes with it; one made from it and the next is kept, and said.
    alone = d.call("memory.add", {"content": "The lab door code is 4417", "type": "fact", "namespace": NS})["id"]
    both = d.call("memory.add", {"content": "Ana shares lab codes before lunch", "type": "fact", "namespace": NS})
    d.run_on_store(
        lambda: (d.services.store.link_turns(alone, seqs[:1]), d.services.store.link_turns(both["id"], seqs))
    )
    d.call("context.pack", {"query": "door code for the lab", "budget_tokens": 400, "namespace": NS})

    assert _slack(client, _deleted(secret, f"{SENT + 900}.000300")) == {
        "ok": True,
        "status": "deleted",
        "chat": "slack:C0TEAM",
    }
    assert _turns(d, "door code 4417") == []
    assert not any("4417" in h["content"] for h in _memories(d, "door code lab 4417"))
    pack = d.call("context.pack", {"query": "door code for the lab", "budget_tokens": 400, "namespace": NS})
    assert "4417" not in pack["text"]
    for gone in (episode["id"], alone):
        with pytest.raises(RpcCallError):
            d.call("memory.get", {"id": gone, "namespace": NS})
    assert d.call("memory.get", {"id": both["id"], "namespace": NS})["content"] == "Ana shares lab codes before lunch"
    session = d.call("conversation.list", {"namespace": NS})["sessions"][0]["session"]
    tombstone, lunch = d.call("conversation.turns", {"session": session, "namespace": NS})["turns"]
    assert (tombstone["content"], tombstone["speaker"]) == ("(deleted)", "U01ANA")
    assert tombstone["ts"].startswith("2024-03-12T09:33:20") and lunch["content"] == "See you at lunch"
    assert "4417" not in _row(d, neighbour["id"])["context"]  # indexed again with the tombstone before it

    # Through the socket, the deletion says what it did; again, it is already done; an edit cannot revive it.
    params = {"channel": "slack", "chat_id": "slack:C0TEAM", "message_id": secret, "namespace": NS}
    assert d.call("channels.delete", {**params, "deleted_at": "2024-03-12T10:00:00Z"})["status"] == "already deleted"
    revived = d.call("channels.edit", {**params, "text": "code 9999", "edited_at": "2024-03-12T10:00:00Z"})
    assert revived["status"] == "already deleted" and _turns(d, "9999") == []


def test_an_edit_lists_the_memories_made_from_other_turns_too_and_leaves_them(hooks):
    d, client = hooks
    first, second = f"{SENT}.000100", f"{SENT + 30}.000100"
    _slack(client, _said(first, "Standup is at 9:30"))
    _slack(client, _said(second, "In the small room", user="U02BEN"))
    seqs = sorted(t["seq"] for t in _turns(d, "standup room"))
    d.services.episodes.catch_up()
    alone = d.call("memory.add", {"content": "Standup is at 9:30", "type": "fact", "namespace": NS})["id"]
    both = d.call("memory.add", {"content": "Standup: 9:30, small room", "type": "fact", "namespace": NS})["id"]
    d.run_on_store(lambda: (d.services.store.link_turns(alone, seqs[:1]), d.services.store.link_turns(both, seqs)))
    params = {"channel": "slack", "chat_id": "slack:C0TEAM", "message_id": first, "namespace": NS}
    done = d.call("channels.edit", {**params, "text": "Standup is at 10:00", "edited_at": "2024-03-12T09:40:00Z"})
    assert done["status"] == "edited" and done["turn"] == seqs[0]
    # Made only from it: its episode and the fact, each a new version saying the new text.
    versions = {v["type"]: v for v in done["new_versions"]}
    assert set(versions) == {"episode", "fact"} and versions["fact"]["supersedes"] == alone
    for version in versions.values():
        new = d.call("memory.get", {"id": version["id"], "namespace": NS})
        assert new["content"] == "U01ANA said: Standup is at 10:00" and new["created"] == "2024-03-12T09:40:00.000000Z"
    assert [(k["id"], k["turns"]) for k in done["kept"]] == [(both, seqs)]
    assert d.call("memory.get", {"id": both, "namespace": NS})["superseded_by"] is None


def test_a_telegram_edit_is_the_same_turn_with_the_new_text(hooks):
    d, client = hooks
    headers = {"X-Telegram-Bot-Api-Secret-Token": TELEGRAM_SECRET}
    message = {"message_id": 501, "from": {"id": 2002, "first_name": "Ana"}, "chat": {"id": 2002, "type": "private",
               "first_name": "Ana"}, "date": SENT, "text": "Dinner is at 8 at the usual place"}  # fmt: skip
    assert client.post("/telegram", json={"update_id": 1, "message": message}, headers=headers).json()["stored"] == 1
    edited = {**message, "text": "Dinner is at 9 at the usual place", "edit_date": SENT + 120}
    sent = client.post("/telegram", json={"update_id": 2, "edited_message": edited}, headers=headers)
    assert sent.status_code == 200 and sent.json() == {"ok": True, "status": "edited", "chat": "telegram:2002"}
    (turn,) = _turns(d, "dinner usual place")
    assert turn["content"] == "Dinner is at 9 at the usual place" and turn["ts"].startswith("2024-03-12T09:33:20")
    assert _messages(d) == 1


def test_slack_speakers_are_named_by_their_profile_or_by_the_imported_name(hooks, tmp_path):
    import zipfile

    d, client = hooks
    _slack(client, _said(f"{SENT}.000100", "Ship it", user="U02BEN", user_profile={"real_name": "Ben Okafor"}))
    assert _turns(d, "ship")[0]["speaker"] == "Ben Okafor"
    # An imported workspace export's users.json named U03CAR; a live event without a profile uses that name.
    archive = tmp_path / "slack.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for file in sorted((REPO / "tests" / "data" / "exports" / "slack").rglob("*.json")):
            z.write(file, str(file.relative_to(REPO / "tests" / "data" / "exports" / "slack")))
    for chat in read_slack(archive).chats:
        for batch in batches(chat.messages):
            messages = [m.model_dump(mode="json", exclude_defaults=True) for m in batch]
            d.call("channels.ingest", {"channel": "slack", "chat_id": chat.chat_id, "title": chat.title,
                                       "kind": chat.kind, "messages": messages, "namespace": NS})  # fmt: skip
    _slack(client, _said(f"{SENT + 60}.000100", "Rollback plan is in the doc", user="U03CAR"))
    _slack(client, _said(f"{SENT + 90}.000100", "Who is on call tonight", user="U09NEW"))
    assert _turns(d, "rollback plan doc")[0]["speaker"] == "Carla Mendes"
    assert _turns(d, "on call tonight")[0]["speaker"] == "U09NEW"  # known by nothing else


def test_a_correction_of_a_message_never_stored_is_acknowledged_and_changes_nothing(hooks):
    d, client = hooks
    edit = _slack(client, _changed(f"{SENT}.000100", "Hello again", f"{SENT + 10}.000000"))
    deletion = _slack(client, _deleted(f"{SENT}.000100", f"{SENT + 20}.000000"))
    assert edit["status"] == deletion["status"] == "unknown message"
    headers = {"X-Telegram-Bot-Api-Secret-Token": TELEGRAM_SECRET}
    message = {"message_id": 9, "chat": {"id": 77, "type": "private"}, "date": SENT, "edit_date": SENT + 5, "text": "x"}
    sent = client.post("/telegram", json={"update_id": 3, "edited_message": message}, headers=headers)
    assert sent.status_code == 200 and sent.json()["status"] == "unknown message"
    assert _messages(d) == 0 and d.call("chats.list", {"namespace": NS})["chats"] == []
    # A message_changed without the message it changed to is acknowledged and ignored.
    assert _slack(client, {**_changed(f"{SENT}.000100", "x", f"{SENT}.1"), "message": None})["ignored"]


def test_the_observers_observation_of_the_message_alone_follows_the_edit_and_goes_with_the_deletion(hooks):
    d, client = hooks
    _slack(client, _said(f"{SENT}.000100", "My sister Rita moves to Berlin in May"))
    _slack(client, _said(f"{SENT + 60}.000100", "I prefer tea over coffee in the mornings", user="U02BEN"))
    session = d.call("conversation.list", {"namespace": NS})["sessions"][0]["session"]
    d.call("conversation.observe", {"session": session, "namespace": NS, "force": True, "wait": True})
    before = {
        o["source_turns"][0]: o
        for o in d.call("observations.list", {"session": session, "namespace": NS})["observations"]
    }
    rita = min(before)
    assert "Berlin" in before[rita]["content"]
    params = {"channel": "slack", "chat_id": "slack:C0TEAM", "message_id": f"{SENT}.000100", "namespace": NS}
    done = d.call(
        "channels.edit",
        {**params, "text": "My sister Rita moves to Munich in June", "edited_at": "2024-03-12T09:40:00Z"},
    )
    version = next(v for v in done["new_versions"] if v["supersedes"] == before[rita]["memory_id"])
    after = {
        o["source_turns"][0]: o
        for o in d.call("observations.list", {"session": session, "namespace": NS})["observations"]
    }
    # What a context's prefix shows of the session says the new text, as the memory it is.
    assert "Munich" in after[rita]["content"] and after[rita]["memory_id"] == version["id"]
    d.call("channels.delete", {**params, "deleted_at": "2024-03-12T10:00:00Z"})
    left = d.call("observations.list", {"session": session, "namespace": NS})["observations"]
    assert [o["source_turns"] for o in left] == [[max(before)]]


def test_an_edit_while_the_turn_is_being_embedded_is_not_lost(hooks):
    """The episode worker reads a turn, embeds it off the store thread, then stores it: an edit in
    between must not leave an episode of the old text (the turn waits for the next run)."""
    d, client = hooks
    sent = f"{SENT}.000300"
    worker = d.services.episodes
    # Holding the worker's run lock keeps its thread out: this test plays the worker's steps itself.
    with worker._one_run:
        _slack(client, _said(sent, "Dinner is at the Thai place"))
        batch = d.run_on_store(worker.next_batch)
        assert [turn["content"] for turn in batch.turns] == ["Dinner is at the Thai place"]
        vectors = worker.memories.embedder.embed_passages(batch.texts())
        edit = _changed(sent, "Dinner is at the Nepali place", f"{SENT + 90}.000000")
        assert _slack(client, edit)["status"] == "edited"
        d.run_on_store(lambda: worker.store_batch(batch, vectors))
    assert not any("Thai" in h["content"] for h in _memories(d, "Thai place dinner"))
    worker.catch_up()
    assert any("Nepali" in h["content"] for h in _memories(d, "Nepali place dinner"))
    assert not any("Thai" in h["content"] for h in _memories(d, "Thai place dinner"))


def test_a_deleted_message_takes_what_was_consolidated_from_it_and_stays_gone_in_another_export(hooks):
    from agentmemd.memory.store.consolidation_tables import ConsolidationTables

    d, client = hooks
    said, at = "The door code for the lab is 4417, keep it quiet", f"{SENT}.000100"
    _slack(client, _said(at, said))
    seqs = sorted(t["seq"] for t in _turns(d, "door code lab"))
    alone = d.call("memory.add", {"content": "The lab door code is 4417", "type": "fact", "namespace": NS})["id"]
    node = d.call("memory.add", {"content": "Pattern (lab, codes): The lab door code is 4417", "type": "fact",
                                 "namespace": NS})["id"]  # fmt: skip

    def link() -> None:
        d.services.store.link_turns(alone, seqs)
        ConsolidationTables(d.services.store).put_node(node, NS, 1, [alone], [alone], ["lab"], "2024-03-20T00:00:00Z")

    d.run_on_store(link)
    params = {"channel": "slack", "chat_id": "slack:C0TEAM", "message_id": at, "namespace": NS}
    done = d.call("channels.delete", {**params, "deleted_at": "2024-03-12T10:00:00Z"})
    assert done["built_into"] == [node] and node in done["forgotten"]
    with pytest.raises(RpcCallError):
        d.call("memory.get", {"id": node, "namespace": NS})  # a derived copy never outlives its source
    # The channel's export read later (its own keys: line numbers, not the app's ids) brings nothing back.
    export = {"channel": "slack", "chat_id": "slack:C0TEAM", "title": "team", "kind": "group", "namespace": NS,
              "messages": [{"sender": "Ana", "ts": "2024-03-12T09:33:20Z", "line": 1, "text": said},
                           {"sender": "Ben", "ts": "2024-03-12T09:40:00Z", "line": 2, "text": "Lunch at one?"}]}  # fmt: skip
    imported = d.call("channels.ingest", export)
    assert imported["forgotten"] == 1
    assert _turns(d, "door code 4417") == [] and not any("4417" in h["content"] for h in _memories(d, "door code"))


def test_a_deleted_message_with_no_memory_of_its_own_takes_the_cached_answers_that_quote_it(in_process, monkeypatch):
    """Episodes off: the message is only a turn. A model answer cached from a prompt that quoted
    it (an impression, a summary) goes with the deletion all the same."""
    from agentmemd.memory.core.config import CacheConfig
    from agentmemd.memory.llm.cache import ResponseCache
    from agentmemd.memory.llm.tasks import SummaryResult

    d = in_process({"conversation": {"episodes": False}}, fake_embedder=True)

    async def call_daemon(_socket, method, params=None, **_):
        return await anyio.to_thread.run_sync(lambda: d.call(method, params))

    monkeypatch.setattr("agentmemd.daemon.webhooks.app.call_daemon", call_daemon)
    settings = WebhookSettings(socket_path=Path("/nonexistent.sock"), namespace=NS, slack_signing_secret=SLACK_SECRET)
    secret = f"{SENT}.000100"
    words = "The door code for the lab is 4417, keep it quiet"
    with TestClient(build_webhook_app(settings)) as client:
        _slack(client, _said(secret, words))
        assert d.call("memory.list", {"namespace": NS})["items"] == []  # no episode: the turn alone
        services = d.services
        cache = ResponseCache(
            services.store, services.memories.embedder, services.memories.clock, CacheConfig(), "local"
        )
        cache.through(SUMMARISE, NS, [words], lambda: SummaryResult(summary="Ana: 4417"), run_on_store=d.run_on_store)
        _slack(client, _deleted(secret, f"{SENT + 900}.000300"))
    sql = "SELECT count(*) FROM llm_cache WHERE instr(key_text, ?) > 0"
    assert d.run_on_store(lambda: services.store.conn.execute(sql, (words,)).fetchone()[0]) == 0


def test_a_deleted_message_takes_the_context_builds_that_quoted_it(hooks):
    d, client = hooks
    secret = f"{SENT}.000100"
    _slack(client, _said(secret, "The door code for the lab is 4417, keep it quiet"))
    session = d.call("conversation.list", {"namespace": NS})["sessions"][0]["session"]
    d.call("conversation.context", {"session": session, "namespace": NS, "budget_tokens": 2000})
    assert "is 4417" in json.dumps(d.call("conversation.contexts", {"session": session, "namespace": NS}))
    _slack(client, _deleted(secret, f"{SENT + 900}.000300"))
    assert "is 4417" not in json.dumps(d.call("conversation.contexts", {"session": session, "namespace": NS}))


def test_an_edit_while_the_observer_reads_the_turn_is_what_gets_observed(hooks):
    """The Observer reads a message, the sender edits it before the observations are stored: the
    run stores nothing of the old words, and the turn is observed again as it now reads."""
    d, client = hooks
    _slack(client, _said(f"{SENT}.000100", "My sister Rita moves to Berlin in May"))
    session = d.call("conversation.list", {"namespace": NS})["sessions"][0]["session"]
    worker = d.services.worker
    real = worker.provider.observe
    params = {"channel": "slack", "chat_id": "slack:C0TEAM", "message_id": f"{SENT}.000100", "namespace": NS}
    edits = []

    def edited_while_read(turns, **kwargs):
        if not edits:  # the first run: the edit lands while the model reads
            edits.append(d.call("channels.edit", {**params, "text": "My sister Rita moves to Munich in June",
                                                  "edited_at": "2024-03-12T09:40:00Z"}))  # fmt: skip
        return real(turns, **kwargs)

    worker.provider.observe = edited_while_read
    report = d.call("conversation.observe", {"session": session, "namespace": NS, "force": True, "wait": True})
    observed = d.call("observations.list", {"session": session, "namespace": NS})["observations"]
    assert edits and observed and len(report["observe_runs"]) == 1
    assert not [o for o in observed if "Berlin" in o["content"]], observed
    assert [o for o in observed if "Munich" in o["content"]], observed


def test_a_bridge_edits_and_deletes_through_the_generic_shape(hooks):
    """A resent message with the same id is a duplicate (the text stays); marked edited it is an
    edit, and `deleted` lists the ids it deleted: the answer says which happened."""
    d, client = hooks
    auth = {"Authorization": "Bearer amt_bridge"}
    body = {"channel": "signal", "chat_id": "signal:family", "title": "Family", "kind": "group", "namespace": NS,
            "messages": [{"sender": "Mum", "sender_id": "+351911111111", "ts": "2024-05-01T18:00:00Z",
                          "text": "Grandma turns 90 on the 14th of June", "line": 1, "message_id": "m1"}]}  # fmt: skip
    assert client.post("/messages", json=body, headers=auth).json()["stored"] == 1
    resent = json.loads(json.dumps(body))
    resent["messages"][0]["text"] = "Grandma turns 90 on the 15th of June"
    assert client.post("/messages", json=resent, headers=auth).json() == {
        "ok": True, "stored": 0, "duplicates": 1, "chat": "signal:family"}  # fmt: skip
    resent["messages"][0].update(edited=True, edited_at="2024-05-01T18:05:00Z")
    assert client.post("/messages", json=resent, headers=auth).json()["edited"] == 1
    assert [t["content"] for t in _turns(d, "Grandma")] == ["Grandma turns 90 on the 15th of June"]
    gone = {**resent, "messages": resent["messages"], "deleted": ["m1"]}
    assert client.post("/messages", json=gone, headers=auth).json()["deleted"] == 1
    assert _turns(d, "Grandma") == []
