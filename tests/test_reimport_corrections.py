"""An export downloaded later than the one imported before: a message edited in between is marked
edited there (Telegram, Slack, Discord keep the message's id), and a Slack thread whose first
message was deleted keeps a tombstone with that message's ts. Importing the later export corrects
what is stored, as the live webhooks' channels.edit and .delete would, instead of keeping the stale
text (or a deleted message) beside it. Through the import command's own batching (daemon/cli/chats.py)
into an in-process daemon with the fake embedder."""

from __future__ import annotations

import copy
import json
import zipfile
from pathlib import Path

import pytest

from agentmemd.daemon.cli import chats as import_command
from agentmemd.memory.channels.formats import read_chat_export

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)

NS = "later"
ANA_FIRST = {"id": 41, "type": "message", "date": "2024-03-12T09:15:40", "date_unixtime": "1710234940",
             "from": "Ana Silva", "from_id": "user2002", "text": "Dinner on Friday is at the Thai place on Rua Augusta"}  # fmt: skip
ANA_SECOND = {"id": 42, "type": "message", "date": "2024-03-12T09:16:10", "date_unixtime": "1710234970",
              "from": "Carla Mendes", "from_id": "user1001", "text": "Lovely, I'll bring the wine"}  # fmt: skip


class _Socket:
    """The import command's client, answered by the in-process daemon (as the socket would)."""

    def __init__(self, daemon):
        self.daemon = daemon

    def call(self, method: str, params: dict | None = None) -> dict:
        return self.daemon.call(method, json.loads(json.dumps(params)))  # as it crosses the socket


def _import(d, path: Path, fmt: str) -> dict:
    """What `agentmemd import FMT PATH --namespace later` stores and reports (before its wait)."""
    export = read_chat_export(fmt, path)
    report = import_command._dry_run(export, path, None)
    with import_command._Progress(sum(len(c.messages) for c in export.chats)) as progress:
        params_of = lambda chat, batch: import_command._batch(fmt, chat, batch, export.owner, None, NS)  # noqa: E731
        import_command._store(_Socket(d), export, report, progress, params_of, 500)
    return report


def _telegram(path: Path, *messages: dict) -> Path:
    account = {"personal_information": {"user_id": 1001, "first_name": "Carla", "last_name": "Mendes"},
               "chats": {"list": [{"name": "Ana Silva", "type": "personal_chat", "id": 2002,
                                   "messages": list(messages)}]}}  # fmt: skip
    path.write_text(json.dumps(account), encoding="utf-8")
    return path


def _search(d, query: str) -> list[str]:
    return [h["content"] for h in d.call("memory.search", {"query": query, "namespace": NS})["results"]]


def _turns(d, query: str) -> list[dict]:
    return d.call("conversation.search", {"query": query, "namespace": NS})["turns"]


@pytest.fixture
def daemon(in_process):
    return in_process({"clock": {"start": "2024-04-02T09:00:00Z"}}, fake_embedder=True)


def test_a_later_telegram_export_with_an_edited_message_corrects_the_stored_one(daemon, tmp_path):
    d = daemon
    first = _import(d, _telegram(tmp_path / "march.json", ANA_FIRST, ANA_SECOND), "telegram")
    assert first["added"] == 2
    d.services.episodes.catch_up()
    (before,) = [c for c in _search(d, "dinner Thai place Friday") if "Thai" in c]

    edited = {**copy.deepcopy(ANA_FIRST), "text": "Dinner on Friday is at the Nepali place on Rua Augusta",
              "edited": "2024-03-12T11:00:00", "edited_unixtime": "1710241200"}  # fmt: skip
    later = {"id": 43, "type": "message", "date": "2024-03-13T08:00:00", "date_unixtime": "1710316800",
             "from": "Ana Silva", "from_id": "user2002", "text": "See you there"}  # fmt: skip
    second = _import(d, _telegram(tmp_path / "april.json", edited, ANA_SECOND, later), "telegram")
    assert (second["added"], second["duplicates"], second["edited"]) == (1, 2, 1)
    d.services.episodes.catch_up()
    assert [t["content"] for t in _turns(d, "Rua Augusta")] == [edited["text"]]  # one turn, as sent last
    assert _turns(d, "Thai") == []
    assert not any("Thai" in c for c in _search(d, "dinner Thai place Friday"))
    now = next(h for h in d.call("memory.search", {"query": "Nepali place", "namespace": NS})["results"]
               if "Nepali" in h["content"])  # fmt: skip
    versions = d.call("memory.history", {"id": now["id"], "namespace": NS})["versions"]
    assert [("Thai" in v["content"], v["created"][:19]) for v in versions] == [
        (True, "2024-03-12T09:15:40"),
        (False, "2024-03-12T11:00:00"),  # dated at the edit the export gives
    ]
    assert before

    # The same later export again changes nothing.
    again = _import(d, _telegram(tmp_path / "april-again.json", edited, ANA_SECOND, later), "telegram")
    assert (again["added"], again["edited"]) == (0, 0)
    assert len(d.call("memory.history", {"id": now["id"], "namespace": NS})["versions"]) == 2


def _slack_zip(path: Path, messages: list[dict]) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("users.json", json.dumps([{"id": "U01ANA", "name": "ana", "real_name": "Ana Silva"},
                                             {"id": "U02BEN", "name": "ben", "real_name": "Ben Okafor"}]))  # fmt: skip
        z.writestr("channels.json", json.dumps([{"id": "C0CREW", "name": "crew", "members": ["U01ANA", "U02BEN"]}]))
        z.writestr("crew/2024-03-12.json", json.dumps(messages))
    return path


def test_a_later_slack_export_with_a_tombstone_deletes_the_stored_message(daemon, tmp_path):
    d = daemon
    parent = {"type": "message", "user": "U01ANA", "text": "The door code for the studio is 4417",
              "ts": "1710234940.000100", "thread_ts": "1710234940.000100", "reply_count": 1}  # fmt: skip
    reply = {"type": "message", "user": "U02BEN", "text": "Thanks, see you at the studio",
             "ts": "1710235000.000200", "thread_ts": "1710234940.000100", "parent_user_id": "U01ANA"}  # fmt: skip
    first = _import(d, _slack_zip(tmp_path / "march.zip", [parent, reply]), "slack")
    assert first["added"] == 2
    d.services.episodes.catch_up()
    assert any("4417" in c for c in _search(d, "studio door code"))

    # Ana deleted her message; Slack keeps the thread's head as a tombstone with the same ts.
    tombstone = {"type": "message", "subtype": "tombstone", "user": "USLACKBOT", "text": "This message was deleted.",
                 "ts": parent["ts"], "thread_ts": parent["ts"], "reply_count": 1, "hidden": True}  # fmt: skip
    second = _import(d, _slack_zip(tmp_path / "april.zip", [tombstone, reply]), "slack")
    assert (second["added"], second["deleted"]) == (0, 1)
    assert _turns(d, "4417") == [] and not any("4417" in c for c in _search(d, "studio door code"))
    pack = d.call("context.pack", {"query": "what is the studio door code", "namespace": NS, "budget_tokens": 800})
    assert "is 4417" not in json.dumps(pack)
    assert any("see you at the studio" in c for c in _search(d, "see you at the studio"))  # the reply stays

    again = _import(d, _slack_zip(tmp_path / "april-again.zip", [tombstone, reply]), "slack")
    assert (again["added"], again["deleted"]) == (0, 0)


def test_a_stale_export_does_not_undo_a_newer_live_edit(daemon, tmp_path):
    """An export made before a live edit arrived, imported after it: its older text is not applied."""
    d = daemon
    _import(d, _telegram(tmp_path / "march.json", ANA_FIRST), "telegram")
    live = {"channel": "telegram", "chat_id": "telegram:2002", "message_id": "41", "namespace": NS,
            "text": "Dinner on Friday is at the Georgian place", "edited_at": "2024-03-12T12:00:00Z"}  # fmt: skip
    assert d.call("channels.edit", live)["status"] == "edited"
    older = {**ANA_FIRST, "text": "Dinner on Friday is at the Nepali place", "edited": "2024-03-12T11:00:00",
             "edited_unixtime": "1710241200"}  # fmt: skip
    report = _import(d, _telegram(tmp_path / "older.json", older), "telegram")
    assert (report["added"], report["edited"]) == (0, 0)
    assert [t["content"] for t in _turns(d, "Dinner Friday")] == [live["text"]]


def test_a_later_whatsapp_export_with_an_edited_message_corrects_the_stored_one(daemon, tmp_path):
    """WhatsApp gives no ids, but marks an edited message ("<Diese Nachricht wurde bearbeitet.>")
    at the time and by the sender it was sent: the stored turn is edited, not kept beside the new
    text (both versions were episodes and facts)."""
    d = daemon
    opening = [
        "[04.04.24, 08:15:40] Jonas: Super Idee! Ich bringe den Picknickkorb mit 🧺",
        "[04.04.24, 08:16:02] Anna: Perfekt, ich backe einen Kuchen",
        "[04.04.24, 08:17:30] Jonas: Treffen um zwölf am See?",
        "[04.04.24, 08:18:05] Anna: Ja, am Steg",
        "[04.04.24, 08:19:44] Jonas: Ich frage Lena, ob sie mitkommt",
    ]
    first = tmp_path / "a" / "_chat.txt"
    first.parent.mkdir()
    first.write_text("\n".join(opening) + "\n", encoding="utf-8")
    assert _import(d, first, "whatsapp")["added"] == 5
    edited = "[04.04.24, 08:15:40] Jonas: Super Idee! Ich bringe den Picknickkorb und Sekt mit 🧺🍾 \u200e<Diese Nachricht wurde bearbeitet.>"
    later = tmp_path / "b" / "_chat.txt"
    later.parent.mkdir()
    later.write_text(
        "\n".join([edited, *opening[1:], "[05.04.24, 10:00:00] Anna: Bis morgen!"]) + "\n", encoding="utf-8"
    )
    second = _import(d, later, "whatsapp")
    assert (second["added"], second["duplicates"], second["edited"]) == (1, 5, 1)
    assert [t["content"] for t in _turns(d, "Picknickkorb")] == [
        "Super Idee! Ich bringe den Picknickkorb und Sekt mit 🧺🍾"
    ]
    assert len(d.call("chats.list", {"namespace": NS})["chats"]) == 1
    d.services.episodes.catch_up()
    assert not any("Picknickkorb mit" in c for c in _search(d, "Picknickkorb"))  # the old text's episode is gone
    again = _import(d, later, "whatsapp")
    assert (again["added"], again["edited"]) == (0, 0)


PRIYA = [
    "14/04/2024, 18:00 - Messages and calls are end-to-end encrypted. No one outside of this chat, not even WhatsApp, can read or listen to them. Tap to learn more.",
    "14/04/2024, 18:01 - Priya: I got the job at the Leeds hospital",
    "14/04/2024, 18:02 - Sam: Brilliant news",
    "14/04/2024, 18:03 - Priya: Starting on the 2nd of May",
    "14/04/2024, 18:04 - Sam: We should celebrate",
]  # fmt: skip
PRIYA_EDITED = "14/04/2024, 18:03 - Priya: Starting on the 9th of May <This message was edited>"
PRIYA_LATER = "15/04/2024, 09:00 - Priya: Dinner at Mowgli on Friday?"


def _chat_file(tmp_path: Path, name: str, lines: list[str]) -> Path:
    path = tmp_path / name / "WhatsApp Chat with Priya.txt"
    path.parent.mkdir()
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _forget_turn(d, words: str) -> None:
    d.services.episodes.catch_up()
    (episode,) = [
        h for h in d.call("memory.search", {"query": words, "namespace": NS, "types": ["episode"]})["results"]
        if words in h["content"]
    ]  # fmt: skip
    d.call("memory.forget", {"id": episode["id"], "namespace": NS, "confirm": True})


def test_an_edit_of_a_forgotten_whatsapp_message_in_a_later_export_is_not_stored(daemon, tmp_path):
    """Found importing real exports: a message forgotten, then a later export marking it edited
    ("Starting on the 9th of May <This message was edited>"): the edit, matched to no live turn,
    was stored as a new message; the forgotten message was back with its new words."""
    d = daemon
    _import(d, _chat_file(tmp_path, "a", PRIYA), "whatsapp")
    _forget_turn(d, "Starting on the 2nd of May")
    later = _import(d, _chat_file(tmp_path, "b", [*PRIYA[:3], PRIYA_EDITED, PRIYA[4], PRIYA_LATER]), "whatsapp")
    assert later["added"] == 1  # the dinner only
    assert _turns(d, "Starting") == []
    d.services.episodes.catch_up()
    assert not any("May" in c for c in _search(d, "When does Priya start?"))


def test_the_words_a_forgotten_message_said_before_its_edit_stay_forgotten(daemon, tmp_path):
    """An edited message forgotten (both its versions) came back with its first words from an older
    export of the same chat on another phone, where Priya is saved as "Priya Shah"."""
    d = daemon
    _import(d, _chat_file(tmp_path, "a", PRIYA), "whatsapp")
    d.services.episodes.catch_up()  # as the import command waits until its turns are searchable
    assert _import(d, _chat_file(tmp_path, "b", [*PRIYA[:3], PRIYA_EDITED, PRIYA[4]]), "whatsapp")["edited"] == 1
    _forget_turn(d, "Starting on the 9th of May")
    tablet = [line.replace("Priya:", "Priya Shah:") for line in PRIYA]
    _import(d, _chat_file(tmp_path, "c", tablet), "whatsapp")
    assert [t["content"] for t in _turns(d, "Starting")] == []
    d.services.episodes.catch_up()
    assert not any("May" in c for c in _search(d, "When does Priya start?"))


def test_forgetting_a_message_takes_its_copy_from_another_phones_export_stored_before(daemon, tmp_path):
    """Both phones' exports imported (the other phone names them "Priya Shah" and "Sam Lee", so it
    is a second chat), then the message forgotten: a copy arriving later became a tombstone, but
    the one already stored stayed in search, the chat's messages and its episodes."""
    d = daemon
    _import(d, _chat_file(tmp_path, "a", PRIYA), "whatsapp")
    other = [line.replace("Priya:", "Priya Shah:").replace("Sam:", "Sam Lee:") for line in PRIYA]
    assert _import(d, _chat_file(tmp_path, "b", other), "whatsapp")["added"] == 4
    assert len(_turns(d, "Leeds hospital")) == 2
    d.services.episodes.catch_up()
    d.call("conversation.observe", {"session": _turns(d, "Leeds hospital")[1]["session"], "namespace": NS})
    d.services.episodes.catch_up()
    episodes = d.call("memory.search", {"query": "Leeds hospital", "namespace": NS, "types": ["episode"]})["results"]
    (episode,) = [h for h in episodes if h["content"] == "Priya said: I got the job at the Leeds hospital"]
    forgotten = d.call("memory.forget", {"id": episode["id"], "namespace": NS, "confirm": True})
    assert any(a["why"] == "the same message, stored again" for a in forgotten["also"]), forgotten["also"]
    assert _turns(d, "Leeds hospital") == []
    assert not any("Leeds" in c for c in _search(d, "Leeds hospital job"))
    observations = d.call("observations.list", {"namespace": NS})["observations"]
    assert not any("Leeds" in o["content"] for o in observations)


def test_a_short_chats_later_export_with_an_edit_in_its_opening_goes_on_in_the_same_chat(daemon, tmp_path):
    """Three messages, then a later export where the third is edited and a fourth added: the edit
    changed the opening the chat is known by, two of three opening messages matched (three needed),
    and the later export became a second chat with every message stored twice."""
    d = daemon
    assert _import(d, _chat_file(tmp_path, "a", PRIYA[:4]), "whatsapp")["added"] == 3
    d.services.episodes.catch_up()
    later = _import(d, _chat_file(tmp_path, "b", [*PRIYA[:3], PRIYA_EDITED, PRIYA_LATER]), "whatsapp")
    assert (later["added"], later["edited"]) == (1, 1)
    assert len(d.call("chats.list", {"namespace": NS})["chats"]) == 1
    assert [t["content"] for t in _turns(d, "Leeds hospital")] == ["I got the job at the Leeds hospital"]
    assert [t["content"] for t in _turns(d, "Starting")] == ["Starting on the 9th of May"]


def test_the_import_names_the_zone_the_daemon_read_its_times_in(in_process, tmp_path):
    """With [channels] timezone = "Europe/Madrid", the import said times were read in "the daemon's
    [channels] timezone (unset: this machine's, Etc/UTC)", while it read them in Madrid's."""
    d = in_process(
        {"clock": {"start": "2024-04-20T09:00:00Z"}, "channels": {"timezone": "Europe/Madrid"}}, fake_embedder=True
    )
    report = _import(d, _chat_file(tmp_path, "a", PRIYA), "whatsapp")
    assert report["zone"].startswith("Europe/Madrid (the daemon's [channels] timezone"), report["zone"]
    (turn,) = _turns(d, "Leeds hospital")
    assert turn["ts"].startswith("2024-04-14T16:01:00")  # 18:01 in Madrid
