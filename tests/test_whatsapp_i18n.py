"""WhatsApp exports in the languages people write in: a few lines per language, in the strings the
apps write (memory/channels/whatsapp_locales.py), Android and iOS."""

from __future__ import annotations

from datetime import datetime

import pytest

from agentmemd.memory.channels.whatsapp import parse_whatsapp
from agentmemd.memory.channels.whatsapp_locales import LOCALES
from agentmemd.memory.core.errors import InvalidParams

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)

LRM = "\u200e"

# Per language, an Android export: its header, the encryption notice, a group created, a message,
# media left out, a deleted message. Each is what that language's phone writes.
ANDROID = {
    "en": (
        "14/06/2024, 09:12 - ",
        "Messages and calls are end-to-end encrypted. No one outside of this chat, not even WhatsApp, "
        "can read or listen to them. Tap to learn more.",
        'Ana created group "Trip"',
        "<Media omitted>",
        "This message was deleted",
    ),
    "de": (
        "14.06.24, 09:12 - ",
        "Nachrichten und Anrufe sind Ende-zu-Ende-verschlüsselt. Niemand außerhalb dieses Chats, nicht "
        "einmal WhatsApp, kann sie lesen oder anhören. Tippe, um mehr zu erfahren.",
        "Ana hat die Gruppe „Urlaub“ erstellt",
        "<Medien ausgeschlossen>",
        "Diese Nachricht wurde gelöscht.",
    ),
    "es": (
        "14/6/24, 9:12\u202fa.\u00a0m. - ",
        "Los mensajes y las llamadas están cifrados de extremo a extremo. Nadie fuera de este chat, ni "
        "siquiera WhatsApp, puede leerlos ni escucharlos. Toca para obtener más información.",
        "Ana creó el grupo “Viaje”",
        "<Multimedia omitido>",
        "Se eliminó este mensaje.",
    ),
    "pt": (
        "14/06/2024 09:12 - ",
        "As mensagens e as chamadas são protegidas com a criptografia de ponta a ponta e ficam somente "
        "entre você e os participantes desta conversa.",
        "Ana criou o grupo “Viagem”",
        "<Mídia oculta>",
        "Mensagem apagada",
    ),
    "fr": (
        "14/06/2024 à 09:12 - ",
        "Les messages et les appels sont chiffrés de bout en bout. Aucun tiers, pas même WhatsApp, ne peut "
        "les lire ou les écouter.",
        "Ana a créé le groupe « Voyage »",
        "<Médias omis>",
        "Ce message a été supprimé",
    ),
    "it": (
        "14/06/24, 09:12 - ",
        "I messaggi e le chiamate sono crittografati end-to-end. Nessuno al di fuori di questa chat, "
        "nemmeno WhatsApp, può leggerne o ascoltarne il contenuto.",
        "Ana ha creato il gruppo “Viaggio”",
        "<Media omessi>",
        "Questo messaggio è stato eliminato",
    ),
    "nl": (
        "14-06-2024 09:12 - ",
        "Berichten en gesprekken worden end-to-end versleuteld. Niemand buiten deze chat, zelfs WhatsApp "
        "niet, kan ze lezen of beluisteren.",
        "Ana heeft groep “Reis” aangemaakt",
        "<Media weggelaten>",
        "Dit bericht is verwijderd",
    ),
    "ca": (
        "14/6/24, 9:12 - ",
        "Els missatges i les trucades estan xifrats d'extrem a extrem. Ningú fora d'aquest xat, ni tan sols "
        "WhatsApp, els pot llegir ni escoltar.",
        "Ana ha creat el grup “Viatge”",
        "<Mitjans omesos>",
        "Aquest missatge s'ha suprimit",
    ),
    "pl": (
        "14.06.2024, 09:12 - ",
        "Wiadomości i połączenia są szyfrowane end-to-end. Nikt spoza tego czatu, nawet WhatsApp, nie może "
        "ich odczytać ani odsłuchać.",
        "Ana utworzył(a) grupę „Wyjazd”",
        "<Pominięto multimedia>",
        "Ta wiadomość została usunięta",
    ),
    "tr": (
        "14.06.2024 09:12 - ",
        "Mesajlar ve aramalar uçtan uca şifrelidir. WhatsApp dahil olmak üzere bu sohbetin dışında bulunan "
        "hiç kimse onları okuyamaz ve dinleyemez.",
        "Ana “Gezi” grubunu oluşturdu",
        "<Medya dahil edilmedi>",
        "Bu mesaj silindi",
    ),
    "ru": (
        "14.06.2024, 09:12 - ",
        "Сообщения и звонки защищены сквозным шифрованием. Третьи лица, включая WhatsApp, не могут прочитать "
        "ваши сообщения или прослушать звонки.",
        "Ana создал(-а) группу «Поездка»",
        "<Без медиафайлов>",
        "Данное сообщение удалено",
    ),
    "id": (
        "14/06/24 09.12 - ",
        "Pesan dan panggilan terenkripsi secara end-to-end. Tidak seorang pun di luar chat ini, termasuk "
        "WhatsApp, yang dapat membaca atau mendengarkannya.",
        "Ana membuat grup “Liburan”",
        "<Media tidak disertakan>",
        "Pesan ini telah dihapus",
    ),
}

# Per language, an iPhone's placeholder for a photo left out, its attachment mark, its deleted-message
# notice and its encryption notice (which it writes as a message of the chat, after a direction mark).
IOS = {
    "en": ("image omitted", "attached", "This message was deleted.", "Messages and calls are end-to-end encrypted."),
    "de": ("Bild weggelassen", "Anhang", "Du hast diese Nachricht gelöscht.", ANDROID["de"][1]),
    "es": ("imagen omitida", "adjunto", "Eliminaste este mensaje.", ANDROID["es"][1]),
    "pt": ("imagem ocultada", "anexado", "Você apagou esta mensagem.", ANDROID["pt"][1]),
    "fr": ("image absente", "pièce jointe", "Vous avez supprimé ce message.", ANDROID["fr"][1]),
    "it": ("immagine omessa", "allegato", "Hai eliminato questo messaggio.", ANDROID["it"][1]),
    "nl": ("afbeelding weggelaten", "bijgevoegd", "Je hebt dit bericht verwijderd.", ANDROID["nl"][1]),
    "ca": ("imatge omesa", "adjunt", "Has suprimit aquest missatge.", ANDROID["ca"][1]),
    "pl": ("obraz pominięty", "załączono", "Ta wiadomość została usunięta.", ANDROID["pl"][1]),
    "tr": ("görüntü dahil edilmedi", "eklendi", "Bu mesajı sildiniz.", ANDROID["tr"][1]),
    "ru": ("изображение отсутствует", "прикреплено", "Вы удалили данное сообщение.", ANDROID["ru"][1]),
    "id": ("gambar tidak disertakan", "terlampir", "Anda menghapus pesan ini.", ANDROID["id"][1]),
}


def test_every_language_the_module_knows_is_tested_here():
    assert set(ANDROID) == set(IOS) == {locale.code for locale in LOCALES}


@pytest.mark.parametrize("code", list(ANDROID))
def test_android_export_notices_are_skipped_and_the_language_is_named(code):
    header, encrypted, created, media, deleted = ANDROID[code]
    text = "\n".join(
        header + line
        for line in (encrypted, created, "Ana: Hallo 👋", f"Ben: {media}", f"Ana: {deleted}", "Ben: ✔️ 14:00")
    )
    export = parse_whatsapp(text, "t")
    chat = export.chats[0]
    assert [m.text for m in chat.messages] == ["Hallo 👋", "✔️ 14:00"]
    assert chat.messages[0].ts.date() == datetime(2024, 6, 14).date()
    assert [s.reason for s in chat.skipped] == [
        "system message",
        "system message",
        f"media without text ({media.lower().strip('<>')})",
        "deleted message",
    ]
    assert chat.kind == "group"  # the group was created, though only two have written
    assert export.notes[1] == f"locale {code} (from its system lines)"


@pytest.mark.parametrize("code", list(IOS))
def test_ios_export_notices_are_skipped_and_the_attachment_kept(code):
    image, attached, deleted, encrypted = IOS[code]
    text = "\n".join(
        [
            f"{LRM}[14/06/2024, 09:12:01] Ana: {LRM}{encrypted}",
            "[14/06/2024, 09:12:02] Ana: Hallo",
            f"{LRM}[14/06/2024, 09:12:03] Ben: {LRM}{image}",
            f"{LRM}[14/06/2024, 09:12:04] Ben: {LRM}<{attached}: 00000012-PHOTO-2024-06-14-09-12-04.jpg>",
            f"{LRM}[14/06/2024, 09:12:05] Ana: {LRM}{deleted}",
        ]
    )
    export = parse_whatsapp(text, "t")
    chat = export.chats[0]
    assert [m.text for m in chat.messages] == ["Hallo"]
    assert [s.reason for s in chat.skipped] == [
        "system message",
        f"media without text ({image.lower()})",
        "media without text (00000012-PHOTO-2024-06-14-09-12-04.jpg)",
        "deleted message",
    ]
    assert export.notes[1] == f"locale {code} (from its system lines)"


def test_french_android_header_with_a_after_the_date_is_read():
    # Refused before: "line 1: not a WhatsApp message line".
    export = parse_whatsapp("14/06/2024 à 09:12 - Marie: Bonjour\n14/06/2024 à 21:40 - Paul: Bonsoir", "t")
    assert [(m.sender, m.ts) for m in export.chats[0].messages] == [
        ("Marie", datetime(2024, 6, 14, 9, 12)),
        ("Paul", datetime(2024, 6, 14, 21, 40)),
    ]
    assert export.notes[1] == "locale fr (from its timestamps)"


@pytest.mark.parametrize(
    ("header", "when"),
    [
        ("14/6/24, 9:12\u202fp.\u00a0m. - ", datetime(2024, 6, 14, 21, 12)),  # Spanish 12 h
        ("[14/6/24, 12:05:09\u202fa.\u00a0m.] ", datetime(2024, 6, 14, 0, 5, 9)),  # Spanish iPhone
        ("14.06.24, 9:12 nachm. - ", datetime(2024, 6, 14, 21, 12)),  # older German Android phones
        ("14.06.2024 09:12 ÖS - ", datetime(2024, 6, 14, 21, 12)),  # Turkish 12 h
        ("14.06.2024 ÖÖ 12:30 - ", datetime(2024, 6, 14, 0, 30)),  # the half of the day first
        ("14/06/24 21.12 - ", datetime(2024, 6, 14, 21, 12)),  # Indonesian: a dot in the time
        ("14-06-2024 09:12 - ", datetime(2024, 6, 14, 9, 12)),  # Dutch
        ("[14.06.2024, 09:12:33] ", datetime(2024, 6, 14, 9, 12, 33)),  # Russian iPhone
        ("[14/06/2024 à 09:12:33] ", datetime(2024, 6, 14, 9, 12, 33)),
    ],
)
def test_localised_headers(header, when):
    export = parse_whatsapp(f"{header}Ana: hi\n{header}Ben: 15.06.", "t", date_order="dmy")
    assert [m.ts for m in export.chats[0].messages] == [when, when]


def test_german_group_created_is_a_group_though_two_write():
    text = "14.06.24, 09:12 - Ana hat die Gruppe „Urlaub“ erstellt\n14.06.24, 09:13 - Ana: Hallo\n"
    assert parse_whatsapp(text, "t").chats[0].kind == "group"
    # A subject with a colon cuts the line at it: still a system line, not a person's message.
    text = "14.06.24, 09:12 - Ana hat die Gruppe „Urlaub: Juni“ erstellt\n14.06.24, 09:13 - Ana: Hallo"
    chat = parse_whatsapp(text, "t").chats[0]
    assert chat.senders == ["Ana"] and chat.kind == "group"
    text = '14.06.2024 09:12 - Ali "Tatil: Haziran" grubunu oluşturdu\n14.06.2024 09:13 - Ali: Merhaba'
    chat = parse_whatsapp(text, "t").chats[0]
    assert chat.senders == ["Ali"] and chat.kind == "group"


def test_a_message_that_mentions_a_notice_is_a_message():
    lines = [
        "Ich habe das Foto gelöscht.",
        "Diese Nachricht wurde gelöscht, sagt er",
        "imagen omitida? no la veo",
        "<Medien ausgeschlossen> steht da bei mir",
        "Warten auf diese Nachricht",
        "ha creato il gruppo ieri sera",
    ]
    text = "\n".join(f"14.06.24, 09:{10 + i} - Ana: {line}" for i, line in enumerate(lines))
    chat = parse_whatsapp(text, "t").chats[0]
    assert [m.text for m in chat.messages] == lines and not chat.skipped


def test_edited_waiting_and_captioned_attachments_in_several_languages():
    text = "\n".join(
        [
            "14.06.24, 09:12 - Ana: Stimmt so <Diese Nachricht wurde bearbeitet.>",
            "14.06.24, 09:13 - Ben: Warten auf diese Nachricht. Dies kann etwas dauern.",
            "14.06.24, 09:14 - Ana: IMG-20240614-WA0003.jpg (Datei angehängt)",
            "Der Strand",
            "14.06.24, 09:15 - Ben: Comprovante NF 2871.pdf (arquivo anexado)",
            "14.06.24, 09:16 - Ana: Esperando este mensaje. Esto puede tomar tiempo.",
            "14.06.24, 09:17 - Ben: Eccolo <Questo messaggio è stato modificato>",
        ]
    )
    chat = parse_whatsapp(text, "t").chats[0]
    assert [(m.text, m.edited, m.attachments) for m in chat.messages] == [
        ("Stimmt so", True, []),
        ("Der Strand", False, ["IMG-20240614-WA0003.jpg"]),
        ("Eccolo", True, []),
    ]
    reasons = {s.line: s.reason for s in chat.skipped}
    assert reasons[2].startswith("waiting for this message") and reasons[6].startswith("waiting for this message")
    assert reasons[5] == "media without text (Comprovante NF 2871.pdf)"


def test_a_language_not_known_is_read_and_the_notes_say_notices_may_be_kept():
    text = "\n".join(
        [
            "2024/06/14 9:12 - メッセージと通話はエンドツーエンドで暗号化されています。",
            "2024/06/14 9:13 - 太郎: こんにちは",
            "2024/06/14 9:14 - 太郎: <メディアなし>",
        ]
    )
    export = parse_whatsapp(text, "t")
    assert [s.reason for s in export.chats[0].skipped] == ["system message"]
    assert [m.text for m in export.chats[0].messages] == ["こんにちは", "<メディアなし>"]
    assert export.notes[1].startswith("locale not recognised") and "<メディアなし>" in export.notes[1]


def test_a_file_with_no_notices_says_so_and_a_given_locale_is_used_alone():
    assert parse_whatsapp("14.06.24, 09:12 - Ana: Hallo", "t").notes[1].startswith("locale not detected")
    text = "14.06.24, 09:12 - Ana: Hallo\n14.06.24, 09:13 - Ana: imagen omitida\n14.06.24, 09:14 - Ana: <Medien ausgeschlossen>"
    export = parse_whatsapp(text, "t", locale="de")
    assert export.notes[1] == "locale de (given)"
    assert [m.text for m in export.chats[0].messages] == ["Hallo", "imagen omitida"]  # Spanish not read as German
    with pytest.raises(InvalidParams) as bad:
        parse_whatsapp(text, "t", locale="xx")
    assert bad.value.data == {"field": "locale"} and "'xx'" in bad.value.message


def test_a_phone_that_changed_language_is_read_whole_and_named_by_most_of_its_notices():
    text = "\n".join(
        [
            "14.06.24, 09:12 - Ana: <Media omitted>",
            "14.06.24, 09:13 - Ana: <Medien ausgeschlossen>",
            "14.06.24, 09:14 - Ben: Du hast diese Nachricht gelöscht.",
            "14.06.24, 09:15 - Ben: Hallo",
        ]
    )
    export = parse_whatsapp(text, "t")
    assert [m.text for m in export.chats[0].messages] == ["Hallo"]
    assert export.notes[1] == "locale de (from its system lines)"


def test_missed_calls_and_an_admins_deletion_are_notices_without_the_iphone_mark():
    text = "\n".join(
        [
            "14/06/24 09.12 - Budi: Panggilan suara tak terjawab",
            "14/06/24 09.13 - Budi: Panggilan suara tak terjawab, telepon lagi nanti ya",
            "14/06/24 09.14 - Budi: Anda telah menghapus pesan ini",
            f"{LRM}[14/06/2024, 09:15:00] Ola: {LRM}Nieodebrane poł. głosowe",
            "[14/06/2024, 09:16:00] Ola: This message was deleted by admin Budi.",
        ]
    )
    chat = parse_whatsapp(text, "t").chats[0]
    assert [m.text for m in chat.messages] == ["Panggilan suara tak terjawab, telepon lagi nanti ya"]
    assert [s.reason for s in chat.skipped] == [
        "system message",
        "deleted message",
        "system message",
        "deleted message",
    ]
