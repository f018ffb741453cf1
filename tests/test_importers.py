"""Chat-export parsers on hand-made files with the quirks real exports have (tests/data/exports)."""

from __future__ import annotations

import zipfile
from datetime import datetime, timezone
from pathlib import Path

import pytest

from agentmemd.memory.channels.chatgpt import read_chatgpt
from agentmemd.memory.channels.claude import parse_claude, read_claude
from agentmemd.memory.channels.discord import read_discord
from agentmemd.memory.channels.slack import read_slack
from agentmemd.memory.channels.telegram import parse_telegram, read_telegram
from agentmemd.memory.channels.whatsapp import parse_whatsapp, read_whatsapp
from agentmemd.memory.core.errors import MalformedExport

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)

EXPORTS = Path(__file__).parent / "data" / "exports"


def test_whatsapp_android_24h_day_first_with_continuations_media_deleted_and_edited():
    export = read_whatsapp(EXPORTS / "whatsapp_android_24h_dmy.txt")
    chat = export.chats[0]
    assert chat.kind == "private" and chat.senders == ["Ana", "Ben"]
    texts = [(m.sender, m.ts, m.text) for m in chat.messages]
    assert texts[0] == (
        "Ana",
        datetime(2024, 3, 12, 9, 16),
        "Morning! Are we still on for the climbing gym on Saturday?",
    )
    assert texts[1][2] == "Yes. I booked the 10:00 slot.\nBring your own chalk, theirs is awful.\nAnd the red shoes."
    knee = chat.messages[2]
    assert knee.text == "My knee is better, the physio said twice a week is fine" and knee.edited
    photo = chat.messages[3]
    assert photo.attachments == ["IMG-20240314-WA0003.jpg"] and photo.text == "The new route at the gym"
    reasons = {s.line: s.reason for s in chat.skipped}
    assert reasons[1] == "system message" and reasons[7] == "deleted message"
    assert reasons[6].startswith("media without text")
    assert "day-first" in export.notes[0] or "dmy" in export.notes[0]


def test_whatsapp_android_12h_month_first_group_with_marks_and_a_subject_with_a_colon():
    export = read_whatsapp(EXPORTS / "whatsapp_android_12h_mdy_group.txt")
    chat = export.chats[0]
    assert export.notes[0].startswith("date order mdy")
    assert chat.kind == "group"  # "created group" and "added", whatever the sender count
    assert chat.senders == ["+351 912 345 678", "Ana", "Ben"]  # the number without its direction marks
    by_text = {m.text: m.ts for m in chat.messages}
    assert by_text["Flights are booked for June 14."] == datetime(2024, 3, 12, 9, 17)
    assert by_text["I'll sort the apartment near Ribeira."] == datetime(2024, 3, 12, 12, 5)
    assert by_text["(that was a late one) can't sleep, excited"] == datetime(2024, 3, 13, 0, 30)
    system = [s.text for s in chat.skipped if s.reason == "system message"]
    assert len(system) == 4 and any("changed the subject" in s for s in system)


def test_whatsapp_ios_with_dots_ambiguous_order_media_and_attachments():
    export = read_whatsapp(EXPORTS / "whatsapp_ios_dots.txt")
    chat = export.chats[0]
    assert "assumed" in export.notes[0] and "--date-order" in export.notes[0]
    assert [m.text for m in chat.messages] == [
        "Did you get the tickets for the Nils Frahm concert?",
        "Yes! Row F, seats 12 and 13.",
        "I'm vegetarian now btw, so no steakhouse after",
    ]
    assert chat.messages[0].ts == datetime(2024, 3, 12, 9, 15, 40)
    assert [s.reason for s in chat.skipped] == [
        "system message",
        "media without text (image omitted)",
        "media without text (00000007-PHOTO-2024-03-12-09-17-01.jpg)",
    ]
    month_first = read_whatsapp(EXPORTS / "whatsapp_ios_dots.txt", date_order="mdy")
    assert month_first.chats[0].messages[0].ts == datetime(2024, 12, 3, 9, 15, 40)


def test_whatsapp_date_order_follows_time_order_when_every_date_fits_both():
    # 01/02 then 02/02 then 03/02: day-first keeps them a day apart in order; month-first jumps
    # Jan 2 -> Feb 2 -> Mar 2 (also in order), so add one that only day-first keeps in order.
    text = "\n".join(
        [
            "05/02/2024, 10:00 - A: one",
            "06/02/2024, 10:00 - B: two",
            "07/02/2024, 10:00 - A: three",
            "01/03/2024, 10:00 - B: four",
        ]
    )
    # dmy: Feb 5, 6, 7, Mar 1 (in order); mdy: May 2, Jun 2, Jul 2, Jan 3 (goes back).
    assert parse_whatsapp(text, "t").notes[0].startswith("date order dmy (keeps")


def test_whatsapp_zip_and_title_from_the_file_name(tmp_path):
    archive = tmp_path / "WhatsApp Chat - Porto trip.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("_chat.txt", (EXPORTS / "whatsapp_ios_dots.txt").read_text(encoding="utf-8"))
        z.writestr("00000007-PHOTO-2024-03-12-09-17-01.jpg", b"\xff\xd8")
    chat = read_whatsapp(archive).chats[0]
    assert chat.title == "Porto trip" and chat.chat_id.startswith("whatsapp:c-") and len(chat.messages) == 3
    assert chat.earlier_ids == ["whatsapp:Porto trip"]  # the id versions that named chats by file gave it
    named = tmp_path / "WhatsApp Chat with Ana.txt"
    named.write_text("12/03/2024, 09:16 - Ana: hi\n", encoding="utf-8")
    assert read_whatsapp(named).chats[0].title == "Ana"


def test_a_malformed_whatsapp_file_is_an_error_naming_the_line(tmp_path):
    with pytest.raises(MalformedExport) as bad:
        read_whatsapp(EXPORTS / "whatsapp_malformed.txt")
    assert bad.value.data["line"] == 1 and "line 1" in bad.value.message
    impossible = tmp_path / "x.txt"
    impossible.write_text("12/03/2024, 09:16 - Ana: hi\n13/13/2024, 09:17 - Ben: no such month\n", encoding="utf-8")
    with pytest.raises(MalformedExport) as bad:
        read_whatsapp(impossible)
    assert bad.value.data["line"] == 2
    latin1 = tmp_path / "y.txt"
    latin1.write_bytes("12/03/2024, 09:16 - Ana: hi\n12/03/2024, 09:17 - Ben: caf\xe9\n".encode("latin-1"))
    with pytest.raises(MalformedExport) as bad:
        read_whatsapp(latin1)
    assert bad.value.data["line"] == 2 and "UTF-8" in bad.value.message


def _zip_dir(folder: Path, into: Path, top: str = "") -> Path:
    with zipfile.ZipFile(into, "w") as archive:
        for file in sorted(folder.rglob("*")):
            if file.is_file():
                archive.write(file, top + str(file.relative_to(folder)))
    return into


def test_telegram_account_export_with_entities_replies_forwards_edits_and_service_messages():
    export = read_telegram(EXPORTS / "telegram_account.json")
    assert export.owner == "user1001"  # personal_information says whose export it is
    private, group = export.chats
    assert (private.chat_id, private.kind, group.kind) == ("telegram:2002", "private", "group")
    ana, carla, glaze, forward = private.messages
    assert ana.ts == datetime(2024, 3, 12, 9, 15, 40, tzinfo=timezone.utc) and ana.sender_id == "user2002"
    assert carla.text == "Yes! I finally finished the blue bowl, see https://example.org/bowl"
    assert carla.reply_to == "1" and glaze.edited and forward.forwarded_from == "Studio Barro"
    assert [s.reason for s in private.skipped] == [
        "media without text (photos/photo_1@12-03-2024_09-20-00.jpg)",
        "service message (phone_call)",
    ]
    # An old export without date_unixtime: the local time as written; a deleted account still speaks.
    allergic, deleted = group.messages
    assert allergic.ts == datetime(2024, 3, 10, 18, 2) and deleted.sender == "Deleted Account"
    assert group.skipped[0].reason == "service message (create_group)"


def test_telegram_single_chat_and_errors_name_the_message(tmp_path):
    one = parse_telegram({"name": "Ana", "type": "personal_chat", "id": 7, "messages": [
        {"id": 1, "type": "message", "date": "2024-01-02T03:04:05", "from": "Ana", "text": "hi"}]})  # fmt: skip
    assert one.chats[0].messages[0].text == "hi" and one.owner is None
    with pytest.raises(MalformedExport) as bad:
        parse_telegram({"name": "Ana", "id": 7, "messages": [{"id": 1, "type": "message", "from": "A", "text": "x"}]})
    assert bad.value.data["line"] == 1 and "no date" in bad.value.message and "'Ana'" in bad.value.message
    with pytest.raises(MalformedExport, match="message 2: text is int '42', not a string or a list of parts"):
        parse_telegram({"name": "Ana", "id": 7, "messages": [
            {"id": 1, "type": "message", "date": "2024-01-02T03:04:05", "from": "Ana", "text": "hi"},
            {"id": 2, "type": "message", "date": "2024-01-02T03:05:05", "from": "Ana", "text": 42}]})  # fmt: skip
    broken = tmp_path / "result.json"
    broken.write_text('{"name": "Ana",\n "messages": [\n  {"id": 1,,}\n ]}')
    with pytest.raises(MalformedExport) as bad:
        read_telegram(broken)
    assert bad.value.data["line"] == 3 and "line 3" in bad.value.message


def test_slack_zip_channels_dms_group_dms_threads_markup_and_users(tmp_path):
    export = read_slack(_zip_dir(EXPORTS / "slack", tmp_path / "slack.zip"))
    chats = {c.title: c for c in export.chats}
    assert set(chats) == {"#general", "DM: Ana Silva, Carla Mendes", "Group DM: Ana Silva, Ben Okafor, Carla Mendes"}
    general = chats["#general"]
    assert general.kind == "group" and chats["DM: Ana Silva, Carla Mendes"].kind == "private"
    deploy, reply, tada = general.messages  # two days' files, in time order
    assert deploy.text == (
        "Deploy of the billing service is at 14:00 & @Ben Okafor owns the rollback. Notes in #general and the wiki (https://wiki.example.org/billing)"
    )
    assert reply.reply_to == deploy.message_id and deploy.reply_to is None
    assert reply.sender == "Ben Okafor" and reply.sender_id == "U02BEN"
    assert tada.text == "Rollback was not needed :tada: <3" and tada.edited
    assert [s.reason for s in general.skipped] == [
        "channel_join message",
        "media without text (runbook.pdf)",
        "tombstone message",
    ]
    # A re-zipped export (everything under one folder) reads the same.
    nested = read_slack(_zip_dir(EXPORTS / "slack", tmp_path / "nested.zip", top="Acme Slack export/"))
    assert [len(c.messages) for c in nested.chats] == [len(c.messages) for c in export.chats]
    with pytest.raises(MalformedExport, match="is a .zip"):
        read_slack(EXPORTS / "slack" / "users.json")


def test_discord_guild_channel_and_dm():
    guild = read_discord(EXPORTS / "discord_guild.json").chats[0]
    assert guild.title == "Climbing crew / #trips" and guild.kind == "group"
    ask, answer = guild.messages
    assert ask.text == "Fontainebleau in May? @Ben knows the campsite" and ask.sender == "Ana"
    assert answer.reply_to == ask.message_id and answer.edited
    assert [s.reason for s in guild.skipped] == [
        "system message (GuildMemberJoin)",
        "media without text (topo.png)",
        "system message (ChannelPinnedMessage)",
    ]
    dm = read_discord(EXPORTS / "discord_dm.json").chats[0]
    assert dm.kind == "private" and dm.messages[0].sender == "benok"
    assert dm.messages[0].ts == datetime(2024, 3, 13, 20, 0, tzinfo=timezone.utc)


def test_chatgpt_reads_only_the_branch_shown_last_and_skips_what_is_not_conversation():
    export = read_chatgpt(EXPORTS / "chatgpt_conversations.json")
    assert export.owner == "User"
    chat = export.chats[0]
    assert chat.title == "Sourdough starter help"
    texts = [(m.sender, m.by_assistant, m.text) for m in chat.messages]
    assert texts[0] == (
        "User",
        False,
        "My rye sourdough starter smells like nail polish remover. I feed it once a day at 24C.",
    )  # the edited question, not the first try
    assert [t[0] for t in texts] == ["User", "ChatGPT", "User", "ChatGPT"]
    assert chat.messages[2].attachments == ["file-service://file-abc123"]
    assert chat.messages[3].ts == chat.messages[2].ts  # no create_time: the one before's
    assert [s.reason for s in chat.skipped] == ["system message", "custom instructions", "the model's reasoning"]


def test_claude_export_keeps_text_blocks_and_skips_tool_only_messages(tmp_path):
    archive = tmp_path / "data-2024-03-20.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.write(EXPORTS / "claude_conversations.json", "conversations.json")
        z.writestr("users.json", "[]")
    chat = read_claude(archive).chats[0]
    assert [m.sender for m in chat.messages] == ["User", "Claude", "User"]
    assert chat.messages[1].text == (
        "Cut the long run back to 22 km for two weeks and see a physio.\n\nStrength work for the hips helps too."
    )
    assert chat.messages[0].attachments == ["plan.xlsx"] and chat.messages[2].text.startswith("Thanks")
    assert chat.skipped[0].reason == "no text (strava.csv)"
    with pytest.raises(MalformedExport, match="list of conversations"):
        parse_claude({"conversations": []})


def test_whatsapp_date_order_of_a_chat_every_date_of_which_fits_both_is_the_shorter_one():
    """A US phone's chat of March 1 and 6 (all in order either way): read day-first it ran from
    January 3 to June 3, its two messages of one morning five months apart."""
    nnbsp = "\u202f"
    text = "\n".join(
        [
            f"3/1/24, 10:00{nnbsp}AM - Kevin Brown: Dentist appointment moved to Friday at 3",
            f"3/1/24, 10:02{nnbsp}AM - Jonas: Thanks, I'll drive you",
            f"3/6/24, 6:45{nnbsp}PM - Kevin Brown: My new phone number ends in 4417",
        ]
    )
    export = parse_whatsapp(text, "t")
    assert [m.ts.date().isoformat() for m in export.chats[0].messages] == ["2024-03-01", "2024-03-01", "2024-03-06"]
    assert export.notes[0].startswith("date order mdy (every date fits both; read mdy the chat spans 5 days")
    one_day = "\n".join([f"3/1/24, 10:00{nnbsp}AM - A: hi", f"3/1/24, 10:02{nnbsp}AM - B: hello"])
    assert parse_whatsapp(one_day, "t").notes[0].startswith("date order dmy assumed")
