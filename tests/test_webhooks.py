"""`agentmemd webhooks`: Telegram updates, Slack events and the generic shape become turns of their
chat's conversation; a request that fails its check gets 401 and changes nothing. Real daemon,
real listener, real HTTP."""

from __future__ import annotations

import hashlib
import hmac
import json
import time

import httpx2
import pytest
from conftest import REPO, free_port, served_daemon, start_listener

pytestmark = pytest.mark.doors  # the tier (pyproject.toml)

TELEGRAM_SECRET = "tg-secret-7f3a"
SLACK_SECRET = "slack-signing-9b1c"


@pytest.fixture(scope="module")
def hooks(tmp_path_factory):
    with served_daemon() as d:
        port = free_port()
        log = tmp_path_factory.mktemp("hooks") / "webhooks.log"
        args = ["--socket", str(d.socket), "webhooks", "--listen", f"127.0.0.1:{port}", "--namespace", "live"]
        env = {"AGENTMEMD_TELEGRAM_SECRET": TELEGRAM_SECRET, "AGENTMEMD_SLACK_SIGNING_SECRET": SLACK_SECRET}
        proc = start_listener([*args, "--me", "telegram:user1001"], port, log, env=env)
        try:
            yield d, f"http://127.0.0.1:{port}"
        finally:
            proc.terminate()
            proc.wait(10)


def _turns(d, query: str, ns: str = "live") -> list[dict]:
    return d.call("conversation.search", {"query": query, "namespace": ns})["turns"]


def _update(update_id: int, text: str, **message) -> dict:
    return {
        "update_id": update_id,
        "message": {
            "message_id": 100 + update_id,  # the export (tests/data) has ids 1-6 in this chat
            "from": {"id": 2002, "is_bot": False, "first_name": "Ana", "last_name": "Silva"},
            "chat": {"id": 2002, "type": "private", "first_name": "Ana", "last_name": "Silva"},
            "date": 1710234940 + update_id,
            "text": text,
            **message,
        },
    }


def test_telegram_updates_with_the_secret_are_stored_once_and_without_it_refused(hooks):
    d, url = hooks
    headers = {"X-Telegram-Bot-Api-Secret-Token": TELEGRAM_SECRET}
    sent = httpx2.post(f"{url}/telegram", json=_update(1, "My pottery kiln arrives on Tuesday"), headers=headers)
    assert sent.status_code == 200 and sent.json()["stored"] == 1
    again = httpx2.post(f"{url}/telegram", json=_update(1, "My pottery kiln arrives on Tuesday"), headers=headers)
    assert again.json() == {"ok": True, "stored": 0, "duplicates": 1, "chat": "telegram:2002"}  # Telegram retried
    turn = _turns(d, "pottery kiln")[0]
    assert (turn["speaker"], turn["chat_title"], turn["chat_kind"]) == ("Ana Silva", "Ana Silva", "private")
    assert turn["ts"].startswith("2024-03-12T09:15:41")
    for bad in ({}, {"X-Telegram-Bot-Api-Secret-Token": "guess"}):
        refused = httpx2.post(f"{url}/telegram", json=_update(2, "I secretly hate kilns"), headers=bad)
        assert refused.status_code == 401 and "secret" in refused.json()["error"]
    assert _turns(d, "secretly hate") == []
    # A group message from the user (--me telegram:user1001) is the user's; a sticker is acknowledged and ignored.
    group = _update(
        3, "Kiln party at mine on Saturday", chat={"id": -100300, "type": "supergroup", "title": "Pottery night"}
    )
    group["message"]["from"] = {"id": 1001, "is_bot": False, "first_name": "Carla"}
    assert httpx2.post(f"{url}/telegram", json=group, headers=headers).json()["stored"] == 1
    turn = _turns(d, "kiln party")[0]
    assert turn["person"] == "user" and turn["chat_kind"] == "group" and turn["chat_title"] == "Pottery night"
    sticker = {
        "update_id": 4,
        "message": {"message_id": 4, "chat": {"id": 2002, "type": "private"}, "date": 1, "sticker": {}},
    }
    ignored = httpx2.post(f"{url}/telegram", json=sticker, headers=headers).json()
    assert ignored == {"ok": True, "stored": 0, "ignored": "a message without text"}


def test_the_same_person_imported_from_telegram_desktop_and_writing_live(hooks):
    d, url = hooks
    from click.testing import CliRunner

    from agentmemd.daemon.cli.main import cli

    export = REPO / "tests" / "data" / "exports" / "telegram_account.json"
    done = CliRunner().invoke(
        cli, ["--socket", str(d.socket), "import", "telegram", str(export), "--namespace", "live"]
    )
    assert done.exit_code == 0, done.output
    ana = [p for p in d.call("people.list", {"namespace": "live"})["people"] if p["name"] == "Ana Silva"]
    assert len(ana) == 1 and ana[0]["messages"] >= 3  # the export's and the webhook's, one person


def _signed(body: bytes, secret: str = SLACK_SECRET, when: int | None = None) -> dict:
    stamp = str(int(time.time()) if when is None else when)
    signature = "v0=" + hmac.new(secret.encode(), f"v0:{stamp}:".encode() + body, hashlib.sha256).hexdigest()
    return {"X-Slack-Request-Timestamp": stamp, "X-Slack-Signature": signature, "Content-Type": "application/json"}


def test_slack_url_verification_signed_events_and_refusals(hooks):
    d, url = hooks
    challenge = json.dumps({"type": "url_verification", "challenge": "3eZbrw1aBm2r"}).encode()
    answered = httpx2.post(f"{url}/slack", content=challenge, headers=_signed(challenge))
    assert answered.status_code == 200 and answered.json() == {"challenge": "3eZbrw1aBm2r"}
    event = {
        "type": "event_callback",
        "event_id": "Ev1",
        "event": {"type": "message", "channel": "D0DM1", "channel_type": "im", "user": "U01ANA",
                  "text": "The offsite moved to Sintra &amp; starts at 10", "ts": "1710236000.000100"},
    }  # fmt: skip
    body = json.dumps(event).encode()
    assert httpx2.post(f"{url}/slack", content=body, headers=_signed(body)).json()["stored"] == 1
    turn = _turns(d, "offsite Sintra")[0]
    assert turn["content"] == "The offsite moved to Sintra & starts at 10" and turn["chat"] == "slack:D0DM1"
    assert turn["chat_kind"] == "private"
    other = json.dumps(
        {**event, "event": {**event["event"], "text": "Budget cut by half", "ts": "1710236100.0"}}
    ).encode()
    for headers in (
        {"Content-Type": "application/json"},  # unsigned
        _signed(other, secret="not-the-secret"),
        _signed(other, when=int(time.time()) - 3600),  # an hour old: a replay
        _signed(b"something else"),  # signed for another body
    ):
        refused = httpx2.post(f"{url}/slack", content=other, headers=headers)
        assert refused.status_code == 401, refused.text
    ahead = httpx2.post(f"{url}/slack", content=other, headers=_signed(other, when=int(time.time()) + 3600))
    assert ahead.status_code == 401 and "ahead of this machine's clock" in ahead.text  # was "3599 s old"
    assert _turns(d, "budget cut") == []
    # A person's file with a comment, a thread reply also sent to the channel, a /me: stored; a join is not.
    for n, subtype in enumerate(("file_share", "thread_broadcast", "me_message"), start=1):
        said = {**event["event"], "subtype": subtype, "text": f"Slack {subtype} words", "ts": f"1710236200.00{n}"}
        body = json.dumps({**event, "event_id": f"Ev{n + 10}", "event": said}).encode()
        assert httpx2.post(f"{url}/slack", content=body, headers=_signed(body)).json()["stored"] == 1, subtype
    joined = {**event["event"], "subtype": "channel_join", "text": "<@U02> has joined", "ts": "1710236300.0"}
    body = json.dumps({**event, "event_id": "Ev20", "event": joined}).encode()
    assert httpx2.post(f"{url}/slack", content=body, headers=_signed(body)).json()["stored"] == 0
    edit = json.dumps({**event, "event": {**event["event"], "subtype": "message_changed"}}).encode()
    assert (
        httpx2.post(f"{url}/slack", content=edit, headers=_signed(edit)).json()["ignored"]
        == "a message_changed message"
    )


def test_generic_messages_go_through_the_bearer_tokens_namespaces(hooks):
    d, url = hooks
    secret = d.call("access.tokens.create", {"name": "signal-bridge", "namespaces": ["family"]})["secret"]
    payload = {
        "channel": "signal",
        "chat_id": "signal:family-group",
        "title": "Family",
        "kind": "group",
        "messages": [{"sender": "Mum", "sender_id": "+351911111111", "ts": "2024-05-01T18:00:00Z",
                      "text": "Grandma's 90th is on the 14th of June", "line": 1, "message_id": "m1"}],
    }  # fmt: skip
    stored = httpx2.post(f"{url}/messages", json=payload, headers={"Authorization": f"Bearer {secret}"})
    assert stored.status_code == 200 and stored.json()["stored"] == 1
    assert _turns(d, "grandma 90th", ns="family")[0]["speaker"] == "Mum"
    elsewhere = httpx2.post(
        f"{url}/messages", json={**payload, "namespace": "live"}, headers={"Authorization": f"Bearer {secret}"}
    )
    assert elsewhere.status_code == 403 and "may not use namespace" in elsewhere.json()["error"]
    for headers in ({}, {"Authorization": "Bearer amt_not_a_real_token"}):
        refused = httpx2.post(f"{url}/messages", json={**payload, "chat_id": "signal:x"}, headers=headers)
        assert refused.status_code == 401
    bad = httpx2.post(
        f"{url}/messages", json={**payload, "kind": "crowd"}, headers={"Authorization": f"Bearer {secret}"}
    )
    assert bad.status_code == 400 and "kind" in bad.json()["error"]
    assert [c["chat"] for c in d.call("chats.list", {"namespace": "family"})["chats"]] == ["signal:family-group"]


def test_no_bad_request_gets_a_5xx_and_each_names_what_is_wrong(hooks):
    """What a stranger, a buggy bot or a fuzzer sends: a 4xx naming the problem, never a 500, and
    nothing stored."""
    d, url = hooks
    telegram = {"X-Telegram-Bot-Api-Secret-Token": TELEGRAM_SECRET}
    good = _update(900, "a fuzzing canary")["message"]
    bad_updates = [
        ({"update_id": "abc", "message": good}, "update_id"),
        ({"update_id": 901, "message": {**good, "date": "yesterday"}}, "message.date"),
        ({"update_id": 902, "message": {**good, "date": 1e20}}, "message.date"),
        ({"update_id": 903, "message": {**good, "from": "ana"}}, "message.from"),
        ({"update_id": 904, "message": {**good, "text": ["a"]}}, "message.text"),
        ({"update_id": 905, "message": {**good, "chat": {"id": {"a": 1}, "type": "private"}}}, "message.chat.id"),
    ]
    for update, field in bad_updates:
        sent = httpx2.post(f"{url}/telegram", json=update, headers=telegram)
        assert sent.status_code == 400 and field in sent.json()["error"], (update, sent.text)
    for event, field in (({"type": "event_callback", "event": "x"}, "event"),
                         ({"type": "event_callback", "event": {"type": "message", "ts": "abc"}}, "event.ts")):  # fmt: skip
        body = json.dumps(event).encode()
        sent = httpx2.post(f"{url}/slack", content=body, headers=_signed(body))
        assert sent.status_code == 400 and field in sent.json()["error"], (event, sent.text)
    body = b'{"type": "event_callback"}'
    nines = {**_signed(body), "X-Slack-Request-Timestamp": "9" * 400}
    assert httpx2.post(f"{url}/slack", content=body, headers=nines).status_code == 401
    deep = b"[" * 100_000
    token = d.call("access.tokens.create", {"name": "fuzz", "namespaces": ["live"]})["secret"]
    bearer = {"Authorization": f"Bearer {token}"}
    assert httpx2.post(f"{url}/messages", content=deep, headers=bearer).status_code == 400
    assert httpx2.post(f"{url}/telegram", content=deep, headers=telegram).status_code == 400
    giant = b'{"update_id": ' + b"9" * 5000 + b"}"  # past Python's int conversion limit: a 500 before
    assert httpx2.post(f"{url}/telegram", content=giant, headers=telegram).status_code == 400
    assert httpx2.post(f"{url}/messages", content=giant, headers=bearer).status_code == 400
    huge = b"x" * 2_000_000
    assert httpx2.post(f"{url}/messages", content=huge, headers=bearer).status_code == 413
    assert _turns(d, "fuzzing canary") == []


def test_a_deletion_or_an_edit_that_comes_before_its_message_is_applied_when_it_arrives(hooks):
    """Platforms retry and do not promise order. A deletion before its message was answered 'unknown
    message' and forgotten: the message (a password) then came and was stored live. An edit before
    its message was dropped, and the stale text kept. A bridge could not report a deletion alone."""
    d, url = hooks
    secret = d.call("access.tokens.create", {"name": "discord-bridge", "namespaces": ["live"]})["secret"]
    bearer = {"Authorization": f"Bearer {secret}"}
    chat = {"channel": "discord", "chat_id": "discord:9001", "title": "Crew", "kind": "group"}
    alone = httpx2.post(f"{url}/messages", json={**chat, "messages": [], "deleted": ["d6"]}, headers=bearer)
    assert alone.status_code == 200, alone.text
    said = {"sender": "Ben", "sender_id": "u7", "ts": "2026-11-30T09:00:00Z", "line": 1, "message_id": "d6",
            "text": "Oops my home wifi password is hunter2-Blue"}  # fmt: skip
    late = httpx2.post(f"{url}/messages", json={**chat, "messages": [said]}, headers=bearer)
    assert late.status_code == 200 and late.json()["deleted"] == 1, late.text
    assert _turns(d, "wifi password hunter2") == []
    assert all("hunter2" not in t["content"] for t in d.call("conversation.search", {"query": "Ben", "namespace": "live"})["turns"])  # fmt: skip
    # Telegram: the edit first (edited_message), then the message as first sent.
    headers = {"X-Telegram-Bot-Api-Secret-Token": TELEGRAM_SECRET}
    edited = _update(70, "Dinner at Casa Pepe (corrected)")
    edited["edited_message"] = {**edited.pop("message"), "edit_date": 1710234940 + 500}
    assert httpx2.post(f"{url}/telegram", json=edited, headers=headers).status_code == 200
    first = httpx2.post(f"{url}/telegram", json=_update(70, "Dinner at Casa Pedro"), headers=headers)
    assert first.json()["edited"] == 1, first.text
    [turn] = _turns(d, "Dinner Casa")
    assert turn["content"] == "Dinner at Casa Pepe (corrected)"
    dry = httpx2.post(f"{url}/messages", json={**chat, "messages": [{**said, "message_id": "d7", "text": "zebracorn quokka"}], "dry_run": True}, headers=bearer)  # fmt: skip
    assert dry.json()["stored"] == 0 and dry.json()["would_store"] == 1 and _turns(d, "zebracorn quokka") == []


def test_the_users_account_may_be_given_as_the_bot_apis_numeric_id_and_a_bad_one_is_refused():
    """`--me telegram:9009` (the Bot API's from.id) never matched: updates carry 'user9009'; and
    `--me whatsup:bob` was taken as it was."""
    from click.testing import CliRunner

    from agentmemd.daemon.cli.main import cli
    from agentmemd.memory.core.config import channel_account

    assert channel_account("telegram:9009") == "telegram:user9009"
    assert channel_account("telegram:user9009") == "telegram:user9009"
    assert channel_account("slack:U01ANA") == "slack:U01ANA"
    for bad in ("bob", "Whats Up:bob", ":bob"):
        with pytest.raises(ValueError):
            channel_account(bad)
    refused = CliRunner().invoke(cli, ["webhooks", "--me", "Whats Up:bob"])
    assert refused.exit_code == 2 and "no channel name" in refused.output


def test_a_poll_is_its_question_and_options_and_a_chat_that_speaks_is_that_chat():
    """Found using the listener live: a poll sent to a group was acknowledged and dropped (the
    importer keeps it as text), and every anonymous group admin of every group was one person,
    Telegram's stand-in "Group" (user1087968824)."""
    from agentmemd.daemon.webhooks.telegram import telegram_batch

    group = {"id": -1001326223284, "type": "supergroup", "title": "Pottery night"}
    poll = {
        "id": "5",
        "question": "Kiln day?",
        "options": [{"text": "Saturday", "voter_count": 0}, {"text": "Sunday", "voter_count": 0}],
        "total_voter_count": 0,
        "is_closed": False,
        "is_anonymous": True,
        "type": "regular",
        "allows_multiple_answers": False,
    }
    carla = {"id": 1001, "is_bot": False, "first_name": "Carla"}
    batch, why = telegram_batch({"update_id": 9, "message": {"message_id": 9, "from": carla, "chat": group, "date": 1710234940, "poll": poll}})  # fmt: skip
    assert why == "" and batch is not None
    assert batch["messages"][0]["text"] == "Poll: Kiln day? — options: Saturday, Sunday"
    stand_in = {"id": 1087968824, "is_bot": True, "first_name": "Group", "username": "GroupAnonymousBot"}
    anonymous = {"message_id": 10, "from": stand_in, "sender_chat": group, "chat": group, "date": 1710234950, "text": "Kiln is booked"}  # fmt: skip
    said = telegram_batch({"update_id": 10, "message": anonymous})[0]["messages"][0]
    assert (said["sender"], said["sender_id"]) == ("Pottery night", "channel1326223284")
    signed = telegram_batch({"update_id": 11, "message": {**anonymous, "author_signature": "Chief potter"}})[0]
    assert signed["messages"][0]["sender"] == "Chief potter"
    basic = {"id": -4242, "type": "group", "title": "Glaze club"}
    said = telegram_batch({"update_id": 12, "message": {**anonymous, "chat": basic, "sender_chat": basic}})[0]
    assert said["messages"][0]["sender_id"] == "chat4242"
    post = {"message_id": 13, "chat": {"id": -1001, "type": "channel", "title": "News"}, "date": 1710234960, "text": "Out now"}  # fmt: skip
    assert telegram_batch({"update_id": 13, "channel_post": post})[0]["messages"][0]["sender"] == "News"
    # Ana writing to the bot in private keeps her account (an export's "user2002").
    ana = {"id": 2002, "type": "private", "first_name": "Ana"}
    said = telegram_batch({"update_id": 14, "message": {"message_id": 14, "chat": ana, "from": {"id": 2002, "first_name": "Ana"}, "date": 1710234970, "text": "hi"}})  # fmt: skip
    assert said[0]["messages"][0]["sender_id"] == "user2002"
    refused = {"update_id": 15, "message": {**anonymous, "poll": {"question": 5}}}
    with pytest.raises(ValueError):  # the listener's 400, naming the field
        telegram_batch(refused)


def test_a_store_refusing_writes_is_a_503_the_platform_retries_not_a_409(short_tmp):
    """On a full disk the generic webhook answered 409, which a bridge reads as a conflict never to
    send again; 503 says "later", and the message is sent again once the disk has room."""
    from fake_daemon import FakeDaemon, error
    from starlette.testclient import TestClient

    from agentmemd.daemon.webhooks.app import WebhookSettings, build_webhook_app

    def full_disk(method, params):
        if method == "channels.ingest":
            return error(-32005, "the store cannot be written: the disk is full")
        return {"result": {}}

    payload = {"channel": "signal", "chat_id": "signal:g", "kind": "group",
               "messages": [{"sender": "Mum", "ts": "2024-05-01T18:00:00Z", "text": "Dinner at 8", "line": 1}]}  # fmt: skip
    with FakeDaemon(short_tmp / "d.sock", full_disk):
        app = build_webhook_app(WebhookSettings(socket_path=short_tmp / "d.sock"))
        with TestClient(app) as client:
            answer = client.post("/messages", json=payload, headers={"Authorization": "Bearer amt_x"})
    assert answer.status_code == 503 and "disk is full" in answer.json()["error"], answer.text


def test_the_answer_counts_a_message_whose_words_were_forgotten(short_tmp):
    """A bridge resending forgotten words got {"stored": 2} and no word of the tombstone it made."""
    from fake_daemon import FakeDaemon
    from starlette.testclient import TestClient

    from agentmemd.daemon.webhooks.app import WebhookSettings, build_webhook_app

    def stored(method, params):
        done = {"added": 2, "duplicates": 0, "forgotten": 1, "chat": "signal:g", "sessions": [], "people": {}}
        return {"result": done if method == "channels.ingest" else {}}

    payload = {"channel": "signal", "chat_id": "signal:g", "kind": "group",
               "messages": [{"sender": "Mum", "ts": "2024-05-01T18:00:00Z", "text": "Dinner at 8", "line": 1}]}  # fmt: skip
    with FakeDaemon(short_tmp / "d.sock", stored):
        with TestClient(build_webhook_app(WebhookSettings(socket_path=short_tmp / "d.sock"))) as client:
            answer = client.post("/messages", json=payload, headers={"Authorization": "Bearer amt_x"})
    assert answer.status_code == 200 and answer.json()["forgotten"] == 1, answer.text
