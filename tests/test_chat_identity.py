"""A chat is what it holds, not its file's name: two people's `_chat.txt` never merge, a renamed
copy or another `--tz` reading stores nothing twice (and says so), a re-import with the right
`--me` corrects the one before, and a chat stored under the id imports gave it before goes on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import wait_for

from agentmemd.daemon.cli.main import cli
from agentmemd.memory.channels.whatsapp import read_whatsapp
from agentmemd.memory.core.clock import to_utc, zone_named

pytestmark = pytest.mark.process  # the tier (pyproject.toml)

# Two different people's iOS exports: both files are named _chat.txt, and both chats are with Carla.
ANA = (
    "[14.06.24, 09:12:33] Ana: Morning Carla!\n"
    "[14.06.24, 09:13:02] Carla: Hi Ana, are you home tonight?\n"
    "[14.06.24, 09:15:40] Ana: Yes. The door code is 4711 if I'm late\n"
    "[14.06.24, 09:16:05] Carla: Perfect, see you at eight\n"
)
BEN = (
    "[02.07.24, 18:01:10] Ben: Carla, did you book the ferry?\n"
    "[02.07.24, 18:03:45] Carla: Not yet, tomorrow\n"
    "[02.07.24, 18:04:12] Ben: Ok, the 9:40 one please\n"
)


@pytest.fixture(scope="module")
def served():
    from conftest import served_daemon

    with served_daemon() as d:
        yield d


def run(d, *args: str):
    return CliRunner().invoke(cli, ["--socket", str(d.socket), *args])


def imported(d, *args: str) -> dict:
    done = run(d, "--json", "import", "whatsapp", *args)
    assert done.exit_code == 0, done.output
    return json.loads(done.stdout)


def _chat_file(folder: Path, text: str, name: str = "_chat.txt") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    return folder / name


def test_two_peoples_same_named_exports_stay_two_chats_and_nothing_leaks(served, tmp_path):
    ns = "id-two"
    ana = imported(served, str(_chat_file(tmp_path / "ana", ANA)), "--me", "Carla", "--tz", "UTC", "--namespace", ns)
    ben = imported(served, str(_chat_file(tmp_path / "ben", BEN)), "--me", "Carla", "--tz", "UTC", "--namespace", ns)
    assert (ana["added"], ben["added"]) == (4, 3) and ben["duplicates"] == 0
    chats = {c["chat"]: c for c in served.call("chats.list", {"namespace": ns})["chats"]}
    assert len(chats) == 2 and {c["title"] for c in chats.values()} == {"Ana, Carla", "Ben, Carla"}
    ben_chat = ben["chats"][0]["chat"]
    audience = f"private:{ben_chat}"
    heard = served.call("conversation.search", {"query": "door code 4711", "audience": audience, "namespace": ns})
    assert heard["turns"] == []  # Ana's door code is not heard in Ben's chat

    def found(chat: str) -> list[str]:
        query = {"query": "door code", "k": 20, "audience": f"private:{chat}", "namespace": ns}
        return [hit["content"] for hit in served.call("memory.search", query)["results"]]

    # Once Ana's chat is searchable there (its episodes indexed), Ben's chat still hears none of it
    # (a door code is a secret: a chat's search finds it masked).
    wait_for(lambda: any("The door code is" in text for text in found(ana["chats"][0]["chat"])), timeout=60)
    assert all("door code" not in text and "4711" not in text for text in found(ben_chat))
    assert all("4711" not in text for text in found(ana["chats"][0]["chat"]))


def test_a_later_export_that_lost_the_chats_opening_messages_goes_on_in_the_same_chat(served, tmp_path):
    """WhatsApp exports a long chat's newest 40,000 messages (10,000 with media): a later export
    opens with messages the first one had in its middle. It is the same chat, and only its new
    messages are added (it was a second chat, every message stored twice)."""
    ns = "id-window"
    lines = [f"[{day:02d}.03.24, 09:{m:02d}:00] {'Ana' if m % 2 else 'Carla'}: note {day}-{m}" for day in (1, 2, 3) for m in (10, 11, 12)]  # fmt: skip
    first = imported(
        served, str(_chat_file(tmp_path / "a", "\n".join(lines[:6]) + "\n")), "--tz", "UTC", "--namespace", ns
    )
    later = imported(
        served, str(_chat_file(tmp_path / "b", "\n".join(lines[3:]) + "\n")), "--tz", "UTC", "--namespace", ns
    )
    assert (first["added"], later["added"], later["duplicates"]) == (6, 3, 3)
    chats = served.call("chats.list", {"namespace": ns})["chats"]
    assert len(chats) == 1 and chats[0]["messages"] == 9 and later["chats"][0]["chat"] == first["chats"][0]["chat"]
    # Another chat of the same people that shares no message stays a chat of its own.
    other = imported(served, str(_chat_file(tmp_path / "c", BEN)), "--tz", "UTC", "--namespace", ns)
    assert other["added"] == 3 and len(served.call("chats.list", {"namespace": ns})["chats"]) == 2


def test_a_renamed_copy_adds_nothing(served, tmp_path):
    ns = "id-copy"
    first = imported(served, str(_chat_file(tmp_path, ANA, "WhatsApp Chat with Ana.txt")), "--namespace", ns)
    again = imported(served, str(_chat_file(tmp_path, ANA, "WhatsApp Chat with Ana (1).txt")), "--namespace", ns)
    assert first["added"] == 4 and (again["added"], again["duplicates"]) == (0, 4)
    assert len(served.call("chats.list", {"namespace": ns})["chats"]) == 1
    # A second download's " (1)" is no part of the chat's name (a chat first imported from one was "Ana (1)").
    alone = imported(
        served, str(_chat_file(tmp_path / "o", ANA, "WhatsApp Chat with Ana (1).txt")), "--namespace", "id-copy-1"
    )
    assert alone["chats"][0]["title"] == "Ana"
    assert [c["title"] for c in served.call("chats.list", {"namespace": "id-copy-1"})["chats"]] == ["Ana"]


def test_another_tz_adds_nothing_and_says_the_times_differ(served, tmp_path):
    ns = "id-tz"
    path = str(_chat_file(tmp_path, ANA, "WhatsApp Chat with Ana.txt"))
    imported(served, path, "--tz", "Europe/Berlin", "--namespace", ns)
    again = imported(served, path, "--tz", "UTC", "--namespace", ns)
    assert (again["added"], again["duplicates"]) == (0, 4)
    dry = imported(served, path, "--dry-run", "--tz", "Europe/Berlin", "--namespace", ns)
    assert dry["zone"] == "Europe/Berlin (--tz)"  # the dry run says the zone it assumes
    assert again["chats"][0]["retimed"] == {"messages": 4, "earlier_offset": "UTC+02:00", "this_offset": "UTC+00:00"}
    human = run(served, "import", "whatsapp", path, "--tz", "UTC", "--namespace", ns)
    assert "stored by an earlier import that read their times at UTC+02:00" in human.stdout
    assert "--tz of that first import" in human.stdout
    same = imported(served, path, "--tz", "Europe/Berlin", "--namespace", ns)
    assert same["chats"][0]["retimed"] is None  # the same reading: nothing to say


def test_a_reimport_with_the_right_me_corrects_the_wrong_one(served, tmp_path):
    ns = "id-me"
    path = str(_chat_file(tmp_path, ANA, "WhatsApp Chat with Ana.txt"))
    wrong = imported(served, path, "--me", "Ana", "--tz", "UTC", "--namespace", ns)  # the user is Carla
    assert wrong["chats"][0]["people"]["Ana"] == "user"
    right = imported(served, path, "--me", "carla", "--tz", "UTC", "--namespace", ns)  # case aside: Carla
    assert right["added"] == 0
    carla = served.call("conversation.search", {"query": "eight", "namespace": ns})["turns"]
    assert carla[0]["person"] == "user"
    turns = served.call("conversation.search", {"query": "door code", "namespace": ns})["turns"]
    assert turns[0]["speaker"] == "Ana" and turns[0]["person"].startswith("pe_")
    moved = {m["name"]: m for m in right["chats"][0]["remapped"]}
    assert moved["Carla"]["now"] == "user" and moved["Carla"]["turns"] == 2
    assert moved["Ana"]["was"] == "user" and moved["Ana"]["now"] == turns[0]["person"] and moved["Ana"]["turns"] == 2
    human = run(served, "import", "whatsapp", path, "--me", "Carla", "--tz", "UTC", "--namespace", ns)
    assert "corrected" not in human.stdout  # once corrected, nothing more moves
    again = imported(served, path, "--me", "Ana", "--tz", "UTC", "--dry-run", "--namespace", ns)
    assert again["dry_run"]  # a dry run moves nothing either
    assert served.call("conversation.search", {"query": "eight", "namespace": ns})["turns"][0]["person"] == "user"

    # No empty namesake is left behind: Carla, a person while Ana was taken for the user, was the
    # user all along; flipped back and forth, each goes back to the person they were.
    def people() -> list[tuple[str, str, int]]:
        return sorted(
            (p["id"], p["name"], p["messages"]) for p in served.call("people.list", {"namespace": ns})["people"]
        )

    assert [(name, n) for _, name, n in people()] == [("Ana", 2), ("the user", 2)]
    ana = next(pid for pid, name, _ in people() if name == "Ana")
    imported(served, path, "--me", "Ana", "--tz", "UTC", "--namespace", ns)
    carla = next(pid for pid, name, _ in people() if name == "Carla")
    assert carla == wrong["chats"][0]["people"]["Carla"] and [n for _, _, n in people()] == [2, 2]
    imported(served, path, "--me", "Carla", "--tz", "UTC", "--namespace", ns)
    assert next(pid for pid, name, _ in people() if name == "Ana") == ana and len(people()) == 2
    found = served.call("people.get", {"person": "Carla", "namespace": ns})
    assert found["id"] == "user"  # her name finds the user she is


def test_a_chat_stored_under_its_file_name_goes_on_under_it(in_process, tmp_path):
    """What was imported before chats were known by content (chat `whatsapp:<file name>`, keys of
    instants) is found again: nothing stored twice, new messages join the same chat."""
    from agentmemd.memory.channels.ingest import earlier_key

    d = in_process(fake_embedder=True)
    path = _chat_file(tmp_path, ANA, "WhatsApp Chat with Ana.txt")
    chat = read_whatsapp(path).chats[0]
    assert chat.earlier_ids == ["whatsapp:Ana"]
    old = {"channel": "whatsapp", "chat_id": "whatsapp:Ana", "title": "Ana", "kind": "private", "tz": "UTC"}
    messages = [m.model_dump(mode="json", exclude_defaults=True) for m in chat.messages]
    d.call("channels.ingest", {**old, "messages": messages})
    # Rewrite the stored keys as imports made them then (the message's instant under the old id).
    tables = d.services.channels.tables
    zone = zone_named("UTC")
    rows = tables.conn.execute("SELECT key, turn_seq FROM chat_message_keys ORDER BY turn_seq").fetchall()
    tables.conn.execute("DELETE FROM chat_message_keys")
    for (_, seq), m in zip(rows, chat.messages):
        key = earlier_key("whatsapp:Ana", m, to_utc(m.ts.replace(tzinfo=zone)), 0)
        tables.conn.execute("INSERT INTO chat_message_keys VALUES ('default', ?, ?)", (key, seq))
    grown = path.read_text() + "[14.06.24, 21:02:00] Ana: Thanks for coming!\n"
    path.write_text(grown, encoding="utf-8")
    chat = read_whatsapp(path).chats[0]
    params = {
        "channel": "whatsapp",
        "chat_id": chat.chat_id,
        "earlier_ids": chat.earlier_ids,
        "title": chat.title,
        "kind": chat.kind,
        "tz": "UTC",
        "messages": [m.model_dump(mode="json", exclude_defaults=True) for m in chat.messages],
    }
    done = d.call("channels.ingest", params)
    assert (done["chat"], done["added"], done["duplicates"]) == ("whatsapp:Ana", 1, 4)
    assert [c["chat"] for c in d.call("chats.list", {})["chats"]] == ["whatsapp:Ana"]


@pytest.mark.parametrize(
    "name, title",
    [
        ("WhatsApp Chat with Ana.txt", "Ana"),
        ("WhatsApp Chat mit Lena Müller.txt", "Lena Müller"),
        ("Chat de WhatsApp con Ana.zip", "Ana"),
        ("Conversa do WhatsApp com João.txt", "João"),
        ("Discussion WhatsApp avec Luc.txt", "Luc"),
        ("WhatsApp Chat - Porto trip.zip", "Porto trip"),
        ("notes.txt", "notes"),
    ],
)
def test_a_chat_is_titled_from_its_file_name_in_the_phones_language(tmp_path, name, title):
    path = tmp_path / name
    if name.endswith(".zip"):
        import zipfile

        with zipfile.ZipFile(path, "w") as z:
            z.writestr("_chat.txt", ANA)
    else:
        path.write_text(ANA, encoding="utf-8")
    assert read_whatsapp(path).chats[0].title == title
