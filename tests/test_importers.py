"""Chat-export parsers on hand-made files with the quirks real exports have (tests/data/exports)."""

from __future__ import annotations

import zipfile
from datetime import datetime
from pathlib import Path

import pytest

from agentmemd.memory.channels.whatsapp import parse_whatsapp, read_whatsapp
from agentmemd.memory.core.errors import MalformedExport

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
    assert chat.title == "Porto trip" and chat.chat_id == "whatsapp:Porto trip" and len(chat.messages) == 3
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
