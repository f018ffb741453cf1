"""Hard rules checked by rule wherever a rule says something checkable (seed 002, 5.3:
constraint adherence is "near-binary").

Checkable kinds: emoji (none / some), the reply's language, a length limit (words,
sentences, lines, characters), forbidden quoted phrases, exclamation marks, bullet lists,
markdown headers. Any other rule ("No unnecessary pleasantries") is left to the judge:
``check`` returns it with ``checkable=False``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agentmemd.memory.core.text import count_words
from agentmemd.memory.language.detection import LANGUAGES, detect_language, emoji_in
from agentmemd.memory.language.sentences import sentences
from agentmemd.persona.syncscore.stylometry import _BULLET, _HEADER

_NEGATIVE = re.compile(r"\b(?:never|no|don'?t|do not|avoid|without|not|nothing|zero)\b", re.IGNORECASE)
_LANGUAGE_RULE = re.compile(r"\b(" + "|".join(LANGUAGES) + r")\b", re.IGNORECASE)
_LANGUAGE_VERB = re.compile(r"\b(?:speak|answer|respond|reply|write|talk|use|language|only)\w*\b", re.IGNORECASE)
# "Never reply in a language other than English": the language named after the exception is the one
# wanted, whatever the negation before it.
_LANGUAGE_BUT = re.compile(
    r"\b(?:other than|but|except(?: for| in)?|apart from|besides|save)\s+(?:in\s+)?(" + "|".join(LANGUAGES) + r")\b",
    re.IGNORECASE,
)
_LENGTH = re.compile(
    r"\b(?:under|at most|no more than|fewer than|less than|max(?:imum)?(?: of)?|up to|within|"
    r"not exceed|shorter than)\s+(\d+)\s+(words?|sentences?|lines?|characters?|paragraphs?)\b",
    re.IGNORECASE,
)
_QUOTED = re.compile(r"[\"“‘']([^\"”’']{2,80})[\"”’']")
_SAY = re.compile(
    r"\b(?:say|saying|use|using|write|writing|phrase|words?|start with|open with|begin with)\b", re.IGNORECASE
)


@dataclass
class RuleCheck:
    rule: str
    checkable: bool
    ok: bool | None  # None: not checkable by rule
    why: str = ""

    def as_dict(self) -> dict:
        return {"rule": self.rule, "checkable": self.checkable, "ok": self.ok, "why": self.why}


def _count_units(text: str, unit: str) -> int:
    unit = unit.lower().rstrip("s")
    if unit == "word":
        return count_words(text)
    if unit == "character":
        return len(text)
    if unit == "line":
        return len([ln for ln in text.splitlines() if ln.strip()])
    if unit == "paragraph":
        return len([p for p in re.split(r"\n\s*\n", text) if p.strip()])
    if len(text) > 20_000:  # pysbd is linear but slow; on a reply this long, terminal punctuation will do
        return len([p for p in re.split(r"(?<=[.!?])\s+", text) if p.strip()])
    return len(sentences(text))


def check(rule: str, response: str) -> RuleCheck:
    lower = rule.lower()
    negative = bool(_NEGATIVE.search(rule))
    if "emoji" in lower or "emoticon" in lower:
        found = emoji_in(response)
        if negative:
            return RuleCheck(rule, True, not found, f"emoji used: {''.join(found[:5])}" if found else "no emoji")
        return RuleCheck(rule, True, bool(found), "emoji used" if found else "no emoji, though the rule asks for them")
    if (m := _LENGTH.search(rule)) is not None:
        limit, unit = int(m.group(1)), m.group(2)
        n = _count_units(response, unit)
        strict = re.match(r"(?:under|fewer|less|shorter)", m.group(0), re.IGNORECASE) is not None
        ok = n < limit if strict else n <= limit
        return RuleCheck(rule, True, ok, f"{n} {unit.rstrip('s')}s, limit {'<' if strict else '<='} {limit}")
    if (m := _LANGUAGE_RULE.search(rule)) and _LANGUAGE_VERB.search(rule):
        but = _LANGUAGE_BUT.search(rule)
        want = (but or m).group(1).lower()
        got = detect_language(response)
        if got is None:
            return RuleCheck(rule, True, True, "too short to tell the language")
        ok = (got == want) != (negative and "only" not in lower and but is None)
        return RuleCheck(rule, True, ok, f"reply is in {got}")
    quoted = _QUOTED.findall(rule)
    if quoted and negative and _SAY.search(rule):
        used = [q for q in quoted if q.lower() in response.lower()]
        return RuleCheck(rule, True, not used, f"says {used[0]!r}" if used else "no forbidden phrase")
    if "exclamation" in lower and negative:
        n = response.count("!")
        return RuleCheck(rule, True, n == 0, f"{n} exclamation marks")
    if "bullet" in lower and negative:
        n = len(_BULLET.findall(response))
        return RuleCheck(rule, True, n == 0, f"{n} bullet lines")
    if ("header" in lower or "heading" in lower or "markdown" in lower) and negative:
        n = len(_HEADER.findall(response)) + (response.count("**") // 2 if "markdown" in lower else 0)
        return RuleCheck(rule, True, n == 0, f"{n} markdown headers/marks")
    return RuleCheck(rule, False, None, "not checkable by rule")


def check_all(rules: list[str], response: str) -> list[RuleCheck]:
    return [check(r, response) for r in rules]
