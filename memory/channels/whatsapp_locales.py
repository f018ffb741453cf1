"""What WhatsApp writes in its chat exports in each language: the data ``whatsapp.py`` reads them by.

An export is written in the phone's language: its system lines ("Ana hat die Gruppe „Urlaub“
erstellt."), the placeholder for media left out ("<Medien ausgeschlossen>", "imagen omitida"), the
notice left where a message was deleted ("Se eliminó este mensaje.") or has not arrived yet, the mark
after an edited message, and some of its timestamps ("14/06/2024 à 09:12", "9:12 p. m.", "09.12").
Each ``WhatsAppLocale`` below holds one language's strings; the parser compiles all of them into
one alternation per kind, so a line is tried once, not once per language, and a chat whose phone
changed language halfway is read whole.

How an entry is written (kept plain so a new language is a copy-and-translate):

- ``…`` stands for any text: a name, a number, a group's subject with its quotes („“ "" «»).
- ``{file}`` stands for a file's name ("IMG-20240614-WA0003.jpg", "Rapport final.pdf").
- Case, runs of spaces (the no-break ones included), a final full stop, and ' against ’ are ignored.
- ``encrypted``: how the encryption notice starts. ``group_events`` and ``events``: words found in a
  system line (only a group has the first kind: creating it, adding, removing, its subject). The
  others (``calls``, ``media``, ``deleted``, ``waiting``) must be the whole message, so "Ich habe
  das Foto gelöscht" stays a message. ``edited``: the mark at the end of an edited message, without its <>.
- ``attached_android``: the words in "IMG-….jpg (file attached)"; ``attached_ios``: the word in
  "<attached: 00000012-PHOTO-….jpg>".
- ``ampm``: a 12-hour clock's words other than AM/PM/a.m. (which every language reads);
  ``connectors``: a word between the date and the time.

Sources. The strings are WhatsApp's own, as its apps write them. The one table taken from the
apps' string files themselves is starkdmi/whats_json (``lib/src/patterns.dart``: the iOS
``Localizable.strings`` and Android ``strings.xml`` values for the encryption notice, deleted
messages, security codes, missed calls, the iPhone's placeholders and both attachment marks, each
named by its key); its repository states no licence, so nothing was copied from it wholesale: it was
read to check, string by string, the entries below (WhatsApp's wording, not its author's work). The
well-kept parsers have no such table: Pustur/whatsapp-chat-parser (MIT) reads only the header and
calls a line without an author a system line, whatever its language (its tolerance for a word
between date and time and for "a. m." is what the header here adopts); lucasrodes/whatstk (GPL-3.0)
keeps header formats only; joweich/chat-miner (MIT) infers the header and keeps no strings.
mlomb/chat-analytics (``pipeline/parse/parsers/WhatsApp.ts``, AGPL-3.0) was only compared with.
Newer app versions reword some strings ("<Medien ausgeschlossen>", "<Mídia oculta>", "<Médias
omis>", "Mensagem apagada"); those come from exports published in public repositories, and where
versions differ each wording is kept. Not in the apps' tables, so least attested: the group events
(other than English) and the "waiting for this message" and edited marks of ca, pl, tr, ru and id;
an export that shows one wrong is a one-line fix here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class WhatsAppLocale:
    code: str
    name: str
    encrypted: tuple[str, ...]
    group_events: tuple[str, ...]
    events: tuple[str, ...]
    calls: tuple[str, ...]
    media: tuple[str, ...]
    attached_android: tuple[str, ...]
    attached_ios: tuple[str, ...]
    deleted: tuple[str, ...]
    waiting: tuple[str, ...]
    edited: tuple[str, ...]
    ampm: tuple[tuple[str, str], ...] = ()
    connectors: tuple[str, ...] = ()


ENGLISH = WhatsAppLocale(
    code="en",
    name="English",
    encrypted=(
        "Messages and calls are end-to-end encrypted",
        "Messages to this group are now",
        "Messages to this chat are now",
        "Messages to this chat and calls are now",
        "Messages you send to this chat and calls are now",
        "Messages you send to this group are now",
    ),
    group_events=(
        "created group",
        "created the group",
        "created this group",
        "added",
        "removed",
        "left",
        "changed the subject",
        "changed the group",
        "changed this group's",
        "joined using this group's invite link",
        "now an admin",
    ),
    events=(
        "security code changed",
        "security code with … changed",
        "changed their phone number",
        "disappearing messages",
        "updated the message timer",
        "pinned a message",
    ),
    calls=("Missed voice call", "Missed video call", "Missed group voice call", "Missed group video call"),
    media=(
        "<Media omitted>",
        "image omitted",
        "video omitted",
        "audio omitted",
        "sticker omitted",
        "GIF omitted",
        "document omitted",
        "{file} document omitted",
        "{file} … document omitted",
        "Contact card omitted",
        "null",
    ),
    attached_android=("file attached",),
    attached_ios=("attached",),
    deleted=(
        "This message was deleted",
        "You deleted this message",
        "This message was deleted by an admin",
        "This message was deleted by admin …",
        "You deleted this message as admin",
    ),
    waiting=("Waiting for this message. …",),
    edited=("This message was edited",),
)

GERMAN = WhatsAppLocale(
    code="de",
    name="Deutsch",
    encrypted=(
        "Nachrichten und Anrufe sind Ende-zu-Ende-verschlüsselt",
        "Deine Nachrichten und Anrufe werden automatisch mit Ende-zu-Ende-Verschlüsselung geschützt",
        "Nachrichten an diese Gruppe sind jetzt mit Ende-zu-Ende-Verschlüsselung geschützt",
    ),
    group_events=(
        "hat die Gruppe … erstellt",
        "hast die Gruppe … erstellt",
        "hat diese Gruppe erstellt",
        "hat … hinzugefügt",
        "hast … hinzugefügt",
        "wurdest hinzugefügt",
        "hat … entfernt",
        "hast … entfernt",
        "hat die Gruppe verlassen",
        "hast die Gruppe verlassen",
        "hat den Betreff",
        "hast den Betreff",
        "hat das Gruppenbild",
        "hast das Gruppenbild",
        "hat die Gruppenbeschreibung",
        "hast die Gruppenbeschreibung",
        "Einladungslink",
        "bist jetzt Admin",
    ),
    events=(
        "Sicherheitsnummer",
        "hat seine Telefonnummer",
        "selbstlöschende Nachrichten",
        "hat eine Nachricht angeheftet",
    ),
    calls=("Verpasster Sprachanruf", "Verpasster Videoanruf"),
    media=(
        "<Medien ausgeschlossen>",
        "<Medien weggelassen>",
        "Bild weggelassen",
        "Video weggelassen",
        "Audio weggelassen",
        "Sticker weggelassen",
        "GIF weggelassen",
        "Dokument weggelassen",
        "{file} Dokument weggelassen",
        "{file} … Dokument weggelassen",
        "Kontaktkarte ausgelassen",
    ),
    attached_android=("Datei angehängt",),
    attached_ios=("Anhang", "angehängt"),
    deleted=("Diese Nachricht wurde gelöscht", "Du hast diese Nachricht gelöscht"),
    waiting=("Warten auf diese Nachricht. …",),
    edited=("Diese Nachricht wurde bearbeitet",),
    # Older Android phones wrote the German 12-hour clock so; newer ones write AM/PM.
    ampm=(("vorm.", "am"), ("nachm.", "pm")),
)

SPANISH = WhatsAppLocale(
    code="es",
    name="Español",
    encrypted=(
        "Los mensajes y las llamadas están cifrados de extremo a extremo",
        "Tus mensajes y llamadas ahora están protegidos con cifrado de extremo a extremo",
        "Los mensajes que envías a este grupo ahora están protegidos",
    ),
    group_events=(
        "creó el grupo",
        "Creaste el grupo",
        "creó este grupo",
        "añadió a",
        "Añadiste a",
        "te añadió",
        "eliminó a",
        "Eliminaste a",
        "te eliminó",
        "salió del grupo",
        "Saliste del grupo",
        "cambió el asunto",
        "cambiaste el asunto",
        "cambió el nombre del grupo",
        "cambió el ícono de este grupo",
        "cambió el icono de este grupo",
        "cambió la descripción del grupo",
        "enlace de invitación de este grupo",
        "Ahora eres admin",
    ),
    events=(
        "código de seguridad con",
        "cambió su número de teléfono",
        "mensajes temporales",
        "fijó un mensaje",
    ),
    calls=("Llamada perdida", "Llamada de voz perdida", "Videollamada perdida"),
    media=(
        "<Multimedia omitido>",
        "<Archivo omitido>",
        "imagen omitida",
        "video omitido",
        "audio omitido",
        "sticker omitido",
        "GIF omitido",
        "documento omitido",
        "{file} documento omitido",
        "{file} … documento omitido",
        "Tarjeta de contacto omitida",
    ),
    attached_android=("archivo adjunto", "archivo adjuntado"),
    attached_ios=("adjunto",),
    deleted=("Se eliminó este mensaje", "Eliminaste este mensaje", "Este mensaje fue eliminado"),
    waiting=("Esperando este mensaje. …", "Esperando el mensaje. …"),
    edited=("Se editó este mensaje",),
    ampm=(("a. m.", "am"), ("p. m.", "pm")),
)

PORTUGUESE = WhatsAppLocale(
    code="pt",
    name="Português",
    encrypted=(
        "As mensagens e as chamadas são protegidas com a criptografia de ponta a ponta",
        "As mensagens e ligações são protegidas com a criptografia de ponta a ponta",
        "As mensagens e chamadas são protegidas com a criptografia de ponta a ponta",
        "As mensagens e chamadas são encriptadas ponto a ponto",
        "Suas chamadas e mensagens estão seguras com criptografia de ponta-a-ponta",
        "As mensagens deste grupo agora estão protegidas",
    ),
    group_events=(
        "criou o grupo",
        "criou este grupo",
        "adicionou",
        "removeu",
        "saiu",
        "mudou o assunto",
        "alterou o assunto",
        "mudou o nome do grupo",
        "mudou o nome de",
        "mudou a imagem deste grupo",
        "alterou a imagem deste grupo",
        "mudou a descrição do grupo",
        "alterou a descrição do grupo",
        "link de convite deste grupo",
        "Agora você é admin",
    ),
    events=(
        "código de segurança com",
        "código de segurança partilhado com",
        "mudou seu número de telefone",
        "mensagens temporárias",
        "fixou uma mensagem",
    ),
    calls=(
        "Chamada de voz perdida",
        "Videochamada perdida",
        "Chamada de vídeo perdida",
        "Ligação de voz perdida",
        "Ligação de vídeo perdida",
    ),
    media=(
        "<Mídia oculta>",
        "<Arquivo de mídia oculto>",
        "<Mídia omitida>",
        "<Ficheiro não revelado>",
        "imagem ocultada",
        "imagem não revelada",
        "vídeo omitido",
        "vídeo ocultado",
        "vídeo não revelado",
        "áudio ocultado",
        "ficheiro de áudio não revelado",
        "figurinha omitida",
        "sticker não revelado",
        "GIF omitido",
        "GIF não revelada",
        "documento omitido",
        "documento não revelado",
        "{file} documento omitido",
        "{file} … documento omitido",
        "Cartão do contato omitido",
        "Contacto não revelado",
    ),
    attached_android=("arquivo anexado", "ficheiro anexado"),
    attached_ios=("anexado", "anexo"),
    deleted=(
        "Mensagem apagada",
        "Esta mensagem foi apagada",
        "Esta mensagem foi apagada pelo remetente",
        "Você apagou esta mensagem",
        "Apagou esta mensagem",
    ),
    waiting=("Aguardando mensagem. …", "Aguardando esta mensagem. …", "A aguardar esta mensagem. …"),
    edited=("Mensagem editada",),
)

FRENCH = WhatsAppLocale(
    code="fr",
    name="Français",
    encrypted=(
        "Les messages et les appels sont chiffrés de bout en bout",
        "Vos messages et vos appels sont protégés avec le chiffrement de bout en bout",
        "Les messages envoyés dans ce groupe sont désormais protégés",
    ),
    group_events=(
        "a créé le groupe",
        "avez créé le groupe",
        "a créé ce groupe",
        "a ajouté",
        "avez ajouté",
        "vous a ajouté",
        "a retiré",
        "avez retiré",
        "vous a retiré",
        "est parti",
        "est partie",
        "est parti(e)",
        "a quitté le groupe",
        "a modifié le sujet",
        "a changé le sujet",
        "avez changé le sujet",
        "a changé l'icône de ce groupe",
        "a modifié l'icône de ce groupe",
        "a changé la description du groupe",
        "a modifié la description du groupe",
        "lien d'invitation de ce groupe",
        "êtes désormais admin",
    ),
    events=(
        "code de sécurité avec",
        "a changé de numéro",
        "messages éphémères",
        "a épinglé un message",
    ),
    calls=("Appel vocal manqué", "Appel vidéo manqué"),
    media=(
        "<Médias omis>",
        "<Fichier omis>",
        "image absente",
        "vidéo absente",
        "audio omis",
        "sticker omis",
        "GIF retiré",
        "document manquant",
        "{file} document manquant",
        "{file} … document manquant",
        "Fiche contact manquante",
    ),
    attached_android=("fichier joint",),
    attached_ios=("pièce jointe",),
    deleted=("Ce message a été supprimé", "Vous avez supprimé ce message"),
    waiting=("En attente de ce message. …",),
    edited=("Ce message a été modifié",),
    connectors=("à",),
)

ITALIAN = WhatsAppLocale(
    code="it",
    name="Italiano",
    encrypted=(
        "I messaggi e le chiamate sono crittografati end-to-end",
        "I tuoi messaggi e le tue chiamate sono protetti con la crittografia end-to-end",
        "I messaggi inviati a questo gruppo sono ora protetti",
    ),
    group_events=(
        "ha creato il gruppo",
        "Hai creato il gruppo",
        "ha creato questo gruppo",
        "ha aggiunto",
        "Hai aggiunto",
        "ti ha aggiunto",
        "ha rimosso",
        "Hai rimosso",
        "è uscito",
        "è uscita",
        "sei uscito",
        "ha cambiato l'oggetto",
        "ha modificato l'oggetto",
        "ha cambiato l'immagine di questo gruppo",
        "ha modificato la descrizione del gruppo",
        "link d'invito al gruppo",
        "link di invito di questo gruppo",
        "Ora sei un amministratore",
    ),
    events=(
        "codice di sicurezza con",
        "ha cambiato numero di telefono",
        "messaggi effimeri",
        "ha fissato un messaggio",
    ),
    calls=("Chiamata vocale persa", "Videochiamata persa"),
    media=(
        "<Media omessi>",
        "<Media omesso>",
        "immagine omessa",
        "video omesso",
        "audio omesso",
        "sticker non incluso",
        "GIF esclusa",
        "documento omesso",
        "{file} documento omesso",
        "{file} … documento omesso",
        "Scheda contatto omessa",
    ),
    attached_android=("file allegato",),
    attached_ios=("allegato",),
    deleted=("Questo messaggio è stato eliminato", "Hai eliminato questo messaggio"),
    waiting=("In attesa del messaggio. …", "In attesa di questo messaggio. …"),
    edited=("Questo messaggio è stato modificato",),
)

DUTCH = WhatsAppLocale(
    code="nl",
    name="Nederlands",
    encrypted=(
        "Berichten en gesprekken worden end-to-end versleuteld",
        "Berichten en oproepen zijn end-to-end versleuteld",
        "Uw oproepen en berichten zijn beveiligd met end-to-end encryptie",
        "Berichten die naar deze groep worden verzonden, zijn nu beveiligd",
    ),
    group_events=(
        "heeft groep … aangemaakt",
        "hebt groep … aangemaakt",
        "heeft deze groep aangemaakt",
        "heeft … toegevoegd",
        "hebt … toegevoegd",
        "heeft je toegevoegd",
        "heeft … verwijderd",
        "hebt … verwijderd",
        "heeft de groep verlaten",
        "hebt de groep verlaten",
        "heeft de onderwerpnaam",
        "heeft het onderwerp",
        "heeft het groepsicoon",
        "heeft de groepsafbeelding",
        "heeft de groepsbeschrijving",
        "uitnodigingslink van deze groep",
        "bent nu beheerder",
    ),
    events=(
        "beveiligingscode",
        "heeft zijn telefoonnummer gewijzigd",
        "verdwijnende berichten",
        "heeft een bericht vastgezet",
    ),
    calls=("Gemist spraakgesprek", "Gemiste spraakoproep", "Gemist videogesprek", "Gemiste video-oproep"),
    media=(
        "<Media weggelaten>",
        "afbeelding weggelaten",
        "video weggelaten",
        "audio weggelaten",
        "sticker weggelaten",
        "GIF weggelaten",
        "document weggelaten",
        "{file} document weggelaten",
        "{file} … document weggelaten",
        "Visitekaartje weggelaten",
    ),
    attached_android=("bestand bijgevoegd",),
    attached_ios=("bijgevoegd",),
    deleted=("Dit bericht is verwijderd", "Je hebt dit bericht verwijderd", "U hebt dit bericht verwijderd"),
    waiting=("Wachten op dit bericht. …",),
    edited=("Dit bericht is bewerkt",),
)

CATALAN = WhatsAppLocale(
    code="ca",
    name="Català",
    encrypted=(
        "Els missatges i les trucades estan xifrats d'extrem a extrem",
        "Els vostres missatges i trucades estan assegurades amb una encriptació d'extrem a extrem",
    ),
    group_events=(
        "ha creat el grup",
        "Has creat el grup",
        "ha creat aquest grup",
        "ha afegit",
        "Has afegit",
        "t'ha afegit",
        "ha suprimit",
        "ha eliminat",
        "ha sortit",
        "Has sortit",
        "ha canviat l'assumpte",
        "ha canviat el tema",
        "ha canviat la icona d'aquest grup",
        "ha canviat la descripció del grup",
        "enllaç d'invitació",
        "Ara ets administrador",
    ),
    events=(
        "codi de seguretat amb",
        "missatges temporals",
        "ha fixat un missatge",
    ),
    calls=("Trucada de veu perduda", "Videotrucada perduda", "Trucada de vídeo perduda"),
    media=(
        "<Mitjans omesos>",
        "<fitxers multimèdia omesos>",
        "Imatge omesa",
        "vídeo omès",
        "Àudio omès",
        "adhesiu omès",
        "GIF omès",
        "Document omès",
        "{file} Document omès",
        "{file} … Document omès",
        "Targeta de contacte omesa",
    ),
    attached_android=("arxiu adjunt",),
    attached_ios=("adjunt",),
    deleted=(
        "Aquest missatge s'ha suprimit",
        "Aquest missatge està esborrat",
        "Has suprimit aquest missatge",
        "Has esborrat aquest missatge",
    ),
    waiting=("S'està esperant aquest missatge. …", "Esperant aquest missatge. …"),
    edited=("S'ha editat aquest missatge", "Missatge editat"),
    ampm=(("a. m.", "am"), ("p. m.", "pm")),
)

POLISH = WhatsAppLocale(
    code="pl",
    name="Polski",
    encrypted=(
        "Wiadomości i połączenia są w pełni zaszyfrowane",
        "Wiadomości i połączenia są szyfrowane end-to-end",
        "Twoje wiadomości oraz połączenia są zabezpieczone przez pełne szyfrowanie",
    ),
    group_events=(
        "utworzył(a) grupę",
        "utworzył grupę",
        "utworzyła grupę",
        "Utworzono grupę",
        "utworzyłeś(-aś) grupę",
        "dodał(a)",
        "dodał",
        "dodała",
        "Dodano",
        "usunął(-ęła)",
        "usunął",
        "usunęła",
        "wyszedł(-ła)",
        "wyszedł",
        "wyszła",
        "opuścił(a) grupę",
        "zmienił(a) temat",
        "zmienił(a) ikonę tej grupy",
        "zmienił(a) opis grupy",
        "linku z zaproszeniem",
        "Jesteś teraz administratorem",
    ),
    events=(
        "kod zabezpieczeń z użytkownikiem",
        "znikające wiadomości",
        "przypiął wiadomość",
    ),
    calls=(
        "Nieodebrane poł. głosowe",
        "Nieodebrane poł. wideo",
        "Nieodebrane poł",
        "Nieodebrane połączenie",
    ),
    media=(
        "<pliki pominięto>",
        "<Media pominięte>",
        "<Pominięto multimedia>",
        "obraz pominięty",
        "wideo pominięte",
        "audio pominięte",
        "pominięto naklejkę",
        "Plik GIF pominięty",
        "dokument pominięty",
        "{file} dokument pominięty",
        "{file} … dokument pominięty",
        "Pominięta wizytówka kontaktu",
    ),
    attached_android=("załączony plik",),
    attached_ios=("załączono",),
    deleted=(
        "Ta wiadomość została usunięta",
        "Usunąłeś(-ęłaś) tę wiadomość",
        "Usunąłeś(aś) tę wiadomość",
    ),
    waiting=("Oczekiwanie na tę wiadomość. …", "Oczekiwanie na wiadomość. …"),
    edited=("Ta wiadomość została edytowana", "Wiadomość edytowana"),
)

TURKISH = WhatsAppLocale(
    code="tr",
    name="Türkçe",
    encrypted=(
        "Mesajlar ve aramalar uçtan uca şifrelidir",
        "Mesajlarınız artık uçtan uca şifreleme ile korunmaktadır",
        "Bu gruba gönderilen mesajlar artık uçtan uca şifreleme ile korunmaktadır",
    ),
    group_events=(
        "grubunu oluşturdu",
        "grubunu oluşturdunuz",
        "bu grubu oluşturdu",
        "ekledi",
        "eklediniz",
        "sizi ekledi",
        "çıkardı",
        "çıkardınız",
        "ayrıldı",
        "ayrıldınız",
        "konuyu",
        "grup konusunu",
        "bu grubun simgesini değiştirdi",
        "grup açıklamasını değiştirdi",
        "davet bağlantısını kullanarak katıldı",
        "Artık yöneticisiniz",
    ),
    events=(
        "güvenlik kodu",
        "güvenlik kodunuz",
        "telefon numarasını değiştirdi",
        "süreli mesajlar",
        "bir mesajı sabitledi",
    ),
    calls=("Cevapsız sesli arama", "Cevapsız görüntülü arama"),
    media=(
        "<Medya dahil edilmedi>",
        "<Medya atlanmış>",
        "görüntü dahil edilmedi",
        "video dahil edilmedi",
        "ses dahil edilmedi",
        "Çıkartma dahil edilmedi",
        "GIF dahil edilmedi",
        "belge dahil edilmedi",
        "{file} belge dahil edilmedi",
        "{file} … belge dahil edilmedi",
        "Kişi kartı dahil edilmedi",
    ),
    attached_android=("dosya ekli",),
    attached_ios=("eklendi",),
    deleted=("Bu mesaj silindi", "Bu mesajı sildiniz"),
    waiting=("Bu mesaj bekleniyor. …",),
    edited=("Bu mesaj düzenlendi",),
    ampm=(("ÖÖ", "am"), ("ÖS", "pm")),
)

RUSSIAN = WhatsAppLocale(
    code="ru",
    name="Русский",
    encrypted=(
        "Сообщения и звонки защищены сквозным шифрованием",
        "Ваши сообщения и звонки защищены сквозным шифрованием",
        "Сообщения в этой группе теперь защищены сквозным шифрованием",
    ),
    group_events=(
        "создал(-а) группу",
        "создал группу",
        "создала группу",
        "Вы создали группу",
        "добавил(-а)",
        "добавил",
        "добавила",
        "Вы добавили",
        "удалил(-а)",
        "удалил",
        "удалила",
        "Вы удалили",
        "вышел(-ла)",
        "вышел",
        "вышла",
        "Вы вышли",
        "изменил(-а) тему",
        "изменил тему",
        "изменила тему",
        "изменил(-а) изображение группы",
        "изменил(-а) описание группы",
        "по ссылке-приглашению",
        "Теперь вы администратор",
    ),
    events=(
        "код безопасности",
        "изменил(-а) номер телефона",
        "исчезающие сообщения",
        "закрепил(-а) сообщение",
    ),
    calls=("Пропущенный аудиозвонок", "Пропущенный видеозвонок"),
    media=(
        "<Без медиафайлов>",
        "<Файл пропущен>",
        "изображение отсутствует",
        "видео отсутствует",
        "аудиофайл отсутствует",
        "стикер не добавлен",
        "GIF отсутствует",
        "документ отсутствует",
        "{file} документ отсутствует",
        "{file} … документ отсутствует",
        "Карточка контакта отсутствует",
    ),
    attached_android=("файл добавлен",),
    attached_ios=("прикреплено",),
    deleted=(
        "Данное сообщение удалено",
        "Вы удалили данное сообщение",
        "Вы удалили это сообщение",
    ),
    waiting=("Ожидание сообщения. …", "Ожидаем это сообщение. …"),
    edited=("Сообщение изменено",),
)

INDONESIAN = WhatsAppLocale(
    code="id",
    name="Bahasa Indonesia",
    encrypted=(
        "Pesan dan panggilan terenkripsi secara end-to-end",
        "Pesan-pesan dan panggilan Anda diamankan dengan enkripsi end-to-end",
        "Pesan yang dikirim ke grup ini sekarang diamankan",
        "Pesan yang dikirim ke grup ini kini diamankan",
    ),
    group_events=(
        "membuat grup",
        "Anda membuat grup",
        "membuat grup ini",
        "menambahkan",
        "mengeluarkan",
        "keluar",
        "mengubah subjek",
        "mengubah nama grup",
        "mengubah ikon grup ini",
        "mengubah deskripsi grup",
        "tautan undangan grup ini",
        "Anda sekarang admin",
    ),
    events=(
        "Kode keamanan Anda dengan",
        "mengubah nomor teleponnya",
        "pesan sementara",
        "menyematkan pesan",
    ),
    calls=("Panggilan suara tak terjawab", "Panggilan video tak terjawab"),
    media=(
        "<Media tidak disertakan>",
        "gambar tidak disertakan",
        "video tidak disertakan",
        "audio tidak disertakan",
        "stiker tidak disertakan",
        "GIF tidak disertakan",
        "dokumen tidak disertakan",
        "{file} dokumen tidak disertakan",
        "{file} … dokumen tidak disertakan",
        "Kartu kontak tidak disertakan",
    ),
    attached_android=("file terlampir",),
    attached_ios=("terlampir",),
    deleted=(
        "Pesan ini telah dihapus",
        "Pesan ini dihapus",
        "Anda menghapus pesan ini",
        "Anda telah menghapus pesan ini",
    ),
    waiting=("Menunggu pesan ini. …",),
    edited=("Pesan ini telah diedit", "Pesan ini diedit"),
)

# The order ties are broken in when two languages share every string a file has.
LOCALES: tuple[WhatsAppLocale, ...] = (
    ENGLISH,
    GERMAN,
    SPANISH,
    PORTUGUESE,
    FRENCH,
    ITALIAN,
    DUTCH,
    CATALAN,
    POLISH,
    TURKISH,
    RUSSIAN,
    INDONESIAN,
)
BY_CODE: dict[str, WhatsAppLocale] = {locale.code: locale for locale in LOCALES}
