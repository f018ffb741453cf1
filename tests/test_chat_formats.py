"""Every chat-export format is declared once (memory/channels/formats.py's FORMATS): its reader,
its description and how a file is recognised. `agentmemd import auto FILE` reads a file as the one
format it is recognised as, and the CLI's choices come from the declarations (in-process)."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentmemd.daemon.cli.chats import import_chats
from agentmemd.memory.channels.formats import AUTO, BY_NAME, FORMATS, read_chat_export, recognise
from agentmemd.memory.core.errors import MalformedExport

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)

EXPORTS = Path(__file__).parent / "data" / "exports"


def _zip(into: Path, files: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(into, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    return into


def _folder(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def samples(tmp_path) -> dict[str, list[Path]]:
    """Each format's exports as people have them: the file, and the zip the app makes of it."""
    chatgpt, claude = EXPORTS / "chatgpt_conversations.json", EXPORTS / "claude_conversations.json"
    whatsapp = sorted(EXPORTS.glob("whatsapp_*.txt")) + sorted((EXPORTS / "whatsapp").glob("*.txt"))
    one_chat = tmp_path / "result.json"  # Telegram Desktop's export of one chat
    one_chat.write_text(json.dumps({"name": "Ana", "type": "personal_chat", "id": 4001, "messages": []}))
    return {
        "whatsapp": [p for p in whatsapp if "malformed" not in p.name]
        + [_zip(tmp_path / "WhatsApp Chat - Ana.zip", {"_chat.txt": whatsapp[0].read_bytes(), "IMG-1.jpg": b"\xff"})],
        "telegram": [one_chat, EXPORTS / "telegram_account.json"],
        "slack": [_zip(tmp_path / "Acme Slack export.zip", _folder(EXPORTS / "slack"))],
        "discord": [
            EXPORTS / "discord_dm.json",
            EXPORTS / "discord_guild.json",
            _zip(tmp_path / "discord.zip", {p.name: p.read_bytes() for p in EXPORTS.glob("discord_*.json")}),
        ],
        "chatgpt": [chatgpt, _zip(tmp_path / "chatgpt.zip", {"conversations.json": chatgpt.read_bytes()})],
        "claude": [claude, _zip(tmp_path / "claude.zip", {"conversations.json": claude.read_bytes()})],
    }


def test_every_declared_format_recognises_its_own_exports_and_no_other_claims_them(samples):
    assert sorted(samples) == sorted(BY_NAME)  # a new format brings its samples here
    for name, paths in samples.items():
        for path in paths:
            assert recognise(path) == name, path.name


def test_auto_reads_a_file_as_the_format_it_is_recognised_as(samples):
    for name, paths in samples.items():
        path = paths[-1]
        auto, named = read_chat_export(AUTO, path), read_chat_export(name, path)
        assert auto.format == named.format == name
        assert auto.model_dump() == named.model_dump()


def test_a_file_that_is_no_export_is_refused_with_the_formats_it_is_not(tmp_path):
    notes = tmp_path / "notes.json"
    notes.write_text(json.dumps({"title": "groceries", "items": ["milk"]}))
    pdf = tmp_path / "statement.pdf"
    pdf.write_bytes(b"%PDF-1.7\n")
    for path in (notes, pdf, _zip(tmp_path / "photos.zip", {"IMG-1.jpg": b"\xff"})):
        with pytest.raises(MalformedExport, match="not an export agentmemd recognises"):
            recognise(path)
    with pytest.raises(MalformedExport, match="no such file"):
        recognise(tmp_path / "gone.txt")


def test_a_refusal_says_what_the_file_is_instead(tmp_path):
    """Empty, a text file named .zip, JSON cut short by a download, a zip of photos, JSON given to
    the WhatsApp reader: each says so, and the CLI names the file once."""
    from agentmemd.memory.channels.whatsapp import read_whatsapp

    empty, fake, cut = tmp_path / "empty.json", tmp_path / "chat.zip", tmp_path / "result.json"
    empty.write_text("\n")
    fake.write_text("12/03/2024, 14:05 - Ana: hola\n")
    cut.write_text('{"name": "Ana", "messages": [{"id": 1, "text": "hola"}, {"id": 2, "te')
    photos = _zip(tmp_path / "photos.zip", {"IMG-1.jpg": b"\xff"})
    for path, why in ((empty, "the file is empty"), (fake, "no zip file"),
                      (cut, "not valid JSON (Unterminated string"), (photos, "It holds IMG-1.jpg")):  # fmt: skip
        with pytest.raises(MalformedExport, match=re.escape(why)):
            recognise(path)
    with pytest.raises(MalformedExport, match="no zip file"):
        read_whatsapp(fake)
    with pytest.raises(MalformedExport, match="found 0. It holds IMG-1.jpg"):
        read_whatsapp(photos)
    cut.write_text(json.dumps({"name": "Ana", "messages": []}))
    with pytest.raises(MalformedExport, match="this is JSON, not WhatsApp's text export"):
        read_whatsapp(cut)
    refused = CliRunner().invoke(import_chats, [AUTO, str(empty)])
    assert refused.exit_code == 1 and refused.output.count("empty.json") == 1, refused.output


def test_the_import_commands_choices_and_help_come_from_the_declarations(tmp_path):
    choices = import_chats.params[0].type.choices
    assert sorted(choices) == sorted([*(f.name for f in FORMATS), AUTO])
    shown = CliRunner().invoke(import_chats, ["--help"]).output
    assert all(f.name in shown and f.description[:30] in shown.replace("\n", " ") for f in FORMATS)
    refused = CliRunner().invoke(import_chats, [AUTO, str(_zip(tmp_path / "x.zip", {"a.jpg": b"1"}))])
    assert refused.exit_code == 1 and "not an export agentmemd recognises" in refused.output + refused.stderr
