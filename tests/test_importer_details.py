"""Importer details on small exports written here in the apps' own formats: Telegram's links and
polls, ChatGPT's custom instructions and other branches, and zips that are not what they should be."""

from __future__ import annotations

import codecs
import json
import zipfile
from datetime import datetime, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentmemd.daemon.cli.main import cli
from agentmemd.memory.channels.chatgpt import parse_chatgpt, read_chatgpt
from agentmemd.memory.channels.claude import read_claude
from agentmemd.memory.channels.discord import read_discord
from agentmemd.memory.channels.slack import read_slack
from agentmemd.memory.channels.telegram import parse_telegram, read_telegram
from agentmemd.memory.core.errors import MalformedExport

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)

EXPORTS = Path(__file__).parent / "data" / "exports"
T0 = 1710234940  # 2024-03-12T09:15:40Z


# ---- Telegram -----------------------------------------------------------------------------------


def _telegram(*messages: dict) -> dict:
    """One chat as Telegram Desktop writes it, each message given its id and date."""
    full = [
        {"id": n, "type": "message", "date_unixtime": str(T0 + n), "from": "Ana", "from_id": "user7", **m}
        for n, m in enumerate(messages, start=1)
    ]
    return {"name": "Ana", "type": "personal_chat", "id": 7, "messages": full}


def test_telegram_links_keep_where_they_point():
    chat = parse_telegram(
        _telegram(
            {
                "text": [
                    "The ",
                    {"type": "text_link", "text": "menu", "href": "https://example.org/menu"},
                    " is up, photos at ",
                    {"type": "link", "text": "https://example.org/photos"},
                    " and ",
                    {"type": "text_link", "text": "https://example.org/same", "href": "https://example.org/same"},
                ],
            },
            # Newer exports also write text_entities; an export with only those reads the same.
            {"text_entities": [{"type": "text_link", "text": "tickets", "href": "https://t.example/1"}]},
        )
    ).chats[0]
    assert [m.text for m in chat.messages] == [
        "The menu (https://example.org/menu) is up, photos at https://example.org/photos and https://example.org/same",
        "tickets (https://t.example/1)",
    ]


def test_telegram_polls_contacts_and_places_read_as_text_not_dicts():
    poll = {
        "question": "Dinner on Friday?",
        "closed": True,
        "total_voters": 3,
        "answers": [{"text": "Sushi", "voters": 2, "chosen": True}, {"text": "Tapas", "voters": 1, "chosen": False}],
    }
    chat = parse_telegram(
        _telegram(
            {"poll": poll, "text": ""},
            {
                "contact_information": {"first_name": "Rui", "last_name": "Costa", "phone_number": "+351 911"},
                "text": "",
            },
            {
                "location_information": {"latitude": 41.14, "longitude": -8.61},
                "place_name": "Café Majestic",
                "address": "Rua Santa Catarina",
                "text": "",
            },
        )
    ).chats[0]
    # The votes are what the poll decided: kept, with the exporting user's own choice.
    assert [m.text for m in chat.messages] == [
        "Poll: Dinner on Friday? — options: Sushi (2 votes, the user's), Tapas (1 vote) (closed)"
    ]
    assert [s.reason for s in chat.skipped] == [
        "media without text (contact Rui Costa (+351 911))",
        "media without text (location 41.14, -8.61 (Café Majestic, Rua Santa Catarina))",
    ]
    assert not any("{" in s.reason for s in chat.skipped)


# ---- ChatGPT ------------------------------------------------------------------------------------


def _node(node_id: str, parent: str | None, children: list[str], message: dict | None) -> dict:
    return {"id": node_id, "message": message, "parent": parent, "children": children}


def _said(node_id: str, role: str, text: str, at: float | None) -> dict:
    return {
        "id": node_id,
        "author": {"role": role, "name": None, "metadata": {}},
        "create_time": at,
        "content": {"content_type": "text", "parts": [text]},
        "metadata": {},
        "recipient": "all",
    }


def _instructions(node_id: str, about_me: str, about_you: str, *, clean: bool = True) -> dict:
    """The hidden message that carries custom instructions, as 2024-25 exports write it: the person's
    words in the metadata, and fenced after ChatGPT's preamble in the content (older: the content only)."""
    metadata = {"is_user_system_message": True, "is_visually_hidden_from_conversation": True}
    if clean:
        metadata["user_context_message_data"] = {"about_user_message": about_me, "about_model_message": about_you}
    return {
        "id": node_id,
        "author": {"role": "user", "name": None, "metadata": {}},
        "create_time": None,
        "content": {
            "content_type": "user_editable_context",
            "user_profile": "The user provided the following information about themselves. This user profile is "
            f"shown to you in all conversations they have.\nUser profile:\n```{about_me}```",
            "user_instructions": f"The user provided the additional info about how they would like you to respond:\n```{about_you}```",
        },
        "metadata": metadata,
        "recipient": "all",
    }


def _conversation(cid: str, title: str, start: float, instructions: dict | None, question: str) -> dict:
    mapping = {
        "root": _node("root", None, ["ci"], None),
        "ci": _node("ci", "root", ["q"], instructions),
        "q": _node("q", "ci", ["a"], _said("q", "user", question, start + 1)),
        "a": _node("a", "q", [], _said("a", "assistant", "Noted.", start + 2)),
    }
    if instructions is None:
        mapping["ci"]["message"] = None
    return {"id": cid, "title": title, "create_time": start, "current_node": "a", "mapping": mapping}


ABOUT_ME = "Preferred name: Elin\nRole: machine operator; I live in Tromsø."
ABOUT_YOU = "Be brief. Metric units."


def test_chatgpt_custom_instructions_are_the_users_own_words_once_per_distinct_text():
    export = parse_chatgpt(
        [
            _conversation("c1", "Snow tyres", T0, _instructions("ci", ABOUT_ME, ABOUT_YOU), "Which snow tyres?"),
            _conversation("c2", "Bread", T0 + 86400, _instructions("ci", ABOUT_ME, ABOUT_YOU), "Rye bread?"),
            # Later the person edited "about me"; this export writes it in the content only.
            _conversation(
                "c3", "Boat", T0 + 2 * 86400, _instructions("ci", "I moved to Bodø.", ABOUT_YOU, clean=False), "Boat?"
            ),
            _conversation("c4", "No instructions", T0 + 3 * 86400, None, "Hello?"),
        ]
    )
    told = {c.chat_id: c for c in export.chats}["chatgpt:custom-instructions"]
    assert told.title == "ChatGPT custom instructions" and told.kind == "private"
    assert [(m.sender, m.by_assistant, m.ts, m.text) for m in told.messages] == [
        (
            "User",
            False,
            datetime.fromtimestamp(T0, timezone.utc),
            f"About me (my ChatGPT custom instructions): {ABOUT_ME}",
        ),
        (
            "User",
            False,
            datetime.fromtimestamp(T0, timezone.utc),
            f"How I want ChatGPT to respond (my custom instructions): {ABOUT_YOU}",
        ),
        (
            "User",
            False,
            datetime.fromtimestamp(T0 + 2 * 86400, timezone.utc),
            "About me (my ChatGPT custom instructions): I moved to Bodø.",
        ),
    ]
    # Keyed by their text: the same export read again gives the same ids (an import adds nothing twice).
    again = {
        c.chat_id: c
        for c in parse_chatgpt([_conversation("c9", "x", T0, _instructions("ci", ABOUT_ME, ABOUT_YOU), "q")]).chats
    }
    assert again["chatgpt:custom-instructions"].messages[0].message_id == told.messages[0].message_id
    # The conversations themselves still skip the hidden message.
    assert [s.reason for s in export.chats[0].skipped] == ["custom instructions"]
    assert [m.text for m in export.chats[0].messages] == ["Which snow tyres?", "Noted."]


def test_chatgpt_custom_instructions_are_imported_as_the_user_speaking(in_process):
    d = in_process(fake_embedder=True)
    export = parse_chatgpt([_conversation("c1", "Snow tyres", T0, _instructions("ci", ABOUT_ME, ABOUT_YOU), "Tyres?")])
    told = {c.chat_id: c for c in export.chats}["chatgpt:custom-instructions"]
    params = {
        "channel": "chatgpt",
        "chat_id": told.chat_id,
        "title": told.title,
        "kind": told.kind,
        "messages": [m.model_dump(mode="json", exclude_defaults=True) for m in told.messages],
        "owner": export.owner,
        "namespace": "ci",
    }
    done = d.call("channels.ingest", params)
    assert done["added"] == 2 and done["people"] == {"User": "user"}
    turns = d.call("conversation.search", {"query": "Tromsø machine operator", "namespace": "ci"})["turns"]
    assert turns[0]["person"] == "user" and turns[0]["role"] == "user" and "Tromsø" in turns[0]["content"]
    assert d.call("channels.ingest", params)["added"] == 0


def test_chatgpt_other_branches_are_counted_in_the_notes():
    regenerated = _conversation("c1", "Porto trip", T0, None, "Where to eat in Porto?")
    mapping = regenerated["mapping"]
    # A first answer, regenerated: the person saw the second one last.
    mapping["q"]["children"] = ["a0", "a"]
    mapping["a0"] = _node("a0", "q", [], _said("a0", "assistant", "Try the Bolhão market.", T0 + 1.5))
    # A hidden system message off the branch is no conversation: not counted.
    mapping["s0"] = _node("s0", "q", [], _said("s0", "system", "", None))
    export = parse_chatgpt([regenerated, _conversation("c2", "Straight", T0, None, "Hi?")])
    assert export.notes == [
        "1 message on other branches not imported (earlier edits and regenerated answers: only the branch each "
        "conversation showed last is read): 1 in 'Porto trip'"
    ]
    # The fixture's edited question: its first wording is on a branch of its own.
    fixture = read_chatgpt(EXPORTS / "chatgpt_conversations.json")
    assert (
        fixture.notes
        and fixture.notes[0].startswith("1 message on other branches")
        and "'Sourdough starter help'" in fixture.notes[0]
    )


def test_a_dry_run_shows_the_other_branches_and_the_instructions(tmp_path):
    path = tmp_path / "conversations.json"
    conversations = json.loads((EXPORTS / "chatgpt_conversations.json").read_text())
    conversations.append(_conversation("c1", "Snow tyres", T0, _instructions("ci", ABOUT_ME, ABOUT_YOU), "Tyres?"))
    path.write_text(json.dumps(conversations))
    dry = _cli(tmp_path, "--json", "import", "chatgpt", str(path), "--dry-run")
    assert dry.exit_code == 0, dry.output
    report = json.loads(dry.stdout)
    assert report["notes"][0].startswith("1 message on other branches not imported")
    # The fixture's older instructions ("I bake on weekends.", no fence) and the new conversation's two.
    assert {c["title"]: c["messages"] for c in report["chats"]}["ChatGPT custom instructions"] == 3
    shown = _cli(tmp_path, "import", "chatgpt", str(path), "--dry-run")
    assert "note: 1 message on other branches not imported" in shown.stdout


def _cli(tmp_path: Path, *args: str):
    """The command with no daemon to reach: a dry run and a refused file need none."""
    return CliRunner().invoke(cli, ["--socket", str(tmp_path / "none.sock"), *args])


# ---- zips that are not what they should be ------------------------------------------------------

READERS = {
    "slack": read_slack,
    "discord": read_discord,
    "chatgpt": read_chatgpt,
    "claude": read_claude,
    "telegram": read_telegram,
}


def _zip(path: Path, files: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return path


def _chatgpt_zip(path: Path) -> Path:
    conversations = json.loads((EXPORTS / "chatgpt_conversations.json").read_text()) * 20
    return _zip(
        path, {"conversations.json": json.dumps(conversations), "chat.html": "<html></html>", "user.json": "{}"}
    )


def _cut_short(path: Path) -> Path:
    data = _chatgpt_zip(path).read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return path


def _damaged_data(path: Path) -> Path:
    """A sound directory over damaged compressed bytes: each member fails its inflate or CRC when read
    (one zip for every importer: it holds each one's first file)."""
    names = ("conversations.json", "result.json", "users.json", "general/2024-03-12.json", "c.json")
    data = bytearray(_zip(path, {name: json.dumps([str(i) for i in range(500)]) for name in names}).read_bytes())
    for name in names:
        start = data.find(name.encode()) + len(name)  # the local header's name: its data follows
        for at in range(start + 4, start + 14):
            data[at] ^= 0x55
    path.write_bytes(bytes(data))
    return path


def _damaged_directory(path: Path) -> Path:
    data = bytearray(_chatgpt_zip(path).read_bytes())
    at = data.rfind(b"PK\x01\x02")
    data[at + 2] = 0  # the directory entry's signature broken
    path.write_bytes(bytes(data))
    return path


def _encrypted(path: Path) -> Path:
    """The directory says the member is encrypted (flag bit 0), as a password-protected zip's does."""
    data = bytearray(_chatgpt_zip(path).read_bytes())
    at = 0
    while (at := data.find(b"PK\x01\x02", at)) != -1:
        data[at + 8] |= 0x01
        at += 4
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("damage", [_cut_short, _damaged_data, _damaged_directory])
@pytest.mark.parametrize("format", sorted(READERS))
def test_a_corrupt_zip_says_so_for_every_importer(tmp_path, format, damage):
    broken = damage(tmp_path / "export.zip")
    with pytest.raises(MalformedExport) as bad:
        READERS[format](broken)
    assert bad.value.message.startswith("corrupt zip: "), bad.value.message
    assert bad.value.data == {"line": 0}


def test_a_cut_short_zip_is_named_as_such_not_as_json_or_a_missing_zip(tmp_path):
    broken = _cut_short(tmp_path / "chatgpt-export.zip")
    for reader in (read_chatgpt, read_slack):
        with pytest.raises(
            MalformedExport, match=r"^corrupt zip: chatgpt-export.zip: it ends before the zip's directory"
        ):
            reader(broken)


def test_an_encrypted_zip_asks_to_unzip_it(tmp_path):
    with pytest.raises(MalformedExport, match="encrypted zip: export.zip: conversations.json needs a password"):
        read_chatgpt(_encrypted(tmp_path / "export.zip"))


def test_another_apps_zip_says_what_is_missing_and_what_it_holds(tmp_path):
    chatgpt = _chatgpt_zip(tmp_path / "chatgpt.zip")
    with pytest.raises(MalformedExport) as bad:
        read_slack(chatgpt)
    assert bad.value.message == (
        "chatgpt.zip: a zip, but it has no channel folders of day files (e.g. general/2024-03-12.json) nor "
        "users.json nor channels.json; is this a Slack export? It holds chat.html, conversations.json, user.json."
    )
    with pytest.raises(
        MalformedExport, match=r"a zip, but it has no result.json; is this a Telegram export\? It holds chat.html"
    ):
        read_telegram(chatgpt)
    with pytest.raises(
        MalformedExport, match=r"a zip, but it has no \.json channel exports; is this a DiscordChatExporter"
    ):
        read_discord(_zip(tmp_path / "w.zip", {"WhatsApp Chat with Ana.txt": "12/03/2024, 09:16 - Ana: hi\n"}))
    slack = _zip(tmp_path / "slack.zip", {"users.json": "[]", "channels.json": "[]", "general/2024-03-12.json": "[]"})
    with pytest.raises(MalformedExport, match=r"a zip, but it has no conversations.json; is this a ChatGPT export\?"):
        read_chatgpt(slack)
    with pytest.raises(MalformedExport, match="It is empty"):
        read_claude(_zip(tmp_path / "empty.zip", {}))
    # The same conversations.json name, the other app's shape.
    with pytest.raises(MalformedExport, match="this is a ChatGPT export"):
        read_claude(chatgpt)
    claude = _zip(tmp_path / "claude.zip", {"conversations.json": (EXPORTS / "claude_conversations.json").read_text()})
    with pytest.raises(MalformedExport, match="this is a Claude export"):
        read_chatgpt(claude)


def test_not_a_zip_says_so(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("shopping: eggs, milk\n")
    with pytest.raises(MalformedExport) as bad:
        read_slack(notes)
    assert bad.value.message.startswith("not a zip: notes.txt (a Slack export is a .zip")
    pdf = tmp_path / "export.pdf"
    pdf.write_bytes(b"%PDF-1.7\n\xe2\xe3\xcf\xd3\n1 0 obj")
    for reader, expected in ((read_chatgpt, "a ChatGPT export is its conversations.json, or a zip holding it"),
                             (read_telegram, "a Telegram export is its result.json"),
                             (read_discord, "a DiscordChatExporter export is a channel's JSON")):  # fmt: skip
        with pytest.raises(MalformedExport) as bad:
            reader(pdf)
        assert bad.value.message.startswith("not a zip, nor JSON: export.pdf (it starts with b'%PDF-1.7"), (
            bad.value.message
        )
        assert expected in bad.value.message
    empty = tmp_path / "conversations.json"
    empty.write_bytes(b"")
    with pytest.raises(MalformedExport, match=r"not a zip, nor JSON: conversations.json \(it is empty\)"):
        read_claude(empty)


def test_the_import_command_prints_the_reason_never_a_traceback(tmp_path):
    for damage in (_cut_short, _damaged_data, _damaged_directory, _encrypted):
        broken = damage(tmp_path / f"{damage.__name__}.zip")
        for format in ("chatgpt", "slack", "whatsapp"):
            out = _cli(tmp_path, "import", format, str(broken), "--dry-run")
            assert out.exit_code == 1 and isinstance(out.exception, SystemExit), (format, damage, out.output)
            assert "zip" in out.stderr and "Traceback" not in out.output, out.stderr


def test_a_reply_is_indexed_with_what_it_answers_however_far_back(in_process, tmp_path):
    """Telegram's reply_to_message_id: "I'll bring a Rioja" answers a question asked twelve messages
    before, outside the two turns an episode is indexed with; it is found by that question."""
    chatter = [
        {"text": f"Photo {i} from the hike, look at that view", "from": "Ben", "from_id": "user8"} for i in range(12)
    ]
    export = _telegram(
        {"text": "Who is bringing the wine for Saturday's dinner?"},
        *chatter,
        {"text": "I'll bring a Rioja", "from": "Marco", "from_id": "user9", "reply_to_message_id": 1},
    )
    path = tmp_path / "result.json"
    path.write_text(json.dumps(export), encoding="utf-8")
    chat = parse_telegram(export).chats[0]
    messages = [m.model_dump(mode="json", exclude_defaults=True) for m in chat.messages]
    d = in_process()
    d.call("channels.ingest", {"channel": "telegram", "chat_id": chat.chat_id, "title": chat.title, "kind": chat.kind,
                               "messages": messages, "owner": "user7"})  # fmt: skip
    d.services.episodes.catch_up()
    hits = d.call("memory.search", {"query": "who is bringing the wine to dinner?", "k": 3})["results"]
    assert any("Rioja" in h["content"] for h in hits), [h["content"] for h in hits]
    reply = next(h for h in d.call("memory.search", {"query": "Rioja", "k": 5})["results"] if "Rioja" in h["content"])
    row = d.run_on_store(lambda: d.services.store.get(reply["id"]))[0]
    assert "bringing the wine" in row["context"]
    # Forgetting the question takes its words out of the reply's index entry too.
    question = next(h for h in hits if "bringing the wine" in h["content"])
    d.call("memory.forget", {"id": question["id"], "confirm": True})
    row = d.run_on_store(lambda: d.services.store.get(reply["id"]))[0]
    assert "bringing the wine" not in row["context"] and "(forgotten)" in row["context"]


def test_a_chat_named_with_joined_emoji_is_named_as_written_in_an_error():
    """Found importing a family's Telegram export: "chat 'Familia 👨\\u200d👩\\u200d👧': message 3:
    no date" (the name's joiners written as escape codes)."""
    from agentmemd.memory.channels.telegram import parse_telegram
    from agentmemd.memory.core.errors import MalformedExport

    family = "Familia 👨\u200d👩\u200d👧"
    document = {
        "name": family,
        "type": "private_group",
        "id": 7,
        "messages": [{"id": 1, "type": "message", "text": "hola"}],
    }
    with pytest.raises(MalformedExport) as bad:
        parse_telegram(document)
    assert f"chat '{family}'" in bad.value.message and "\\u200d" not in bad.value.message


def test_an_export_named_as_another_format_says_which_it_looks_like(tmp_path):
    """Found importing: `agentmemd import discord` of a Telegram export said only "expected dict,
    found list"-style words, with no hint of what the file is (the chatgpt importer gave one)."""
    export = Path(__file__).parent / "data" / "exports" / "telegram_account.json"
    done = CliRunner().invoke(cli, ["import", "discord", str(export), "--dry-run"])
    assert done.exit_code == 1 and "it looks like a telegram export: agentmemd import telegram" in done.output, (
        done.output
    )


def test_a_whatsapp_export_saved_as_utf16_is_read_and_a_broken_one_is_named_once(tmp_path):
    """Windows' Notepad saves "Unicode" as UTF-16 with its mark: it is text, read as such (it was
    "not UTF-8 text (byte 0)"). A file with a bad byte names itself once, with the line and where in it."""
    said = "12/03/2026, 21:14 - Ana: llego a BER el viernes a las 21:15\n12/03/2026, 21:15 - Ben: te recojo 🚗\n"
    utf16 = tmp_path / "WhatsApp Chat with Ana.txt"
    utf16.write_bytes(codecs.BOM_UTF16_LE + said.encode("utf-16-le"))
    read = _cli(tmp_path, "import", "whatsapp", str(utf16), "--dry-run")
    assert read.exit_code == 0 and "2 messages" in read.output, read.output
    broken = tmp_path / "bad.txt"
    broken.write_bytes(said.encode() + b"12/03/2026, 21:16 - Ana: caf\xe9 con leche\n")
    out = _cli(tmp_path, "import", "whatsapp", str(broken), "--dry-run")
    assert out.exit_code == 1 and out.stderr.count("bad.txt") == 1, out.stderr
    assert "line 3, byte 29 of the line: not UTF-8 text" in out.stderr
