"""Secrets kept out unless asked: 50+ secrets said in chats in five languages, through a chat import
and the user's own conversations, observed and indexed as episodes. No pack for an unrelated
question carries one; a question asking for one kind gets that kind and no other; no chat's
audience ever gets one."""

from __future__ import annotations

import json
import re

import pytest
from conftest import template_workspace

from agentmemd.memory.safety.secrets import asked_kinds, kinds_in, mask

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)

CARDS = ["4111 1111 1111 1111", "5500 0000 0000 0004", "3400 000000 00009", "6011-0000-0000-0004",
         "4012 8888 8888 1881", "5105 1051 0510 5100", "3782 822463 10005", "4242 4242 4242 4242",
         "5555 5555 5555 4444", "3566 0020 2036 0505"]  # fmt: skip
IBANS = ["ES91 2100 0418 4502 0005 1332", "DE89 3704 0044 0532 0130 00", "FR14 2004 1010 0505 0001 3M02 606",
         "IT60 X054 2811 1010 0000 0123 456", "NL91 ABNA 0417 1643 00", "PT50 0002 0123 1234 5678 9015 4"]  # fmt: skip
MARCOS_IBAN = "BE68 5390 0754 7034"  # sent by Marco in his chat (the told fixture)
# (language, what was said, the secret's value, its kind)
SAID = [
    ("en", "ok my Anthropic key for the bot is sk-ant-api03-Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LzXcVbNm-_q1w2", "sk-ant-api03-Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LzXcVbNm-_q1w2", "credential"),
    ("en", "AWS access key id AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE", "credential"),
    ("en", "and the aws secret access key: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "credential"),
    ("en", "github token ghp_R2d2C3p0Bb8Yoda7Luke6Leia5Han4Chewie9", "ghp_R2d2C3p0Bb8Yoda7Luke6Leia5Han4Chewie9", "credential"),
    ("en", "the wifi password is tangerine-47", "tangerine-47", "password"),
    ("en", "my bank password is Hunter2Hunter2!", "Hunter2Hunter2!", "password"),
    ("en", "SSN 123-45-6789 for the tax form", "123-45-6789", "national_id"),
    ("en", "passport number K7654321, expires 2031", "K7654321", "passport"),
    ("en", "dinner, maybe pasta tonight", None, None),
    ("en", f"spare card {CARDS[1]} exp 09/28 cvv 321", CARDS[1], "card_number"),
    ("en", f"main visa {CARDS[0]}", CARDS[0], "card_number"),
    ("en", f"IBAN for rent: {IBANS[0]}", IBANS[0], "iban"),
    ("es", "la contraseña del wifi es Naranja2024", "Naranja2024", "password"),
    ("es", f"mi tarjeta es la {CARDS[2]}", CARDS[2], "card_number"),
    ("es", "mi DNI es 48291736Q", "48291736Q", "national_id"),
    ("es", "el NIE de Marco: X1234567L", "X1234567L", "national_id"),
    ("es", f"la cuenta para el alquiler: {IBANS[1]}", IBANS[1], "iban"),
    ("es", "el número de pasaporte es PAB123456", "PAB123456", "passport"),
    ("es", "la clave del banco es Sol-y-Sombra-99", "Sol-y-Sombra-99", "password"),
    ("es", f"tarjeta de empresa {CARDS[3]}", CARDS[3], "card_number"),
    ("es", "mañana quedamos para cenar paella", None, None),
    ("es", "clave de api de google AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW", "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW", "credential"),
    ("de", "Das WLAN-Passwort ist Sommerregen88", "Sommerregen88", "password"),
    ("de", f"Meine Kreditkarte: {CARDS[4]}", CARDS[4], "card_number"),
    ("de", f"Überweis bitte an {IBANS[2]}", IBANS[2], "iban"),
    ("de", "Reisepass Nummer C01X00T47", "C01X00T47", "passport"),
    ("de", "Steuer-ID 12 345 678 901", "12 345 678 901", "national_id"),
    ("de", "Das Kennwort fürs Büro ist Bärenhunger7", "Bärenhunger7", "password"),
    ("de", f"Firmenkarte {CARDS[5]}", CARDS[5], "card_number"),
    ("de", "Slack token xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "credential"),
    ("de", "Wir grillen am Samstag im Garten", None, None),
    ("de", "Das Passwort lautet Bergsee-77.", "Bergsee-77", "password"),
    ("de", "Das WLAN-Passwort im Ferienhaus lautet Seeblick-2024.", "Seeblick-2024", "password"),
    ("de", "das wlan passwort heißt sonnenblume12", "sonnenblume12", "password"),
    ("nl", "het wachtwoord van de wifi luidt Fietspad88", "Fietspad88", "password"),
    ("en", "the wifi password's Tangerine42, don't share it", "Tangerine42", "password"),
    ("de", "Die Adresse lautet Hauptstraße 5", None, None),
    ("fr", "le mot de passe du wifi est Croissant77", "Croissant77", "password"),
    ("fr", f"ma carte bancaire {CARDS[6]}", CARDS[6], "card_number"),
    ("fr", f"mon IBAN {IBANS[3]}", IBANS[3], "iban"),
    ("fr", "numéro de passeport 18AV12345", "18AV12345", "passport"),
    ("fr", "numéro de sécurité sociale 1 85 05 78 006 084 36", "1 85 05 78 006 084 36", "national_id"),
    ("fr", "mdp du compte: Baguette!2024", "Baguette!2024", "password"),
    ("fr", f"la carte de Paul {CARDS[7]}", CARDS[7], "card_number"),
    ("fr", "clé stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc", "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "credential"),
    ("fr", "on se voit au marché dimanche", None, None),
    ("it", "la password del wifi è Pizzaiolo55", "Pizzaiolo55", "password"),
    ("it", f"la mia carta di credito {CARDS[8]}", CARDS[8], "card_number"),
    ("it", f"conto per la caparra {IBANS[4]}", IBANS[4], "iban"),
    ("it", "il mio codice fiscale è RSSMRA85T10A562S", "RSSMRA85T10A562S", "national_id"),
    ("it", "numero del passaporto YA1234567", "YA1234567", "passport"),
    ("it", f"carta aziendale {CARDS[9]}", CARDS[9], "card_number"),
    ("it", "la password della banca è Gelato-Limone-3", "Gelato-Limone-3", "password"),
    ("it", f"il conto di mia madre {IBANS[5]}", IBANS[5], "iban"),
    ("it", "chiave openai sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78St90", "sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78St90", "credential"),
    ("it", "PIN del bancomat: 58213", "58213", "password"),
    ("en", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ", "credential"),
    ("en", "how about Mia's birthday gift, a book?", None, None),
    ("es", "el PIN del móvil es 7391", "7391", "password"),
    ("de", "Personalausweisnummer 1234 5678 901", "1234 5678 901", "national_id"),
    ("fr", "jeton gitlab glpat-Ab3De6Gh9Jk2Mn5Pq8St", "glpat-Ab3De6Gh9Jk2Mn5Pq8St", "credential"),
    ("it", "SSN del collega americano 219-09-9999", "219-09-9999", "national_id"),
    ("en", "I set the router password to Sommer2024! last night", "Sommer2024!", "password"),
    ("de", "Hab das WLAN-Passwort Kaffee4Zwei gesetzt", "Kaffee4Zwei", "password"),
    ("en", "remind me to reset the password tomorrow, the 2026 one expired", None, None),
    ("en", "the new github token github_pat_11AB7CDEF0aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789_AbCdEfGhIjKlMnOpQrStUvWxYz01234567", "github_pat_11AB7CDEF0aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789_AbCdEfGhIjKlMnOpQrStUvWxYz01234567", "credential"),
    ("en", "stripe test key for staging sk_test_51Hq2c8LkdjfY7sPq0vXn3RtQ", "sk_test_51Hq2c8LkdjfY7sPq0vXn3RtQ", "credential"),
    ("en", "Your verification code is 482913", "482913", "password"),
    ("en", "PIN 6612 for the new card", "6612", "password"),
    ("en", "CVV 731", "731", "card_number"),
    ("en", "The kids' tablet IMEI is 490154203237518", None, None),
    ("en", "My order 4532015112830366 was shipped", None, None),
    ("en", "My PIN is blocked after three tries", None, None),
    ("de", "Reisepassnummer C01X00T47", "C01X00T47", "passport"),
    ("de", "Ihr Bestätigungscode lautet 905118", "905118", "password"),
    ("de", "Mein Passwort ist abgelaufen, die IT schickt ein neues", None, None),
    ("nl", "Mijn pincode is 4471", "4471", "password"),
    ("nl", "De deurcode is 4455", "4455", "password"),
    ("nl", "mijn BSN is 111222333", "111222333", "national_id"),
    ("fr", "Numéro de commande 1234567812345670", None, None),
    ("it", "Il codice della porta è 6677", "6677", "password"),
    ("en", "The alarm code is Lynx#5511", "Lynx#5511", "password"),
    ("en", "the locker code is 7788", "7788", "password"),
    ("en", "the code for the safe is 0451", "0451", "password"),
    ("de", "Der Code für den Tresor ist 3310", "3310", "password"),
    ("fr", "code d'accès 4B72 pour le local vélos", "4B72", "password"),
    ("en", "My PIN is blocked, the new one is 4478", "4478", "password"),
    ("nl", "De pincode van mijn bankpas is 9127", "9127", "password"),
    ("en", "My password manager is 1Password, the family plan", None, None),
    # Shapes a stranger's chats held that went unmarked (or marked only in part):
    ("en", "The wifi code was Sardinha!2023", "Sardinha!2023", "password"),
    ("en", "Login for the bank: user benito84, pw Kraken!77", "Kraken!77", "password"),
    ("en", "My locker combination is 31-07-22", "31-07-22", "password"),
    ("en", "My 2FA recovery codes are: 4k2j-9x8m 7h3n-2b5v q9w8-e7r6", "4k2j-9x8m 7h3n-2b5v q9w8-e7r6", "password"),
    ("es", "Mi número de la seguridad social es 28/12345678/40", "28/12345678/40", "national_id"),
    ("en", "Our AWS access key is AKIAZ7Q3LMPV2XK4RT9B and the secret is hT8vQ2mZx9Lk4Rb7Wc1Np5Ys3Gd6Fj0Ae8Uo2Ii7", "hT8vQ2mZx9Lk4Rb7Wc1Np5Ys3Gd6Fj0Ae8Uo2Ii7", "credential"),
    ("en", "Password hint for my laptop: first dog's name plus the year", None, None),
    ("en", "Pattern (admin, router, password, page): User said: we need a new router", None, None),
    ("en", "the access token is expired, ask IT for a new one", None, None),
]  # fmt: skip
SECRETS = [(value, kind) for _, _, value, kind in SAID if value]
UNRELATED = [
    "What should I cook for dinner tonight?",
    "How should I reply to Mia?",
    "¿Qué hacemos mañana para cenar?",
    "Was machen wir am Samstag?",
    "On se voit quand au marché ?",
    "Cosa mangiamo stasera?",
    "What did I say about the rent?",
    "Remind me what we talked about this week",
    "What's a good birthday gift for Mia?",
    "¿Qué le digo a Marco sobre el alquiler?",
    # Words that name a secret's kind, in questions that do not ask for one (found through the proxy:
    # "the wifi keeps dropping" was given the wifi password, stored weeks before).
    "The wifi keeps dropping at home, any tips?",
    "Is the wifi at home fast enough for video calls?",
    "Which visa do I need for Japan?",
    "Can you pin this message for the team?",
    "How do I set up aws lambda for the bot?",
    "Ich war nie dort, wie ist es?",
    "Do they take Mastercard at the market?",
]


def carried(text: str) -> list[str]:
    """The secret values ``text`` holds, spacing ignored. A pack's memory ids are left out: they are
    random hex, and one in a few hundred runs held a four-digit PIN ("7391") by chance."""
    flat = re.sub(r"\s+", "", re.sub(r"\bid=m[0-9a-f]+\b", "id=", text))
    return [value for value, _ in SECRETS if re.sub(r"\s+", "", value) in flat]


def test_an_id_that_holds_a_secrets_digits_by_chance_is_not_a_secret_carried():
    assert carried("- [episode | 2026-11-01 | id=m0997ae7391d42048b] User said: a book for Mia") == []
    assert carried("- [fact | id=m0997ae99d42048b] el PIN del móvil es 7391") == ["7391"]


def test_the_corpus_is_recognised_and_ordinary_chat_is_not():
    assert len(SECRETS) >= 50 and len({lang for lang, *_ in SAID}) == 6
    for _, said, value, kind in SAID:
        assert kinds_in(said) == ((kind,) if kind else ()), said
        if value:
            assert re.sub(r"\s+", "", value) not in re.sub(r"\s+", "", mask(said)), said
    for ordinary in ("call me at +34 612 34 56 78", "order 100234 shipped 2024-06-14", "The password is in 1Password",
                     "my passport is in the drawer", "Flight IB3456 lands at 09:40", "room 4521, floor 3"):  # fmt: skip
        assert kinds_in(ordinary) == (), ordinary


def test_what_asks_for_a_secret():
    assert asked_kinds("What's my credit card number?") == {"card_number"}
    assert asked_kinds("¿Cuál es la contraseña del wifi?") == {"password"}
    assert asked_kinds("Wie ist meine IBAN?") == {"iban"}
    assert not any(asked_kinds(q) for q in UNRELATED)
    for asking, kind in [
        ("How do I get on the home wifi?", "password"),
        ("What's the wifi password?", "password"),
        ("Wie ist das WLAN-Passwort?", "password"),
        ("what is my PIN?", "password"),
        ("What is my Visa card number?", "card_number"),
        ("where are my aws keys?", "credential"),
        ("What is my GitHub token?", "credential"),
        ("Quel est mon RIB ?", "iban"),
        ("¿Cuál es mi número de NIE?", "national_id"),
    ]:
        assert asked_kinds(asking) == {kind}, asking


@pytest.fixture(scope="module")
def told(tmp_path_factory):
    from conftest import InProcessDaemon

    root = tmp_path_factory.mktemp("secrets")
    d = InProcessDaemon(root, {"jobs": {"timezone": "UTC", "decay_sweep": "", "consolidate": "", "daily_log": "", "goals_due": ""}, "clock": {"start": "2026-11-01T09:00:00Z"}})  # fmt: skip
    # The user's own conversations, one a language; and a private chat imported.
    for lang in ("en", "es", "de", "fr", "it"):
        for _, said, _, _ in (s for s in SAID if s[0] == lang):
            d.call("conversation.append", {"session": f"me-{lang}", "role": "user", "content": said})
            d.call("conversation.append", {"session": f"me-{lang}", "role": "assistant", "content": "Noted."})
        d.call("conversation.observe", {"session": f"me-{lang}"})
    chat = {
        "channel": "whatsapp", "chat_id": "whatsapp:marco", "title": "Marco", "kind": "private", "owner": "Carla",
        "messages": [
            {"sender": "Marco", "ts": "2026-11-02T10:00:00Z", "line": 1, "text": f"te paso mi IBAN: {MARCOS_IBAN}"},
            {"sender": "Carla", "ts": "2026-11-02T10:01:00Z", "line": 2, "text": "la contraseña del wifi es Naranja2024"},
            {"sender": "Marco", "ts": "2026-11-02T10:02:00Z", "line": 3, "text": "vale, gracias! cenamos el viernes?"},
        ],
    }  # fmt: skip
    for session in d.call("channels.ingest", chat)["sessions"]:
        d.call("conversation.observe", {"session": session})
    d.services.episodes.catch_up()
    yield d
    d.terminate()


def test_no_pack_for_an_unrelated_question_carries_a_secret(told):
    for question in UNRELATED:
        for audience in (None, "user"):
            params = {"query": question, "budget_tokens": 3000, **({"audience": audience} if audience else {})}
            pack = told.call("context.pack", params)
            assert pack["items"], question
            assert carried(pack["text"]) == [], (question, audience)


def test_the_asked_for_kind_comes_to_its_owner_and_no_other_kind_with_it(told):
    pack = told.call("context.pack", {"query": "What's my credit card number?", "budget_tokens": 3000})
    found = carried(pack["text"])
    kinds = {kind for value, kind in SECRETS if value in found}
    assert kinds == {"card_number"}, found
    wifi = told.call("context.pack", {"query": "¿Cuál es la contraseña del wifi?", "budget_tokens": 3000})
    assert "Naranja2024" in carried(wifi["text"]) and {k for v, k in SECRETS if v in carried(wifi["text"])} == {
        "password"
    }
    # A chat's audience never gets one, asked or not.
    group = told.call(
        "context.pack",
        {"query": "¿Cuál es la contraseña del wifi?", "budget_tokens": 3000, "audience": "private:whatsapp:marco"},
    )
    assert carried(group["text"]) == []


# Telling a secret, or saying something of one, asks for none: through the proxy each of these
# brought the user's other secrets of its kind into the request sent upstream.
TELLING = [
    "My passport number is X4RT88214",
    "I changed my wifi password today",
    "Hola! mi PIN del banco es 9182 y la contraseña de la banca online es Pelikan$Gelb19",
    "Also here is my SSH key, keep it: -----BEGIN RSA PRIVATE KEY-----",
    "My passport number is X4RT88214 and my card is 5425 2334 3010 9903 cvv 771",
    "Mein neues WLAN-Passwort lautet Sommer#2031, hab es gestern geändert",
    "The door code at the studio changed again, annoying",
]


def test_telling_a_secret_or_naming_one_asks_for_none(told):
    assert [asked_kinds(said) for said in TELLING] == [set()] * len(TELLING)
    for asking in ("wifi password", "door code pls", "I need the wifi password", "necesito la clave del wifi"):
        assert asked_kinds(asking) == {"password"}, asking
    for said in TELLING:
        pack = told.call("context.pack", {"query": said, "budget_tokens": 3000})
        assert carried(pack["text"]) == [], said


def test_a_conversations_context_masks_secrets_in_its_observations(told):
    told.call("conversation.append", {"session": "me-en", "role": "user", "content": "what should we cook tonight?"})
    ctx = told.call("conversation.context", {"session": "me-en", "budget_tokens": 8000})
    memories = [m["content"] for m in ctx["messages"] if m["role"] == "user"][-1]
    assert carried(ctx["system"]) == [] and carried(memories.split("</memories>")[0]) == []


def test_a_store_from_before_the_rules_widened_is_read_again_for_secrets(in_process):
    """A password stated with 'lautet', stored before that was a secret, is marked once the
    migration's backlog is read, and then packed only when asked for."""
    from agentmemd.memory.store.migrations.m043_secret_rules_widened import m043_secret_rules_widened

    d = in_process(fake_embedder=True)
    d.call("memory.add", {"content": "Das Passwort lautet Bergsee-77.", "type": "fact"})
    d.call("memory.add", {"content": "Wir grillen am Samstag.", "type": "fact"})
    store = d.services.store
    with store.transaction():  # as a store from before the rule was widened holds it
        store.conn.execute("DELETE FROM memory_secrets")
    assert "Bergsee-77" in d.call("context.pack", {"query": "Bergsee Passwort", "budget_tokens": 300})["text"]
    with store.transaction():
        m043_secret_rules_widened(store.conn)
    assert d.run_on_store(d.services.memories.read_older_memories) == 2
    assert "Bergsee-77" not in d.call("context.pack", {"query": "Bergsee", "budget_tokens": 300})["text"]
    assert "Bergsee-77" in d.call("context.pack", {"query": "Wie lautet das Passwort?", "budget_tokens": 300})["text"]


def test_the_clis_lists_of_turns_and_observations_show_no_secret(capsys):
    """`chat messages`, `conversation turns`, `conversation observations` and the preview of
    `memory forget` showed a card number whole on screen; --json keeps the text as stored."""
    from agentmemd.daemon.cli import printers

    said = f"My card number is {CARDS[0]} if you need to book"
    turn = {"ts": "2024-03-12T09:00:00Z", "chat_title": "Greta", "session": "s", "speaker": "Greta",
            "content": said, "seq": 4, "role": "user"}  # fmt: skip
    printers.human_turns({"turns": [turn]})
    printers.human_turn_page({"total": 1, "turns": [turn]})
    observation = {"date": "2024-03-12T09:00:00Z", "priority": "MED", "category": "fact", "content": f"Greta: {said}",
                   "referenced_date": None, "relative_date": None, "status": "live", "replaced_by": None,
                   "id": "o1", "source_turns": [4], "memory_id": "m1"}  # fmt: skip
    printers.human_observations({"observations": [observation]})
    # `memory packs` lists each pack's question: one can hold a card too.
    asked = {"pack_id": "p1", "at": "2024-03-12T09:00:00Z", "namespace": "default", "chosen": 2, "tokens": 90,
             "budget_tokens": 200, "query": f"is my new card {CARDS[0]} accepted at Lidl?"}  # fmt: skip
    printers.human_packs({"total": 1, "packs": [asked]})
    shown = capsys.readouterr().out
    assert CARDS[0] not in shown and shown.count("card number withheld") == 4
    assert "--json shows them as stored" in shown


def test_consolidation_and_the_daily_log_write_no_secret_into_the_workspace(in_process, short_tmp, capsys):
    """Two wifi passwords and two cards said alike became a consolidated pattern quoting them, which
    went whole into MEMORY.md (a person's file, synced and shared as files are) and onto
    `agentmemd consolidated`'s screen; the daily log's lines are the daemon's output too."""

    from agentmemd.daemon.cli import printers

    ws = template_workspace(short_tmp / "ws")
    d = in_process({"clock": {"start": "2026-11-21T09:00:00Z"}}, fake_embedder=True, workspace=ws)
    said = [
        f"My spare Visa card is {CARDS[0]} for hotel bookings.",
        f"My work Visa card is {CARDS[1]} for hotel bookings.",
        "Mein Passwort für das WLAN im Büro ist Tannenbaum4711.",
        "mein Passwort ist Kuckucksuhr99 für das WLAN zu Hause.",
    ]
    for text in said:
        d.call("conversation.append", {"session": "s1", "role": "user", "content": text})
    d.call("conversation.observe", {"session": "s1"})
    for text in said:  # and as memories of their own, learned today
        d.call("memory.add", {"content": text, "type": "fact"})
    assert d.call("jobs.run", {"name": "consolidate"})["status"] == "ok"
    assert d.call("jobs.run", {"name": "daily_log"})["status"] == "ok"
    nodes = d.call("consolidation.list", {})["nodes"]
    assert any("Tannenbaum4711" in n["content"] or CARDS[0] in n["content"] for n in nodes)  # what is masked
    written = (ws / "MEMORY.md").read_text() + "".join(p.read_text() for p in (ws / "memory").glob("*.md"))
    assert "withheld" in written
    # Nor in a pattern's keywords, lower-cased ("Pattern (wifi, lenta42, password, tortuga): ..."),
    # and a secret masked once is not masked again ("[password withheld] withheld]").
    for value in ("Tannenbaum4711", "Kuckucksuhr99", CARDS[0], CARDS[1]):
        assert value.lower() not in written.lower(), value
    assert "withheld] withheld]" not in written and "withheld⁆ withheld" not in written
    printers.human_consolidated({"nodes": nodes})
    shown = capsys.readouterr().out
    assert "withheld" in shown and "tannenbaum4711" not in shown.lower() and CARDS[0] not in shown


def test_a_password_with_a_stop_inside_is_one_secret_and_no_half_of_it_is_packed(in_process):
    """'Girasol!2024' was cut at its '!': the Observer stored '...es Girasol!' (a wrong password,
    marked) and 'Lucía said: 2024 por si vienes' (not marked), which a chat's pack then carried."""
    from agentmemd.memory.language.sentences import sentences

    assert sentences("la contraseña del wifi es Girasol!2024 por si vienes") == [
        "la contraseña del wifi es Girasol!2024 por si vienes"
    ]
    assert sentences("Wow! Great news. Yes? No.") == ["Wow!", "Great news.", "Yes?", "No."]
    d = in_process({"clock": {"start": "2026-11-20T09:00:00Z"}}, fake_embedder=True)
    for said in ("la contraseña del wifi es Girasol!2024 por si vienes",
                 "my password is Kiwi!Berg55 and my locker is number 12."):  # fmt: skip
        d.call("conversation.append", {"session": "s", "role": "user", "content": said})
    d.call("conversation.observe", {"session": "s"})
    for question in ("what is my locker number?", "¿vienes a casa?", "2024 por si vienes", "Berg55 locker"):
        packed = d.call("context.pack", {"query": question, "budget_tokens": 2000, "audience": "user"})["text"]
        assert "Berg55" not in packed and "2024 por si" not in packed, (question, packed)


def test_a_secret_the_agent_repeats_is_marked_masked_and_forgotten_with_what_it_repeats(in_process):
    """'My new bank password is Tortuga$Lenta42' was marked; the agent's 'I have noted
    Tortuga$Lenta42 for you.' held no word that marks it: packed unasked, in clear in the context's
    observation log, and still there (turn, episode, observation) after the password was forgotten."""
    d = in_process({"clock": {"start": "2026-11-23T20:00:00Z"}}, fake_embedder=True)
    said = [
        ("user", "My new bank password is Tortuga$Lenta42, keep it for me."),
        ("assistant", "Certainly! I have noted Tortuga$Lenta42 for you."),
        ("user", "Thanks. Also, the plumber comes on Friday at nine."),
        ("assistant", "Got it, Friday at nine for the plumber."),
    ]
    for role, text in said:
        d.call("conversation.append", {"session": "s2", "role": role, "content": text})
    d.call("conversation.observe", {"session": "s2"})
    # The agent's reply is no observation (its words are no evidence); a note the user keeps is a memory.
    d.call("memory.add", {"content": "Noted for you in the phone too: Tortuga$Lenta42", "type": "fact"})
    d.services.episodes.catch_up()
    for question in ("what did you note for me?", "noted for you", "Tortuga Lenta42"):
        packed = d.call("context.pack", {"query": question, "budget_tokens": 2000})["text"]
        assert "Tortuga$Lenta42" not in packed, (question, packed)
    asked = d.call("context.pack", {"query": "what is my bank password?", "budget_tokens": 2000})["text"]
    assert "Tortuga$Lenta42" in asked  # its owner asking for it gets it
    d.call("conversation.append", {"session": "s2", "role": "user", "content": "and when is the plumber coming?"})
    context = d.call("conversation.context", {"session": "s2", "budget_tokens": 8000})
    assert "Tortuga$Lenta42" not in context["system"], context["system"]
    hits = d.call("memory.search", {"query": "noted for you", "k": 20})["results"]
    assert not any("Tortuga$Lenta42" in h["content"] for h in hits)

    told = next(
        o for o in d.call("observations.list", {"session": "s2"})["observations"] if "bank password" in o["content"]
    )
    plan = d.call("memory.forget", {"id": told["memory_id"]})
    assert any(a["why"] == "repeats its secret" for a in plan["also"]), plan["also"]
    d.call("memory.forget", {"id": told["memory_id"], "confirm": True})
    d.call("jobs.run", {"name": "consolidate"})
    turns = [t["content"] for t in d.call("conversation.turns", {"session": "s2"})["turns"]]
    assert not any("Tortuga" in t for t in turns) and "Got it, Friday at nine for the plumber." in turns
    for question in ("what is my bank password?", "what did you note for me?"):
        assert "Tortuga" not in d.call("context.pack", {"query": question, "budget_tokens": 2000})["text"]
    assert not any("Tortuga" in h["content"] for h in d.call("memory.search", {"query": "Tortuga", "k": 50})["results"])


def test_the_similar_memories_an_add_answers_with_show_no_secret(in_process):
    """`agentmemd add` printed 'similar ... My passport number is C01X00T47.' whole, and memory.add's
    answer (which an MCP host hands to the model) carried it."""
    d = in_process(fake_embedder=True)
    d.call("memory.add", {"content": "My passport number is C01X00T47.", "type": "fact"})
    added = d.call("memory.add", {"content": "My passport expires next year.", "type": "fact"})
    similar = " | ".join(m["content"] for m in added["similar"])
    assert "passport" in similar and "C01X00T47" not in similar and "withheld" in similar, added
    again = d.call("memory.add", {"content": "My passport number C01X00T47 is on the form.", "type": "fact"})
    assert any("C01X00T47" in m["content"] for m in again["similar"])  # it says the value itself: nothing hidden


def test_a_consolidated_patterns_keywords_hold_no_secret():
    """Found editing MEMORY.md: "Pattern (wifi, lenta42, password, tortuga): The office wifi
    password is [password withheld] ..." — the keywords were the secret's words, never masked
    where the pattern is shown; a secret known from elsewhere (repeated bare) neither."""
    import numpy as np

    from agentmemd.memory.consolidation.consolidator import Leaf, build_tree
    from agentmemd.memory.core.config import ConsolidationConfig

    said = [
        "The office wifi password is Tortuga$Lenta42 for guests.",
        "Remember the office wifi password is Tortuga$Lenta42, the router is in the hall.",
        "Certainly! I have noted Tortuga$Lenta42 for the office wifi.",
        "Noted again: Tortuga$Lenta42 is the office wifi one.",
    ]
    other = ["We cook lentil soup on Sundays.", "Sunday lunch is lentil soup again.", "The soup needs more cumin."]
    wifi, soup = np.eye(8, dtype=np.float32)[0], np.eye(8, dtype=np.float32)[1]
    leaves = [Leaf(f"m{i}", text, "fact", f"2026-11-2{i}T09:00:00Z", wifi) for i, text in enumerate(said)]
    leaves += [Leaf(f"s{i}", text, "fact", f"2026-11-1{i}T09:00:00Z", soup) for i, text in enumerate(other)]
    tree = build_tree(leaves, ConsolidationConfig(min_sources=2), {"Tortuga$Lenta42": "password"})
    assert tree[1], tree
    for node in tree[1]:
        assert "tortuga" not in " ".join(node.keywords).lower() and "lenta42" not in " ".join(node.keywords).lower()


def test_a_secret_in_an_identity_file_is_not_packed_through_the_identity_block(in_process, short_tmp):
    """Found editing USER.md: "- banks with [[Sparebank 1]]: account IBAN ..., card ..." and
    "- [[home wifi]]: the wifi password is ..." were marked secrets, yet "Which bank do I use?"
    packed them whole in the pack's identity block, and `identity graph` listed them."""

    ws = template_workspace(short_tmp / "ws")
    (ws / "USER.md").write_text(
        "# USER\n\nName: Astrid\n\n"
        f"- banks with [[Sparebank 1]]: account IBAN NO93 8601 1117 947, card {CARDS[0]}\n"
        "- [[home wifi]]: the wifi password is Kaffe!Fjord2024\n"
        "- lives in [[Bergen]]\n",
        encoding="utf-8",
    )
    d = in_process({"clock": {"start": "2026-11-21T09:00:00Z"}}, fake_embedder=True, workspace=ws)
    secrets = ("NO93 8601 1117 947", CARDS[0], "Kaffe!Fjord2024")
    for question in ("Which bank do I use?", "What do you know about my home?", "Where do I live?"):
        for audience in ({}, {"audience": "user"}):
            pack = d.call("context.pack", {"query": question, "budget_tokens": 400, **audience})
            assert not any(s in pack["text"] for s in secrets), (question, pack["text"])
    graph = d.call("identity.graph", {})
    shown = json.dumps(graph)
    assert not any(s in shown for s in secrets) and "withheld" in shown
    # Asked for by its owner, the password comes (from the memory, as any secret does).
    asked = d.call("context.pack", {"query": "what's my home wifi password?", "budget_tokens": 400})
    assert "Kaffe!Fjord2024" in asked["text"] and CARDS[0] not in asked["text"]


def test_a_key_is_masked_to_its_end_and_a_mask_in_either_brackets_is_left_as_it_is():
    """Found through the proxy: a live Stripe key kept all but its first 24 characters visible
    ("[credential withheld]bW7kT3mP9sD6fA1hL5..."), and the system block sent upstream read
    "⁅password withheld⁆ withheld⁆" (a mask, as a prompt's data writes it, masked again)."""
    stripe = "sk_live_51HxYz2AbCdEfGhIjKlMnOpQrbW7kT3mP9sD6fA1hL5uX0yE8vB2nM4cR7tG9wZ3qJ6pK1iU5oY"
    assert (
        mask(f"the shop's key is {stripe}, keep it safe.") == "the shop's key is [credential withheld], keep it safe."
    )
    assert mask("AKIAIOSFODNN7EXAMPLEXX. Next.") == "[credential withheld]. Next."
    for masked in (
        "The router password is ⁅password withheld⁆ at home.",
        "The router password is [password withheld] at home.",
    ):
        assert mask(masked) == masked


def test_explaining_a_pack_shows_no_secret_it_left_out_and_says_why(in_process):
    """Found through the proxy: `memory explain` showed the card and the password a pack had left
    out, whole, with the reason "disclosure: the user's own, and this is " (cut short, and wrong)."""
    d = in_process(fake_embedder=True)
    d.call("memory.add", {"content": f"My hotel card is {CARDS[0]}, the Visa.", "type": "fact"})
    d.call("memory.add", {"content": "The hotel is booked for three nights in Porto.", "type": "fact"})
    pack = d.call("context.pack", {"query": "what about the hotel booking?", "budget_tokens": 400})
    assert CARDS[0] not in pack["text"]
    explained = d.call("context.explain", {"pack_id": pack["pack_id"]})
    (card,) = [c for c in explained["candidates"] if "hotel card" in (c["content"] or "")]
    assert CARDS[0] not in json.dumps(explained) and "withheld" in card["content"]
    assert card["why_not"].startswith("holds a secret the question does not ask for")


@pytest.mark.parametrize(
    "said, value",
    [("My new door code is 8842", "8842"), ("Le code du digicode est 4B72", "4B72"),
     ("El código del portal es 2580#", "2580#"), ("Der Türcode lautet 1379", "1379"), ("The gate code: 5512*", "5512*")],
)  # fmt: skip
def test_a_door_or_gate_code_is_a_secret(said, value):
    """Found importing real chats: door codes went into packs as plain text, in three languages,
    while the "garage PIN" in the same message was masked."""
    assert kinds_in(said) == ("password",) and value not in mask(said)
    for ordinary in ("The door code works again", "my zip code is 90210", "Flight code IB3456", "Gate B12 opens at 8"):
        assert kinds_in(ordinary) == (), ordinary
    assert asked_kinds("what's the door code again?") == {"password"}


def test_my_secret_is_not_another_persons_said_in_a_chat(told):
    """Asking for "my" IBAN brings the user's own, not the one Marco sent in his chat; asking for
    Marco's brings his."""
    mine = told.call("context.pack", {"query": "What's my IBAN?", "budget_tokens": 3000})["text"]
    assert carried(mine) and MARCOS_IBAN not in mine
    his = told.call("context.pack", {"query": "What's Marco's IBAN?", "budget_tokens": 3000})["text"]
    assert MARCOS_IBAN in his
    # Not asking for one's own: the IBAN someone sent is an answer ("the studio's door code" Ana
    # gave the team is too).
    sent = told.call("context.pack", {"query": "which IBAN should I transfer the dinner money to?", "budget_tokens": 3000})["text"]  # fmt: skip
    assert MARCOS_IBAN in sent


def test_a_word_after_my_pin_is_is_no_secret_and_a_plain_word_password_marks_nothing_else(in_process):
    """ "My PIN is blocked" made "blocked" a known secret: the road blocked by snow was never packed
    and was forgotten with the PIN memory. A password that is a plain word is a secret where it is
    stated, and marks no other memory that uses the word."""
    d = in_process({}, fake_embedder=True)
    pin = d.call("memory.add", {"content": "My PIN is blocked after three tries", "type": "fact"})["id"]
    road = d.call("memory.add", {"content": "The road to the airport is blocked by snow, take the train", "type": "fact"})["id"]  # fmt: skip
    wifi = d.call("memory.add", {"content": "the wifi password is tangerine", "type": "fact"})["id"]
    fruit = d.call("memory.add", {"content": "Leo ate a tangerine at breakfast", "type": "fact"})["id"]
    marked = {m["id"] for m in d.call("memory.list", {"secrets": True})["items"]}
    assert marked == {wifi}
    assert road in {i["id"] for i in d.call("context.pack", {"query": "How do I get to the airport?", "budget_tokens": 300})["items"]}  # fmt: skip
    preview = d.call("memory.forget", {"id": pin})
    assert preview["also"] == []
    d.call("memory.forget", {"id": wifi, "confirm": True})
    assert d.call("memory.get", {"id": fruit})["content"] == "Leo ate a tangerine at breakfast"
    assert d.call("memory.get", {"id": road})["id"] == road


def test_a_repeated_secret_is_masked_in_lists_and_the_forget_preview(in_process, capsys):
    """The docs' own example: "Certainly! I have noted Tortuga$Lenta42" is marked a secret, but a
    list masked only what its own words mark, so it showed the password whole."""
    from agentmemd.daemon.cli import printers

    d = in_process(fake_embedder=True)
    said = d.call("memory.add", {"content": "The wifi password is Tortuga$Lenta42", "type": "fact"})["id"]
    d.call("memory.add", {"content": "Certainly! I have noted Tortuga$Lenta42 for you.", "type": "fact"})
    listed = d.call("memory.list", {"secrets": True})
    assert {m["shown"] for m in listed["items"]} == {
        "The wifi password is [password withheld]",
        "Certainly! I have noted [password withheld] for you.",
    }
    assert any("Tortuga$Lenta42" in m["content"] for m in listed["items"])  # --json keeps the text as stored
    printers.human_memories(listed)
    printers.human_forget(d.call("memory.forget", {"id": said}))
    shown = capsys.readouterr().out
    assert "Tortuga$Lenta42" not in shown and shown.count("[password withheld]") == 3


def test_a_secret_said_again_is_masked_in_the_turns_and_observations_listed(in_process, capsys):
    """The assistant's "I have noted Koala!Pink31" repeats the user's password: it was masked in
    memory lists but shown whole by `conversation turns`, `conversation observations`, the
    dashboard's conversation page and MCP's observations_list."""
    from agentmemd.daemon.cli import printers

    d = in_process(fake_embedder=True)
    d.call("conversation.append", {"session": "phone1", "role": "user", "content": "Quick thing: my Netflix password is Koala!Pink31"})  # fmt: skip
    d.call("conversation.append", {"session": "phone1", "role": "assistant", "content": "Certainly! I have noted Koala!Pink31 for you."})  # fmt: skip
    d.call("conversation.observe", {"session": "phone1"})
    turns = d.call("conversation.turns", {"session": "phone1"})
    assert [t["content"] for t in turns["turns"]][1].endswith("Koala!Pink31 for you.")  # the transcript as sent
    assert [t["shown"] for t in turns["turns"]] == [
        "Quick thing: my Netflix password is [password withheld]",
        "Certainly! I have noted [password withheld] for you.",
    ]
    observations = d.call("observations.list", {"session": "phone1"})["observations"]
    assert observations and all("Koala" not in o["shown"] for o in observations)
    printers.human_turn_page(turns)
    printers.human_observations(d.call("observations.list", {"session": "phone1"}))
    assert "Koala" not in capsys.readouterr().out
