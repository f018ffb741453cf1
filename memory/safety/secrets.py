"""Secrets in what is stored: credentials, passwords, payment cards, bank accounts, national IDs.

A memory that holds one is kept, marked sensitive with the kinds it holds (m035 memory_secrets),
and never put in a pack or a context unless the question asks for that kind of secret and its
owner is asking (memory/retrieval/candidates.py); where its words are shown (an observation in a
context's prefix), the secret itself is masked.

Two detectors, each for what it does best:

- **credentials**: Yelp's detect-secrets plugins, the maintained rule set behind its pre-commit
  hook (AWS key ids, private keys, GitHub, GitLab, Slack, Stripe, Twilio, SendGrid, npm, PyPI,
  JWTs, Discord and Telegram bot tokens, basic-auth URLs, ...). Its entropy and keyword plugins
  are left out: they are made for source code and flag ordinary words in chat.
- **what detect-secrets does not know** (``secret_rules.toml``, gitleaks' rule shape: a regex,
  keywords as a pre-check, a kind): Anthropic, current OpenAI and Google keys, an AWS secret named
  as such, passwords stated as such in the languages people write in, and numbers that carry a
  check, verified so a phone number or an order id is not taken for one: Luhn for payment cards,
  mod-97 for IBANs, the check letter of a Spanish DNI/NIE; SSNs, codici fiscali, CPFs, and
  national IDs and passports named as such.

    find_secrets("My card is 4111 1111 1111 1111, CVV 123")   # card_number at 11-30, its CVV at 36-39
    kinds_in("wifi password: tangerine-47")                    # ("password",)
    asked_kinds("what's my credit card number?")               # {"card_number"}
    mask("the PIN is 4721")                                    # "the PIN is [password withheld]"
"""

from __future__ import annotations

import re
import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Callable, Mapping, NamedTuple

from detect_secrets.plugins.artifactory import ArtifactoryDetector
from detect_secrets.plugins.aws import AWSKeyDetector
from detect_secrets.plugins.azure_storage_key import AzureStorageKeyDetector
from detect_secrets.plugins.basic_auth import BasicAuthDetector
from detect_secrets.plugins.discord import DiscordBotTokenDetector
from detect_secrets.plugins.github_token import GitHubTokenDetector
from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
from detect_secrets.plugins.jwt import JwtTokenDetector
from detect_secrets.plugins.mailchimp import MailchimpDetector
from detect_secrets.plugins.npm import NpmDetector
from detect_secrets.plugins.openai import OpenAIDetector
from detect_secrets.plugins.private_key import PrivateKeyDetector
from detect_secrets.plugins.pypi_token import PypiTokenDetector
from detect_secrets.plugins.sendgrid import SendGridDetector
from detect_secrets.plugins.slack import SlackDetector
from detect_secrets.plugins.square_oauth import SquareOAuthDetector
from detect_secrets.plugins.stripe import StripeDetector
from detect_secrets.plugins.telegram_token import TelegramBotTokenDetector
from detect_secrets.plugins.twilio import TwilioKeyDetector

RULES_FILE = Path(__file__).with_name("secret_rules.toml")
SECRET_KINDS = ("credential", "password", "card_number", "iban", "national_id", "passport")
PLUGINS = tuple(
    plugin()
    for plugin in (
        ArtifactoryDetector, AWSKeyDetector, AzureStorageKeyDetector, BasicAuthDetector, DiscordBotTokenDetector,
        GitHubTokenDetector, GitLabTokenDetector, JwtTokenDetector, MailchimpDetector, NpmDetector, OpenAIDetector,
        PrivateKeyDetector, PypiTokenDetector, SendGridDetector, SlackDetector, SquareOAuthDetector, StripeDetector,
        TelegramBotTokenDetector, TwilioKeyDetector,
    )
)  # fmt: skip
_DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"
_KEY_END = re.compile(r"-----END [A-Z ]*PRIVATE KEY-----|END (?:OPENSSH|RSA|DSA|EC|PGP) PRIVATE KEY")


class Secret(NamedTuple):
    kind: str
    start: int
    end: int
    rule: str  # the rule or detect-secrets plugin that found it


class Rule(NamedTuple):
    id: str
    regex: re.Pattern[str]
    keywords: tuple[str, ...]
    kind: str
    check: Callable[[str], bool] | None
    # Words that, said just before a match, make it something else ("IMEI 490154203237518", "order
    # 4111111111111111": numbers that pass a card's Luhn check too).
    not_after: re.Pattern[str] | None = None
    # Words that, said between those and the match, make it the rule's again ("paid the order
    # with my card 4111 …").
    still_after: re.Pattern[str] | None = None


def _words(words: list[str] | None) -> re.Pattern[str] | None:
    return re.compile(r"(?i)(?<!\w)(?:" + "|".join(map(re.escape, words)) + r")(?!\w)") if words else None


def _said_as_something_else(rule: Rule, text: str, start: int) -> bool:
    """Whether one of the rule's ``not_after`` words comes just before ``start`` with none of its
    ``still_after`` words after it: "IMEI 4901…" is no card, "the order, paid with my card 4111…" is."""
    if rule.not_after is None:
        return False
    before = [m.end() for m in rule.not_after.finditer(text, max(0, start - NOT_AFTER_CHARS), start)]
    if not before:
        return False
    return rule.still_after is None or not rule.still_after.search(text, before[-1], start)


def luhn(text: str) -> bool:
    digits = [int(c) for c in text if c.isdigit()]
    if not 13 <= len(digits) <= 19 or len(set(digits)) == 1:
        return False
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def iban(text: str) -> bool:
    compact = text.replace(" ", "")
    if not 15 <= len(compact) <= 34:
        return False
    moved = compact[4:] + compact[:4]
    return int("".join(str(int(c, 36)) for c in moved)) % 97 == 1


def dni(text: str) -> bool:
    compact = text.replace(" ", "").replace("-", "")
    number = compact[:-1].replace("X", "0").replace("Y", "1").replace("Z", "2")
    return number.isdigit() and _DNI_LETTERS[int(number) % 23] == compact[-1]


def stated(value: str) -> bool:
    """Whether what follows "my PIN is" can be one: not a word that says how it is ("blocked",
    "expired", "wrong", "abgelaufen"; secret_rules.toml's ``not_values``)."""
    return value.lower().strip("!?¡¿") not in _not_values()


@lru_cache(maxsize=1)
def _not_values(path: Path = RULES_FILE) -> frozenset[str]:
    return frozenset(tomllib.loads(path.read_text(encoding="utf-8"))["not_values"]["words"])


def looks_made_up(value: str) -> bool:
    """Whether a secret's value is unlike a word of the language: it holds a digit, a sign, or a
    capital after its first letter ("Tortuga$Lenta42", "tangerine-47", "HunterHunter"), as the
    values of keys, cards and numbers always do. Only such a value is looked for where it is
    said again: a password that is a plain word ("sunshine") would make every memory using the
    word a secret, and forgetting the password would take them all."""
    return any(not c.isalpha() for c in value) or any(c.isupper() for c in value[1:])


CHECKS: dict[str, Callable[[str], bool]] = {"luhn": luhn, "iban": iban, "dni": dni, "stated": stated}


@lru_cache(maxsize=1)
def load_rules(path: Path = RULES_FILE) -> tuple[tuple[Rule, ...], dict[str, tuple[str, ...]]]:
    """Our rules, and what a question asking for each kind says."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    rules = tuple(
        Rule(
            r["id"],
            re.compile(r["regex"]),
            tuple(r["keywords"]),
            r["kind"],
            CHECKS[r["check"]] if "check" in r else None,
            _words(r.get("not_after")),
            _words(r.get("still_after")),
        )
        for r in data["rule"]
    )
    unknown = {r.kind for r in rules} - set(SECRET_KINDS)
    if unknown:
        raise ValueError(f"{path}: unknown secret kinds {sorted(unknown)}")
    return rules, {kind: tuple(words) for kind, words in data["asks"].items()}


# A secret's value shorter than this is not looked for where it is said again: a four-digit PIN
# repeated is any "4721" (a year, a street number); a password or a card number is not.
REPEATED_LEAST = 6
NOT_AFTER_CHARS = 30  # how far before a match a rule's ``not_after`` words are looked for
REPEATED_RULE = "repeated"


def secret_values(text: str) -> dict[str, str]:
    """The values of the secrets ``text`` states (value -> kind), those long enough to be known
    again where they are repeated without the words that marked them ("Noted: Tortuga$Lenta42")."""
    return {
        text[s.start : s.end]: s.kind
        for s in find_secrets(text)
        if s.end - s.start >= REPEATED_LEAST and s.rule != REPEATED_RULE and looks_made_up(text[s.start : s.end])
    }


def repeated(text: str, values: Mapping[str, str]) -> list[Secret]:
    """Where ``text`` repeats a known secret's value (value -> kind), as a word of its own."""
    return [
        Secret(kind, m.start(), m.end(), REPEATED_RULE)
        for value, kind in values.items()
        if value in text
        for m in re.finditer(rf"(?<!\w){re.escape(value)}(?!\w)", text)
    ]


def find_secrets(text: str, values: Mapping[str, str] | None = None) -> tuple[Secret, ...]:
    """Every secret in ``text``, in order; overlapping finds of one span kept once (the first rule's).
    ``values``: secrets already known (secret_values of what else was said, value -> kind), found
    wherever they are repeated, as a word of their own."""
    found = repeated(text, values) if values else []
    if len(text) < 7:  # nothing we look for is shorter ("CVV 731")
        return tuple(found)
    rules, _ = load_rules()
    lowered = text.lower()
    for rule in rules:
        if rule.keywords and not any(k in lowered for k in rule.keywords):
            continue
        for m in rule.regex.finditer(text):
            group = 1 if m.re.groups else 0
            value = m.group(group)
            if rule.check is not None and not rule.check(value):
                continue
            if _said_as_something_else(rule, text, m.start()):
                continue
            found.append(Secret(rule.kind, m.start(group), m.end(group), rule.id))
    for plugin in PLUGINS:  # their own patterns, for the whole match (analyze_string yields a group)
        for regex in plugin.denylist:
            for m in regex.finditer(text):
                end = m.end()
                if isinstance(plugin, PrivateKeyDetector):  # the header; the key runs to its END line
                    closing = _KEY_END.search(text, end)
                    end = closing.end() if closing else len(text)
                else:  # a pattern of a key's first characters (Stripe's 24): the key runs to its end
                    end = _TOKEN_TAIL.match(text, end).end()
                found.append(Secret("credential", m.start(), end, plugin.secret_type))
    kept: list[Secret] = []
    for s in sorted(found, key=lambda s: (s.start, -s.end)):
        if kept and s.start < kept[-1].end:
            continue
        kept.append(s)
    return tuple(kept)


# The rest of a key a plugin's pattern matched the start of: what a key is made of, to its end.
_TOKEN_TAIL = re.compile(r"[A-Za-z0-9_\-+/=]*")


def repeats_any(text: str, values: Mapping[str, str]) -> bool:
    """Whether ``text`` says one of these known values again (find_secrets' repeated rule)."""
    return any(s.rule == REPEATED_RULE for s in find_secrets(text, values))


def kinds_in(text: str, values: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The kinds of secret ``text`` holds (``values``: known ones repeated too), in SECRET_KINDS
    order; () when none."""
    kinds = {s.kind for s in find_secrets(text, values)}
    return tuple(k for k in SECRET_KINDS if k in kinds)


def asked_kinds(question: str) -> set[str]:
    """The kinds of secret a question asks for ("what's the wifi password?" -> {"password"}): none
    where it asks nothing ("I changed my wifi password today") and none of a kind it tells itself
    ("my passport number is X4RT88214": telling one is not asking for the others)."""
    _, asks = load_rules()
    lowered = question.lower()
    if not _asks_something(lowered):
        return set()
    asked = {kind for kind, words in asks.items() if any(_asks(lowered, w) for w in words)}
    return asked - set(kinds_in(question)) if asked else asked


ELLIPTIC_WORDS = 4  # a message this short that names a secret's kind asks for it ("the wifi password")


@lru_cache(maxsize=1)
def _asking_words(path: Path = RULES_FILE) -> tuple[str, ...]:
    return tuple(tomllib.loads(path.read_text(encoding="utf-8"))["asking"]["words"])


def _asks_something(lowered: str) -> bool:
    """A question or a request: a question mark, a question word, a "tell me" (secret_rules.toml),
    or a few words with no verb to tell anything ("wifi password", "door code pls")."""
    if "?" in lowered or "¿" in lowered or len(lowered.split()) <= ELLIPTIC_WORDS:
        return True
    return any(_says(lowered, word) for word in _asking_words())


def _asks(lowered: str, entry: str) -> bool:
    """Whether a question says ``entry``: a word, or "word + a|b" (the word beside one of the others)."""
    word, _, beside = entry.partition(" + ")
    return _says(lowered, word) and (not beside or any(_says(lowered, w) for w in beside.split("|")))


def _says(lowered: str, word: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", lowered) is not None


def _shown(kind: str) -> str:
    return f"[{kind.replace('_', ' ')} withheld]"


# What mask() puts where a secret was, any kind: "[password withheld]", and as a prompt's data
# writes it, "⁅password withheld⁆" (memory/safety/neutraliser.py).
MASKED = re.compile("|".join(r"[\[⁅]" + re.escape(_shown(kind)[1:-1]) + r"[\]⁆]" for kind in SECRET_KINDS))


def mask_repeats(text: str, values: Mapping[str, str]) -> str:
    """``text`` with each repeat of these values as mask() writes a secret, and nothing else masked
    (a goal keeps its other words, and any other secret it states, as its person wrote them)."""
    out, last = [], 0
    for s in find_secrets(text, values):
        if s.rule == REPEATED_RULE:
            out += [text[last : s.start], _shown(s.kind)]
            last = s.end
    return "".join(out) + text[last:]


def without_masks(text: str) -> str:
    """``text`` with mask()'s stand-ins taken out: what a count of someone's words reads ("withheld"
    and "password" are no topic of theirs, and their count would say how many secrets they gave)."""
    return MASKED.sub(" ", text)


def mask(text: str, known: str = "", values: Mapping[str, str] | None = None) -> str:
    """``text`` with every secret replaced by ``[<kind> withheld]``, for logs, lists and prompts;
    one that ``known`` already holds (a search for the value itself) is left: it reveals nothing.
    ``values``: secrets known from elsewhere, masked where they are repeated."""
    out, last = [], 0
    # What is masked already stays as it is: "[password withheld]" holds a word that marks a
    # password, and its "withheld]" was taken for the value ("[password withheld] withheld]").
    stood_in = [(m.start(), m.end()) for m in MASKED.finditer(text)]
    for s in find_secrets(text, values):
        if known and text[s.start : s.end] in known:
            continue
        if any(s.start < end and start < s.end for start, end in stood_in):
            continue
        out += [text[last : s.start], _shown(s.kind)]
        last = s.end
    return "".join(out) + text[last:]


def shown_masked(text: str, values: Mapping[str, str] | None = None) -> str | None:
    """``text`` as a screen or a model reading a list is shown it, its secrets (and repeats of these
    known values) masked; None when it holds none, so a list need not repeat the words."""
    return mask(text, values=values) if find_secrets(text, values) else None


def unmask(shown: str, original: str, values: Mapping[str, str] | None = None) -> str:
    """``shown``, a masked copy of ``original`` a person may have edited (a goal's line in GOALS.md),
    with each stand-in given back the secret it stood for, in order, when they still pair up one
    for one by kind: a tick or a new priority must not make "[iban withheld]" the goal's words.
    ``shown`` as it is when they do not pair up (the person rewrote them)."""
    stand_ins = list(MASKED.finditer(shown))
    if not stand_ins:
        return shown
    secrets = [s for s in find_secrets(original, values) if not MASKED.fullmatch(original, s.start, s.end)]
    kinds = [m.group(0)[1:-1] for m in stand_ins]
    if len(secrets) != len(stand_ins) or kinds != [_shown(s.kind)[1:-1] for s in secrets]:
        return shown
    out, last = [], 0
    for m, secret in zip(stand_ins, secrets):
        out += [shown[last : m.start()], original[secret.start : secret.end]]
        last = m.end()
    return "".join(out) + shown[last:]
