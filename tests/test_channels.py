"""Chat messages into conversations (channels.ingest): sessions by time gap, people, each message
once, raw messages searchable; and `agentmemd import` against a real daemon."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from datetime import datetime, timedelta

import pytest
from click.testing import CliRunner
from conftest import REPO, InNamespace, wait_for

from agentmemd.daemon.cli.main import cli
from agentmemd.daemon.socket.client import RpcCallError
from agentmemd.memory.channels.ingest import batches
from agentmemd.memory.channels.whatsapp import read_whatsapp
from agentmemd.memory.core.chats import ChatMessage
from agentmemd.memory.core.text import attribution

pytestmark = pytest.mark.process  # the tier (pyproject.toml)

EXPORTS = REPO / "tests" / "data" / "exports"


def _messages(export) -> list[dict]:
    return [m.model_dump(mode="json", exclude_defaults=True) for m in export.chats[0].messages]


def _ingest(d, ns, export, **extra):
    chat = export.chats[0]
    params = {
        "channel": export.format,
        "chat_id": chat.chat_id,
        "title": chat.title,
        "kind": chat.kind,
        "messages": _messages(export),
        "namespace": ns,
        "tz": "Europe/Lisbon",
        **extra,
    }
    return d.call("channels.ingest", params)


@pytest.fixture
def fake(in_process):
    return in_process(fake_embedder=True)


def test_a_chat_becomes_sessions_split_by_time_gaps_and_its_senders_people(fake):
    export = read_whatsapp(EXPORTS / "whatsapp_android_24h_dmy.txt")
    done = _ingest(fake, "n1", export, owner="Ben")
    assert done["added"] == 4 and done["duplicates"] == 0
    # 12 Mar 09:16, 09:20 | 13 Mar 18:02 | 14 Mar 07:45: gaps over 4 h start sessions
    assert len(done["sessions"]) == 3
    assert done["sessions"][0].startswith("whatsapp:whatsapp-android-24h-dmy:") and done["sessions"][0].endswith(
        "@20240312T091600Z"
    )  # 09:16 in Lisbon in March is 09:16 UTC
    assert done["people"]["Ben"] == "user" and done["people"]["Ana"].startswith("pe_")
    turns = fake.call("conversation.search", {"query": "climbing gym", "namespace": "n1"})["turns"]
    assert turns[0]["speaker"] == "Ana" and turns[0]["chat"] == export.chats[0].chat_id
    assert export.chats[0].chat_id.startswith("whatsapp:c-")  # known by its content, not the file's name
    assert turns[0]["chat_title"] == "whatsapp_android_24h_dmy" and turns[0]["ts"].startswith("2024-03-12T09:16")
    assert turns[0]["person"] == done["people"]["Ana"] and turns[0]["chat_kind"] == "private"
    # The same batch again adds nothing; so does a batch that overlaps it.
    again = _ingest(fake, "n1", export, owner="Ben")
    assert (again["added"], again["duplicates"]) == (0, 4) and again["sessions"] == done["sessions"]
    assert fake.call("conversation.status", {"session": done["sessions"][0], "namespace": "n1"})["turns"] == 2
    # Another namespace keeps its own chat, people and sessions.
    other = _ingest(fake, "n2", export)
    assert other["added"] == 4 and set(other["sessions"]).isdisjoint(done["sessions"])
    assert fake.call("conversation.search", {"query": "climbing", "namespace": "n3"})["turns"] == []


def test_a_later_batch_continues_the_session_its_first_message_is_close_to(fake):
    base = datetime(2024, 5, 1, 10, 0)
    said = [
        ChatMessage(sender="Ana", ts=base + timedelta(minutes=10 * i), text=f"message {i}", line=i + 1)
        for i in range(6)
    ]
    params = {"channel": "whatsapp", "chat_id": "whatsapp:Ana", "title": "Ana", "kind": "private", "tz": "UTC"}
    first = fake.call("channels.ingest", {**params, "messages": [m.model_dump(mode="json") for m in said[:3]]})
    rest = fake.call("channels.ingest", {**params, "messages": [m.model_dump(mode="json") for m in said[2:]]})
    assert (rest["added"], rest["duplicates"]) == (3, 1)
    assert rest["sessions"] == first["sessions"]  # 10 minutes apart: one session across batches
    # Identical messages (same second, sender and text) are kept apart by how many came before.
    twice = [said[0].model_copy(update={"text": "ok", "ts": base + timedelta(days=2)})] * 2
    done = fake.call("channels.ingest", {**params, "messages": [m.model_dump(mode="json") for m in twice]})
    assert done["added"] == 2
    assert (
        fake.call("channels.ingest", {**params, "messages": [m.model_dump(mode="json") for m in twice]})["added"] == 0
    )


def test_people_get_merge_and_list(fake):
    export = read_whatsapp(EXPORTS / "whatsapp_android_12h_mdy_group.txt")
    done = _ingest(fake, "p1", export)
    ana, number = done["people"]["Ana"], done["people"]["+351 912 345 678"]
    listed = {p["name"]: p for p in fake.call("people.list", {"namespace": "p1"})["people"]}
    assert set(listed) == {"Ana", "Ben", "+351 912 345 678"} and listed["Ana"]["messages"] >= 1
    merged = fake.call("people.merge", {"person": number, "into": ana, "namespace": "p1"})
    assert merged["turns_moved"] >= 1
    person = fake.call("people.get", {"person": ana, "namespace": "p1"})
    assert {a["account"] for a in person["accounts"]} == {"Ana", "+351 912 345 678"}
    assert person["chats"][0]["kind"] == "group"
    assert fake.call("people.get", {"person": number, "namespace": "p1"})["requested"] == number
    assert "+351 912 345 678" not in {p["name"] for p in fake.call("people.list", {"namespace": "p1"})["people"]}
    # The same account later still lands on the merged person.
    again = _ingest(fake, "p1", export)
    assert again["added"] == 0
    for bad, words in (
        ({"person": ana, "into": ana}, "themselves"),
        ({"person": "user", "into": ana}, "user cannot be merged"),
        ({"person": number, "into": ana}, "already merged"),
    ):
        with pytest.raises(RpcCallError, match=words):
            fake.call("people.merge", {**bad, "namespace": "p1"})
    with pytest.raises(RpcCallError, match="no person"):
        fake.call("people.get", {"person": ana, "namespace": "p2"})  # another namespace's person


def test_a_forgotten_message_is_no_longer_counted_as_the_persons(fake):
    export = read_whatsapp(EXPORTS / "whatsapp_android_12h_mdy_group.txt")
    ana = _ingest(fake, "f1", export)["people"]["Ana"]
    before = fake.call("people.get", {"person": ana, "namespace": "f1"})["messages"]
    fake.services.episodes.catch_up()
    (flights,) = [
        h for h in fake.call("memory.search", {"query": "Flights are booked", "namespace": "f1", "types": ["episode"]})["results"]
        if "Flights are booked" in h["content"]
    ]  # fmt: skip
    fake.call("memory.forget", {"id": flights["id"], "namespace": "f1", "confirm": True})
    assert fake.call("people.get", {"person": ana, "namespace": "f1"})["messages"] == before - 1
    listed = {p["name"]: p for p in fake.call("people.list", {"namespace": "f1"})["people"]}
    assert listed["Ana"]["messages"] == before - 1


def test_bad_batches_are_refused_whole(fake):
    export = read_whatsapp(EXPORTS / "whatsapp_ios_dots.txt")
    messages = _messages(export)
    messages[1]["text"] = "   "
    with pytest.raises(RpcCallError, match="message 2"):
        _ingest(fake, "b1", export, messages=messages)
    with pytest.raises(RpcCallError, match="unknown time zone"):
        _ingest(fake, "b1", export, tz="Mars/Olympus")
    assert fake.call("chats.list", {"namespace": "b1"})["chats"] == []
    assert fake.call("people.list", {"namespace": "b1"})["people"] == []


def test_batches_fit_a_request_line_and_never_split_a_second():
    base = datetime(2024, 1, 1)
    said = [ChatMessage(sender="A", ts=base + timedelta(seconds=i // 3), text="x" * 1000, line=i) for i in range(3000)]
    cut = list(batches(said, max_messages=100, max_bytes=200_000))
    assert sum(len(b) for b in cut) == 3000
    assert all(len(json.dumps([m.model_dump(mode="json") for m in b])) < 400_000 for b in cut)
    assert all(a[-1].ts != b[0].ts for a, b in zip(cut, cut[1:]))


# ---- `agentmemd import` against a real daemon ---------------------------------------------------


@pytest.fixture(scope="module")
def served():
    from conftest import served_daemon

    with served_daemon() as d:
        yield d


def run(d, *args: str):
    return CliRunner().invoke(cli, ["--socket", str(d.socket), *args])


def test_an_import_of_a_private_chat_says_the_users_own_conversations_do_not_hear_it(served):
    """ "Why does my agent know nothing of Ana?": a private chat is heard in its own chat only unless
    [channels] private_reaches_user names its channel; the report says so, a group's does not."""
    private = run(served, "import", "whatsapp", str(EXPORTS / "whatsapp_android_24h_dmy.txt"), "--me", "Ben", "--namespace", "heard1", "--tz", "UTC")  # fmt: skip
    assert private.exit_code == 0, private.output
    assert "private, heard in their own chat only" in private.stdout
    assert 'private_reaches_user = ["whatsapp"]' in private.stdout
    group = run(served, "import", "whatsapp", str(EXPORTS / "whatsapp_android_12h_mdy_group.txt"), "--me", "Ben", "--namespace", "heard2", "--tz", "UTC")  # fmt: skip
    assert group.exit_code == 0 and "heard in their own chat only" not in group.stdout


def test_import_cli_dry_run_import_and_again(served):
    path = str(EXPORTS / "whatsapp_android_12h_mdy_group.txt")
    dry = run(served, "--json", "import", "whatsapp", path, "--dry-run", "--namespace", "cli1")
    assert dry.exit_code == 0, dry.output
    report = json.loads(dry.stdout)
    assert report["dry_run"] and report["chats"][0]["senders"] == {"Ana": 2, "Ben": 1, "+351 912 345 678": 1}
    assert report["first"] == "2024-03-12T09:17:00" and len(report["chats"][0]["skipped"]) == 4
    assert json.loads(run(served, "--json", "chats", "--namespace", "cli1").stdout)["chats"] == []  # nothing written
    assert (report["chats"][0]["new"], report["chats"][0]["stored"]) == (4, 0)
    assert json.loads(run(served, "--json", "people", "list", "--namespace", "cli1").stdout)["people"] == []
    done = run(served, "import", "whatsapp", path, "--me", "Ben", "--namespace", "cli1", "--tz", "UTC")
    assert done.exit_code == 0, done.output
    assert "4 messages added, 0 already stored" in done.stdout and "went through 4/4 messages" in done.stderr
    assert "skipped    1  system message" not in done.stdout and "line 1: system message" in done.stdout
    again = run(served, "--json", "import", "whatsapp", path, "--me", "Ben", "--namespace", "cli1", "--tz", "UTC")
    assert (json.loads(again.stdout)["added"], json.loads(again.stdout)["duplicates"]) == (0, 4)
    # Recognised as what it is, `auto` is the same import: the same messages, each stored once.
    recognised = run(served, "--json", "import", "auto", path, "--me", "Ben", "--namespace", "cli1", "--tz", "UTC")
    assert recognised.exit_code == 0, recognised.output
    assert (json.loads(recognised.stdout)["added"], json.loads(recognised.stdout)["duplicates"]) == (0, 4)
    later = run(served, "import", "whatsapp", path, "--me", "Ben", "--namespace", "cli1", "--tz", "UTC", "--dry-run")
    assert "would import 0 new of 4 messages (4 already stored)" in later.stdout, later.stdout
    people = run(served, "people", "list", "--namespace", "cli1")
    assert "the user" in people.stdout and "Ana" in people.stdout
    found = run(served, "messages", "flights booked", "--namespace", "cli1")
    assert "Flights are booked for June 14." in found.stdout and "2024-03-12 09:17" in found.stdout
    bad = run(served, "import", "whatsapp", str(EXPORTS / "whatsapp_malformed.txt"), "--namespace", "cli1")
    assert bad.exit_code == 1 and "line 1" in bad.stderr


def test_import_refuses_a_me_that_matches_no_sender_and_lists_the_senders(served):
    """ "Ben" for sender "Ben", not "Benjamin" or "ben": a --me that matches nobody would file the
    user's own messages under someone else, so nothing is imported and the senders are named."""
    path = str(EXPORTS / "whatsapp_android_12h_mdy_group.txt")
    for flags in ([], ["--dry-run"]):
        wrong = run(served, "import", "whatsapp", path, "--me", "Benjamin", "--namespace", "cli-me", *flags)
        assert wrong.exit_code == 2, wrong.output
        assert "'Benjamin' is no sender" in wrong.stderr and "'Ana', '+351 912 345 678', 'Ben'" in wrong.stderr
    assert json.loads(run(served, "--json", "chats", "--namespace", "cli-me").stdout)["chats"] == []


def test_an_import_killed_mid_way_resumes_without_duplicates(spawn, short_tmp):
    """kill -9 the daemon while an import streams into it; start it again and import again:
    every message is stored exactly once. (Storing runs ~1,000 messages a second here: a kill once
    ``killed_at`` are stored leaves most of the 50-message batches unsent; the resumed import
    waits until what it added is searchable, which is what takes its time.)"""
    total, killed_at = 800, 200
    d = spawn()
    export = short_tmp / "WhatsApp Chat with Big Group.txt"
    start = datetime(2023, 1, 1, 8, 0)
    lines = [
        f"{(start + timedelta(minutes=7 * i)):%d/%m/%Y, %H:%M} - {'Ana' if i % 3 else 'Ben'}: message number {i} about topic {i % 17}"
        for i in range(total)
    ]
    export.write_text("\n".join(lines) + "\n")
    cmd = [sys.executable, "-m", "agentmemd.daemon.cli", "--socket", str(d.socket), "--json"]
    cmd += ["import", "whatsapp", str(export)]
    importer = subprocess.Popen([*cmd, "--batch-size", "50"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # Waits are generous: on a loaded machine storing and indexing run several times slower, and
    # what is tested is that nothing is lost or stored twice, not how fast.
    wait_for(lambda: (chats := d.call("chats.list")["chats"]) and chats[0]["messages"] >= killed_at, timeout=600)
    d.kill9()
    importer.wait(timeout=30)
    assert importer.returncode == 3, importer.stderr.read()  # it lost the daemon mid-way and said so
    print(importer.stderr.read().decode()[-300:])
    d.start()
    stored_before = d.call("chats.list")["chats"][0]["messages"]
    assert killed_at <= stored_before < total
    resumed = subprocess.run(cmd, capture_output=True, text=True, timeout=1500)  # ~10 s on a quiet machine
    assert resumed.returncode == 0, resumed.stderr
    report = json.loads(resumed.stdout)
    assert report["added"] == total - stored_before and report["duplicates"] == stored_before
    assert d.call("chats.list")["chats"][0]["messages"] == total


# ---- LoCoMo rendered as each app's export (the small fixture always; ../shared when there) -------


def _store(d, export, ns) -> dict[str, dict]:
    """Send every chat in batches, as `agentmemd import` does; each chat's sessions and counts."""
    out = {}
    for chat in export.chats:
        sessions: list[str] = []
        added = 0
        for batch in batches(chat.messages, max_messages=200):
            done = d.call(
                "channels.ingest",
                {
                    "channel": export.format,
                    "chat_id": chat.chat_id,
                    "title": chat.title,
                    "kind": chat.kind,
                    "messages": [m.model_dump(mode="json", exclude_defaults=True) for m in batch],
                    "namespace": ns,
                    "tz": "UTC",
                },
            )
            added += done["added"]
            sessions += [s for s in done["sessions"] if s not in sessions]
        out[chat.chat_id] = {"added": added, "sessions": sessions, "chat": chat}
    return out


def _same_words(a: str) -> str:
    return " ".join(a.replace("@", "").split())


def _check_rendered(fake, samples, tmp_path, ns_prefix):
    from agentmemd.daemon.bench import exports as render
    from agentmemd.memory.channels.discord import parse_discord
    from agentmemd.memory.channels.slack import read_slack
    from agentmemd.memory.channels.telegram import parse_telegram
    from agentmemd.memory.channels.whatsapp import parse_whatsapp

    sample = samples[0]
    turns = [t for s in render.sessions(sample) for t in s]
    expected = [_same_words(t["text"]) for t in turns]
    parsed = {
        "whatsapp-android": parse_whatsapp(render.render_whatsapp(sample), "LoCoMo"),
        "whatsapp-ios": parse_whatsapp(render.render_whatsapp(sample, ios=True), "LoCoMo"),
        "telegram": parse_telegram(render.render_telegram(samples[:1])),
        "slack": read_slack(render.render_slack(samples[:1], tmp_path / "slack.zip")),
        "discord": parse_discord([render.render_discord(sample)]),
    }
    for number, (name, export) in enumerate(parsed.items()):
        chat = export.chats[0]
        assert [_same_words(m.text) for m in chat.messages] == expected, name
        assert {m.sender for m in chat.messages} == set(render.speakers(sample)), name
        assert chat.skipped, f"{name}: the rendering's system/media lines are reported as skipped"
        stored = _store(fake, export, f"{ns_prefix}{number}")[chat.chat_id]
        assert stored["added"] == len(turns), name
        # The time-gap split gives LoCoMo's sessions back, each with its turns.
        assert len(stored["sessions"]) == len(render.sessions(sample)), name
        sizes = [
            fake.call("conversation.status", {"session": s, "namespace": f"{ns_prefix}{number}"})["turns"]
            for s in stored["sessions"]
        ]
        assert sizes == [len(s) for s in render.sessions(sample)], name


def test_a_conversation_rendered_as_every_export_imports_as_its_sessions(fake, small_conversation, tmp_path):
    _check_rendered(fake, [small_conversation], tmp_path, "small")


def test_locomo_rendered_as_every_export_imports_as_its_sessions(fake, locomo, tmp_path):
    _check_rendered(fake, locomo, tmp_path, "locomo")


def test_finished_sessions_are_observed_whole_and_the_newest_waits(fake, small_conversation):
    from agentmemd.daemon.bench import exports as render
    from agentmemd.memory.channels.whatsapp import parse_whatsapp

    export = parse_whatsapp(render.render_whatsapp(small_conversation), "Observed")
    sessions = _store(fake, export, "obs")[export.chats[0].chat_id]["sessions"]
    assert len(sessions) == 3
    wait_for(lambda: fake.services.worker.idle(), timeout=60)
    status = [fake.call("conversation.status", {"session": s, "namespace": "obs"}) for s in sessions]
    assert [s["observed"] == s["turns"] for s in status] == [True, True, False]
    assert status[-1]["observed"] == 0  # the chat may go on: its newest session follows the thresholds
    observed = fake.call("observations.list", {"session": sessions[0], "namespace": "obs"})["observations"]
    assert observed and all(attribution(o["content"])[0] in render.speakers(small_conversation) for o in observed)


def _group_chat(chat_id: str, said: list[tuple[str, str]]) -> dict:
    """channels.ingest params of a WhatsApp group whose owner is Javier, a minute between messages."""
    messages = [
        {"sender": who, "ts": f"2026-03-02T10:{i:02d}:00Z", "line": i + 1, "text": text}
        for i, (who, text) in enumerate(said)
    ]
    title = chat_id.split(":", 1)[1].capitalize()
    return {
        "channel": "whatsapp",
        "chat_id": chat_id,
        "title": title,
        "kind": "group",
        "owner": "Javier",
        "messages": messages,
    }


def test_a_person_is_found_by_any_name_they_go_by_accents_and_case_aside(served, ns):
    d = InNamespace(served, ns)
    chat = _group_chat("whatsapp:piso", [("Lucía Pérez", "Me mudé a Valencia"), ("Ana", "¡Qué bien!")])
    d.call("channels.ingest", chat)
    d.call("channels.ingest", {**chat, "chat_id": "whatsapp:trabajo", "title": "Trabajo",
                               "messages": [{"sender": "Ana", "ts": "2026-03-03T10:00:00Z", "line": 1, "text": "Hola"}]})  # fmt: skip
    for asked in ("Lucía Pérez", "lucia perez", "LUCIA PÉREZ", "lucia", "Pérez"):  # a word of it, too
        got = run(d, "--json", "people", "get", asked, "--namespace", ns)
        assert got.exit_code == 0, got.output
        assert json.loads(got.output)["name"] == "Lucía Pérez"
    said = run(d, "--json", "chat", "messages", "Valencia", "--person", "lucia", "--namespace", ns)
    assert said.exit_code == 0 and "Me mudé a Valencia" in said.output, said.output
    missing = run(d, "people", "get", "Lucas", "--namespace", ns)
    assert missing.exit_code != 0 and "no person 'Lucas'" in missing.output
    near = run(d, "people", "get", "Lucia Peres", "--namespace", ns)
    assert near.exit_code != 0 and "did you mean 'Lucía Pérez'?" in near.output, near.output


def test_a_chats_title_stays_when_its_export_is_downloaded_again(served, tmp_path):
    source = (EXPORTS / "whatsapp_android_12h_mdy_group.txt").read_text(encoding="utf-8")
    first = tmp_path / "WhatsApp Chat with Piso compartido.txt"
    first.write_text(source, encoding="utf-8")
    again = tmp_path / "WhatsApp Chat with Piso compartido (1).txt"
    again.write_text(source, encoding="utf-8")
    later = tmp_path / "WhatsApp Chat with Piso compartido (later).txt"
    later.write_text(source, encoding="utf-8")
    for path in (first, again, later):
        done = run(served, "import", "whatsapp", str(path), "--me", "Ben", "--namespace", "titles", "--tz", "UTC")
        assert done.exit_code == 0, done.output
    chats = json.loads(run(served, "--json", "chats", "--namespace", "titles").stdout)["chats"]
    assert [c["title"] for c in chats] == ["Piso compartido"]


def test_times_are_shown_in_the_persons_zone_and_named(served, tmp_path, monkeypatch):
    import time

    path = tmp_path / "WhatsApp Chat with Marco.txt"
    path.write_text("02/03/2026, 20:10 - Marco: Llego a Sants a las nueve\n", encoding="utf-8")
    done = run(
        served, "import", "whatsapp", str(path), "--namespace", "zones", "--tz", "Europe/Madrid", "--me", "Marco"
    )
    assert done.exit_code == 0, done.output
    monkeypatch.setenv("TZ", "Europe/Madrid")
    time.tzset()
    try:
        shown = run(served, "messages", "Sants", "--namespace", "zones")
    finally:
        monkeypatch.undo()
        time.tzset()
    assert "2026-03-02 20:10 CET" in shown.stdout, shown.stdout  # not 19:10 UTC, unnamed


def test_the_user_is_one_person_across_imports_and_never_silently_a_stranger(served, tmp_path):
    first = tmp_path / "WhatsApp Chat with Ana.txt"
    first.write_text("02/03/2026, 20:10 - Ana: Cenamos el viernes?\n02/03/2026, 20:12 - Javier: Sí, a las nueve\n")
    second = tmp_path / "WhatsApp Chat with Marco.txt"
    second.write_text("03/03/2026, 10:00 - Marco: ¿Traes el vino?\n03/03/2026, 10:05 - Javier: Claro, un rioja\n")
    stranger = run(served, "import", "whatsapp", str(first), "--namespace", "me1", "--tz", "UTC", "--dry-run")
    assert "no --me: none of the senders is the user" in stranger.stdout, stranger.stdout
    done = run(served, "import", "whatsapp", str(first), "--namespace", "me1", "--tz", "UTC", "--me", "Javier")
    assert done.exit_code == 0, done.output
    again = run(served, "--json", "import", "whatsapp", str(second), "--namespace", "me1", "--tz", "UTC")
    report = json.loads(again.stdout)
    assert "the user is 'Javier', as in an earlier import (--me to say another)" in report["notes"]
    people = json.loads(run(served, "--json", "people", "list", "--namespace", "me1").stdout)["people"]
    assert sorted(p["name"] for p in people if p["id"] != "user") == ["Ana", "Marco"]  # Javier is the user, once


def test_messages_of_a_person_named_as_a_person_names_them(served, ns):
    d = InNamespace(served, ns)
    d.call(
        "channels.ingest",
        _group_chat("whatsapp:cena", [("Marco", "Traigo el vino tinto"), ("Lucía", "Yo el vino blanco")]),
    )
    got = run(d, "messages", "vino", "--person", "lucia", "--namespace", ns)
    assert got.exit_code == 0, got.output
    assert "Yo el vino blanco" in got.output and "tinto" not in got.output
    unknown = run(d, "messages", "vino", "--person", "Nadie", "--namespace", ns)
    assert unknown.exit_code != 0 and "no person 'Nadie'" in unknown.output


def test_memories_of_a_person_by_any_name_they_go_by(served, ns):
    """There was no memory filter by person: what Lucía said could only be found by searching."""
    d = InNamespace(served, ns)
    d.call(
        "channels.ingest",
        _group_chat("whatsapp:cena", [("Marco", "Traigo el vino tinto"), ("Lucía", "Yo el vino blanco")]),
    )
    wait_for(lambda: d.call("channels.pending")["pending"] == 0)
    got = run(d, "--json", "memories", "--person", "LUCIA", "--namespace", ns)
    assert got.exit_code == 0, got.output
    assert [item["content"] for item in json.loads(got.stdout)["items"]] == ["Lucía said: Yo el vino blanco"]
    unknown = run(d, "memories", "--person", "Nadie", "--namespace", ns)
    assert unknown.exit_code != 0 and "no person 'Nadie'" in unknown.output


def test_the_user_is_one_person_in_what_the_agent_reads_whatever_name_each_export_gave_them(served, ns):
    """The user went by three names in memories ("User said" through the socket, "Javier said" in
    one export, "Javier Ortega said" in another), so an agent reading a pack could not tell they
    were one person. Every door now says "User"; the turns keep the names as sent, and a question
    that calls the user by one of them still prefers the user's words."""
    d = InNamespace(served, ns)
    d.call(
        "channels.ingest",
        _group_chat("whatsapp:piso", [("Javier", "el piso de Ruzafa me encanta"), ("Marco", "a mí no")]),
    )
    other = _group_chat("telegram:curro", [("Javier Ortega", "the flat in Ruzafa has a tiny kitchen"), ("Ana", "ouch")])
    d.call("channels.ingest", {**other, "channel": "telegram", "owner": "Javier Ortega"})
    d.call("conversation.append", {"session": "app", "role": "user", "content": "remind me to call the landlord"})
    wait_for(lambda: d.call("channels.pending")["pending"] == 0)
    listed = d.call("memory.list", {"type": "episode", "person": "user"})["items"]
    assert sorted(item["content"] for item in listed) == [
        "User said: el piso de Ruzafa me encanta",
        "User said: the flat in Ruzafa has a tiny kitchen",
    ]
    app = d.call("memory.list", {"type": "episode", "contains": "landlord"})["items"]
    assert [item["content"] for item in app] == ["User said: remind me to call the landlord"]
    assert {t["speaker"] for t in d.call("conversation.search", {"query": "Ruzafa", "k": 5})["turns"]} >= {
        "Javier",
        "Javier Ortega",
    }  # the turns as sent
    hits = d.call("memory.search", {"query": "What did Javier say about the flat in Ruzafa?", "k": 3})["results"]
    assert hits[0]["content"].startswith("User said:"), [h["content"] for h in hits]


def test_a_name_the_user_goes_by_finds_the_user_not_someone_whose_name_holds_it(in_process):
    """Found importing real chats: `person get sam` answered "Sam Reed", a Slack person who is not
    the user, though the user goes by Sam on WhatsApp; `chat messages cake --person sam` found
    nothing of what the user wrote."""
    d = in_process(fake_embedder=True)
    d.call("channels.ingest", {"channel": "whatsapp", "chat_id": "whatsapp:c-ana", "title": "Ana", "kind": "private", "owner": "Sam",
                                "messages": [{"sender": "Sam", "ts": "2026-11-20T10:00:00Z", "text": "I'll bring the cake", "line": 1},
                                             {"sender": "Ana", "ts": "2026-11-20T10:01:00Z", "text": "Perfect", "line": 2}]})  # fmt: skip
    d.call("channels.ingest", {"channel": "slack", "chat_id": "slack:C1", "title": "general", "kind": "group",
                                "messages": [{"sender": "Sam Reed", "sender_id": "U01", "ts": "2026-11-20T11:00:00Z", "text": "Standup at ten", "line": 1}]})  # fmt: skip
    assert d.call("people.get", {"person": "sam"})["id"] == "user"
    assert d.call("people.get", {"person": "Sam Reed"})["name"] == "Sam Reed"
    turns = d.call("conversation.search", {"query": "cake", "person": "sam"})["turns"]
    assert [t["content"] for t in turns] == ["I'll bring the cake"]


def test_a_chat_messages_pack_line_names_its_chat_briefly(fake):
    """A short message's line spent 57 tokens on its provenance (the session's digest and start
    time: "conversation:whatsapp:ana:1a2b3c4d@20260312T211400Z#turn:1") against its 13 of words: a
    250-token pack held two messages. The line names the chat and turn; the item keeps the whole."""
    said = ["flight moved to thursday 21:15", "IB3671 lands 23:40", "can u pick me up?", "bring a jacket lol"]
    messages = [{"sender": "Ana", "ts": f"2026-03-12T21:1{i}:00", "text": t, "line": i + 1} for i, t in enumerate(said)]
    fake.call(
        "channels.ingest",
        {"channel": "whatsapp", "chat_id": "whatsapp:ana", "title": "Ana", "kind": "private", "tz": "UTC", "messages": messages},
    )  # fmt: skip
    fake.services.episodes.catch_up()
    pack = fake.call("context.pack", {"query": "when does Ana's flight land?", "budget_tokens": 250})
    lines = [ln for ln in pack["text"].splitlines() if ln.startswith("- [episode")]
    assert len(lines) == 4 and all("source=conversation:whatsapp:ana#turn:" in ln for ln in lines), lines
    assert all(re.search(r":[0-9a-f]{8}@\d{8}T", item["source"]) for item in pack["items"])  # the whole, for explain
