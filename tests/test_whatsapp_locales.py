"""WhatsApp exports in twelve languages, Android and iOS, each read as its `.expected.json` says: who wrote
what, in order, the chat's kind, the first message's wall-clock time, and every notice (system line, media
without text, deleted message, "waiting for this message", missed call) skipped rather than stored. The
exports are written from the app's own strings; tests/data/exports/whatsapp/README.md says where each came from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import REPO

from agentmemd.memory.channels.whatsapp import read_whatsapp

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)

CORPUS = REPO / "tests" / "data" / "exports" / "whatsapp"
EXPORTS = sorted(p for p in CORPUS.rglob("*.txt") if p.with_suffix(".expected.json").exists())
MARKS = "\u200e\u200f\u202a\u202c \n"

# Every placeholder the corpus uses, one a line: a message whose whole text is one of these was a notice.
PLACEHOLDERS = set(
    """
<Media omitted>
<Medien ausgeschlossen>
<Multimedia omitido>
<Mídia oculta>
<Médias omis>
<Media omessi>
<Media weggelaten>
<Fitxers multimèdia omesos>
<Pominięto multimedia>
<Medya dahil edilmedi>
<Без медиафайлов>
<Media tidak disertakan>
image omitted
sticker omitted
Bild weggelassen
Sticker weggelassen
imagen omitida
sticker omitido
imagem ocultada
figurinha omitida
image absente
sticker omis
immagine omessa
sticker non incluso
afbeelding weggelaten
sticker weggelaten
Imatge omesa
adhesiu omès
obraz pominięty
pominięto naklejkę
görüntü dahil edilmedi
Çıkartma dahil edilmedi
изображение отсутствует
стикер не добавлен
gambar tidak disertakan
stiker tidak disertakan
This message was deleted
You deleted this message
Diese Nachricht wurde gelöscht
Du hast diese Nachricht gelöscht
Se eliminó este mensaje
Eliminaste este mensaje
Mensagem apagada
Você apagou esta mensagem
Ce message a été supprimé
Vous avez supprimé ce message
Questo messaggio è stato eliminato
Hai eliminato questo messaggio
Dit bericht is verwijderd
U hebt dit bericht verwijderd
Aquest missatge està esborrat
Has esborrat aquest missatge
Aquest missatge s'ha suprimit
Has suprimit aquest missatge
Ta wiadomość została usunięta
Usunąłeś(aś) tę wiadomość
Usunąłeś(-ęłaś) tę wiadomość
Bu mesaj silindi
Bu mesajı sildiniz
Данное сообщение удалено
Вы удалили данное сообщение
Вы удалили это сообщение
Pesan ini telah dihapus
Anda telah menghapus pesan ini
Pesan ini dihapus
Anda menghapus pesan ini
Waiting for this message. This may take a while
Missed voice call
Verpasster Sprachanruf
Llamada de voz perdida
Llamada perdida
Ligação de voz perdida
Chamada de voz perdida
Appel vocal manqué
Chiamata vocale persa
Gemiste spraakoproep
Gemist spraakgesprek
Trucada de veu perduda
Nieodebrane połączenie
Nieodebrane poł. głosowe
Cevapsız sesli arama
Пропущенный аудиозвонок
Panggilan suara tak terjawab
""".strip().splitlines()
)

# What marks an attachment or an edit: the stored text keeps neither.
ATTACHMENT_MARKS = (
    "(file attached)",
    "(Datei angehängt)",
    "(archivo adjunto)",
    "(arquivo anexado)",
    "(fichier joint)",
    "(file allegato)",
    "(bestand bijgevoegd)",
    "(arxiu adjunt)",
    "(załączony plik)",
    "(dosya ekli)",
    "(файл добавлен)",
    "(file terlampir)",
    "-PHOTO-",
    "<This message was edited>",
    "<Diese Nachricht wurde bearbeitet>",
    "<Mensagem editada>",
)


def _first_difference(expected: list[tuple[str, str]], got: list[tuple[str, str]]) -> str:
    """The first message that differs, or that only one side has."""
    for i in range(max(len(expected), len(got))):
        want = expected[i] if i < len(expected) else "nothing"
        have = got[i] if i < len(got) else "nothing"
        if want != have:
            return f"message {i + 1}: expected {want!r}, read {have!r}"
    return "the same messages"


@pytest.mark.parametrize("path", EXPORTS, ids=lambda p: str(p.relative_to(CORPUS)))
def test_export_reads_as_expected(path: Path):
    expected = json.loads(path.with_suffix(".expected.json").read_text(encoding="utf-8"))
    name = path.relative_to(CORPUS)
    export = read_whatsapp(path)
    assert len(export.chats) == 1, f"{name}: {len(export.chats)} chats read"
    chat = export.chats[0]

    want = [(m["sender"], m["text"]) for m in expected["messages"]]
    got = [(m.sender, m.text) for m in chat.messages]
    assert got == want, f"{name}: {_first_difference(want, got)}"
    assert chat.kind == expected["kind"], f"{name}: read as {chat.kind}, is {expected['kind']}"
    assert sorted(chat.senders) == expected["senders"], f"{name}: senders {sorted(chat.senders)}"
    first = chat.messages[0].ts.isoformat(timespec="seconds")
    assert first == expected["first"], f"{name}: first message at {first}, written {expected['first']}"
    skipped = [f"line {s.line}: {s.reason}" for s in chat.skipped]
    assert len(chat.skipped) == expected["notices"], f"{name}: {expected['notices']} notices, skipped {skipped}"
    for m in chat.messages:
        text = m.text.strip(MARKS).rstrip(".")
        assert text not in PLACEHOLDERS, f"{name}: the notice {m.text!r} was stored as {m.sender}'s message"
        assert not any(mark in m.text for mark in ATTACHMENT_MARKS), f"{name}: a marker kept in {m.text!r}"


def test_every_language_and_platform_is_in_the_corpus():
    names = {p.stem for p in EXPORTS}
    for locale in ("en", "de", "es", "pt", "fr", "it", "nl", "ca", "pl", "tr", "ru", "id"):
        assert {f"{locale}_android", f"{locale}_ios"} <= names, locale
    groups = [p for p in EXPORTS if json.loads(p.with_suffix(".expected.json").read_text())["kind"] == "group"]
    assert len(groups) >= 12


def test_two_peoples_same_named_exports_are_two_chats_and_keep_their_own_words():
    ana = read_whatsapp(CORPUS / "same_name" / "ana" / "_chat.txt").chats[0]
    ben = read_whatsapp(CORPUS / "same_name" / "ben" / "_chat.txt").chats[0]
    assert ana.chat_id != ben.chat_id  # both files are `_chat.txt`, both chats are with Carla
    assert any("4711" in m.text for m in ana.messages)
    assert not any("4711" in m.text for m in ben.messages)


def test_a_placeholder_worded_as_another_phone_words_it_is_still_a_notice(tmp_path):
    # Italian iPhones write "sticker omesso" where the app's strings say "sticker non incluso".
    path = tmp_path / "_chat.txt"
    lines = [
        "[14/03/24, 09:10:00] Giulia: Ciao! Stasera pizza?",
        "[14/03/24, 09:11:00] Marco: \u200esticker omesso",
        "[14/03/24, 09:12:00] Marco: \u200eGIF omessa",
        "[14/03/24, 09:13:00] Marco: Sì, alle 20 da Gino",
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    chat = read_whatsapp(path).chats[0]
    assert [m.text for m in chat.messages] == ["Ciao! Stasera pizza?", "Sì, alle 20 da Gino"]
    assert [s.reason for s in chat.skipped] == [
        "media without text (sticker omesso)",
        "media without text (gif omessa)",
    ]
