"""Measurable style of a piece of the agent's text: the local provider's eyes on its voice.

``measure(text)`` counts what can be counted (length, sentences, bullets, headers, code,
emoji, exclamations, questions, greetings and closings, hedges, contractions, formal and
informal words, humour, warmth, technical vocabulary, collaborative "let's", pleasantries)
and ``estimate_traits`` turns the counts into the six built-in traits (0..1). The same
numbers give the categorical parts of a Persona Preservation Record: which voice markers,
relational stances, formatting habits and emotional register the text shows.

Lexicons are small and English; they are what a reader would point at when saying a
reply "sounds formal" or "hedges a lot". An LLM provider reads voice better; this one is
deterministic, offline and explains itself.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from agentmemd.memory.core.text import WORD, count_words
from agentmemd.memory.core.threads import yield_to_requests
from agentmemd.memory.language.detection import emoji_in
from agentmemd.memory.language.sentences import sentences
from agentmemd.persona.identity.traits import length_score

_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+", re.MULTILINE)
_NUMBERED = re.compile(r"^\s*\d+[.)]\s+", re.MULTILINE)
_HEADER = re.compile(r"^\s{0,3}#{1,6}\s+\S", re.MULTILINE)
_CODE_BLOCK = re.compile(r"```")
_INLINE_CODE = re.compile(r"`[^`\n]+`")
_BOLD = re.compile(r"\*\*[^*\n]+\*\*")
_SHOUT = re.compile(r"\b[A-Z]{3,}\b(?!\d)")  # OMG, LEGEND (acronyms like API count too; rare in chat)
# What a user says when they want a long answer, or a short one.
DEPTH_REQUEST = re.compile(
    r"\b(?:in detail|detailed|in depth|in-depth|thorough(?:ly)?|explain (?:fully|everything)|"
    r"long(?:er)? version|step by step|walk me through|deep dive|elaborate)\b",
    re.IGNORECASE,
)
BRIEF_REQUEST = re.compile(
    r"\b(?:quick(?:ly)?|brief(?:ly)?|short|in (?:one|two|a few) (?:lines?|sentences?|words)|"
    r"tl;?dr|one-liner|summar[iy]\w*)\b",
    re.IGNORECASE,
)


def _lexicon(*phrases: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w'])(?:" + "|".join(phrases) + r")(?![\w'])", re.IGNORECASE)


HEDGES = _lexicon(
    r"maybe",
    r"perhaps",
    r"might",
    r"possibly",
    r"i think",
    r"i guess",
    r"i suppose",
    r"sort of",
    r"kind of",
    r"it seems",
    r"it depends",
    r"not sure",
    r"probably",
    r"could be",
    r"somewhat",
    r"i'?d say",
    r"arguably",
    r"if you like",
    r"if that helps",
    r"just a thought",
    r"i wonder",
)
FORMAL = _lexicon(
    r"therefore",
    r"however",
    r"furthermore",
    r"moreover",
    r"regarding",
    r"additionally",
    r"please note",
    r"kindly",
    r"shall",
    r"utili[sz]e",
    r"assist(?:ance)?",
    r"accordingly",
    r"consequently",
    r"nevertheless",
    r"hereby",
    r"pursuant",
    r"in accordance",
    r"sincerely",
    r"dear",
    r"respectfully",
    r"thus",
    r"hence",
    r"whereas",
    r"i would like to",
    r"it is advisable",
    r"one should",
    r"ensure",
)
INFORMAL = _lexicon(
    r"yeah",
    r"yep",
    r"nope",
    r"gonna",
    r"wanna",
    r"gotta",
    r"kinda",
    r"hey",
    r"cool",
    r"awesome",
    r"lol",
    r"haha+",
    r"stuff",
    r"ok(?:ay)?",
    r"super",
    r"totally",
    r"dude",
    r"folks",
    r"y'?all",
    r"btw",
    r"tbh",
    r"nah",
    r"sure thing",
    r"no worries",
    r"nice",
)
HUMOR = _lexicon(
    r"haha+",
    r"lol",
    r"lmao",
    r"joke",
    r"joking",
    r"kidding",
    r"pun",
    r"funny",
    r"hilarious",
    r"ha",
    r"heh",
    r"tongue[- ]in[- ]cheek",
    r"plot twist",
    r"spoiler",
    r"no pressure",
    r"famous last words",
)
WARM = _lexicon(
    r"glad",
    r"happy for you",
    r"sorry to hear",
    r"that sounds (?:hard|tough|rough|difficult|lovely|great)",
    r"i'?m here",
    r"take care",
    r"you'?ve got this",
    r"proud of you",
    r"that'?s wonderful",
    r"i understand",
    r"no rush",
    r"be kind to yourself",
    r"hugs?",
    r"i love",
    r"so good to hear",
    r"rooting for you",
    r"well done",
    r"congrat\w*",
    r"thank you for sharing",
    r"that must",
    r"how are you feeling",
    r"i care",
    r"gently",
    r"warmly",
    r"lovely",
    r"sweet",
    r"oh no",
    r"poor \w+",
    r"that'?s rough",
    r"fair enough",
    r"nice idea",
    r"love you",
    r"you did it",
    r"paid off",
    r"everything okay",
    r"how are you",
    r"anytime",
    r"makes sense",
    r"holding up",
    r"ugh",
    r"shout if",
)
COLD = _lexicon(
    r"as stated",
    r"as previously (?:stated|mentioned)",
    r"the user",
    r"it is required",
    r"per policy",
    r"not my (?:problem|concern)",
    r"irrelevant",
    r"obviously",
    r"clearly you",
    r"as i already (?:said|told you)",
    r"whatever(?=[.!,])",
    r"whatever you want",
    r"i don'?t care",
    r"figure it out",
    r"that'?s your problem",
    r"stop asking",
    r"calm down",
    r"do your own research",
    r"not interested",
    r"pathetic",
    r"stop making excuses",
    r"you'?ll never",
    r"useless",
    r"waste my time",
    r"is right about you",
    r"isn'?t your thing",
    r"your fault",
    r"should have",
    r"stop worrying",
    r"ist mir egal",
    r"nicht wichtig",
)
BOILERPLATE = _lexicon(
    r"as an ai",
    r"language model",
    r"i do not have feelings",
    r"i am unable",
    r"i'?m unable",
    r"i cannot",
    r"real-time",
    r"my records",
    r"as stored",
    r"i apologi[sz]e",
    r"any inconvenience",
    r"how may i assist",
    r"please consult",
    r"licensed \w+",
    r"official \w+ documentation",
)
TECHNICAL = _lexicon(
    r"api",
    r"function",
    r"database",
    r"latency",
    r"algorithm",
    r"server",
    r"query",
    r"queries",
    r"code",
    r"stack",
    r"config(?:uration)?",
    r"thread",
    r"schema",
    r"index(?:es)?",
    r"cache",
    r"regex",
    r"endpoint",
    r"deploy\w*",
    r"compile\w*",
    r"runtime",
    r"memory leak",
    r"retry",
    r"timeout",
    r"webhook",
    r"sql",
    r"json",
    r"http",
    r"async",
    r"kernel",
    r"bytes?",
    r"cpu",
    r"gpu",
    r"o\(n\)",
    r"variable",
    r"parameter",
    r"refactor\w*",
    r"unit tests?",
    r"stack trace",
    r"exception",
    r"debug\w*",
    r"repo(?:sitory)?",
    r"commit",
    r"branch",
    r"docker",
    r"python",
    r"javascript",
    r"rust",
    r"library",
    r"dependency",
    r"protocol",
    r"throughput",
    r"mutex",
    r"race condition",
    r"pointer",
    r"socket",
    r"payload",
    r"migration",
    r"vector",
    r"embedding",
)
COLLABORATIVE = _lexicon(r"let'?s", r"we can", r"we could", r"we'?ll", r"together", r"our", r"shall we", r"us")
ADVISORY = _lexicon(
    r"you should",
    r"i recommend",
    r"i'?d recommend",
    r"i suggest",
    r"i'?d suggest",
    r"my advice",
    r"consider",
    r"the best option",
    r"you might want to",
    r"i'?d go with",
)
TEACHING = _lexicon(
    r"think of it as",
    r"the reason is",
    r"this means",
    r"in other words",
    r"for example",
    r"for instance",
    r"here'?s why",
    r"the idea is",
    r"notice that",
    r"the key is",
)
SERVILE = _lexicon(
    r"happy to help",
    r"at your service",
    r"as you wish",
    r"certainly",
    r"of course!",
    r"my pleasure",
    r"i apologi[sz]e",
    r"i'?m sorry for any confusion",
    r"right away",
    r"your humble",
    r"i live to serve",
    r"anything you (?:need|want|say)",
    r"sir",
    r"madam",
    r"absolutely!",
    r"i'?m so sorry",
    r"delighted to",
    r"(?:to )?assist you",
    r"at once",
)
PLEASANTRIES = _lexicon(
    r"great question",
    r"good question",
    r"happy to help",
    r"i hope this helps",
    r"hope this helps",
    r"feel free to",
    r"don'?t hesitate",
    r"i hope you'?re having",
    r"thanks for asking",
    r"what a great",
    r"certainly!",
    r"absolutely!",
    r"i'?d be delighted",
    r"have a (?:great|wonderful|lovely) day",
)
GREETING = re.compile(r"^\s*(?:hi|hello|hey|good (?:morning|afternoon|evening)|greetings|dear)\b", re.IGNORECASE)
CLOSING = _lexicon(
    r"let me know",
    r"hope this helps",
    r"cheers",
    r"take care",
    r"best(?: regards)?,?$",
    r"talk soon",
    r"anything else",
    r"good luck",
    r"have a (?:great|good|nice|lovely) day",
)
EXPERIENCE = _lexicon(r"i'?ve seen", r"in my experience", r"i'?ve found", r"this pattern", r"every time i")
METAPHOR = _lexicon(
    r"like a",
    r"think of it as",
    r"it'?s as if",
    r"as if",
    r"kind of like",
    r"is a bit like",
    r"sneaky",
    r"a rabbit hole",
    r"under the hood",
    r"a moving target",
)
CONTRACTION = re.compile(r"\b\w+(?:'|’)(?:s|re|ve|ll|d|m|t)\b", re.IGNORECASE)
NEGATIVE = _lexicon(
    r"sad",
    r"angry",
    r"upset",
    r"frustrat\w*",
    r"annoy\w*",
    r"worr\w*",
    r"afraid",
    r"scared",
    r"terrible",
    r"awful",
    r"hate",
    r"disappoint\w*",
    r"stupid",
    r"ridiculous",
    r"pathetic",
    r"ugh",
)
POSITIVE = _lexicon(
    r"great",
    r"wonderful",
    r"lovely",
    r"happy",
    r"glad",
    r"exciting",
    r"excited",
    r"fantastic",
    r"amazing",
    r"love",
    r"awesome",
    r"nice",
    r"fun",
    r"enjoy\w*",
    r"beautiful",
)
IMPERATIVE_START = re.compile(
    r"^\s*(?:[-*•]\s+|\d+[.)]\s+)?(?:please\s+)?(?:do|don'?t|use|try|run|check|add|remove|set|put|make|keep|take|go|"
    r"start|stop|open|close|write|read|call|install|restart|delete|avoid|pick|choose|move|drop|skip|turn|switch|"
    r"look|ask|tell|send|book|plan|cut|trace|log|test|fix|change|list|note|save|wait|drink|eat|sleep|walk|rest)\b",
    re.IGNORECASE,
)


def _count(pattern: re.Pattern[str], text: str) -> int:
    return len(pattern.findall(text))


@dataclass
class Style:
    """The counts of one text. Rates are per sentence unless named per word."""

    words: int = 0
    sentences: int = 0
    bullets: int = 0
    numbered: int = 0
    headers: int = 0
    code_blocks: int = 0
    inline_code: int = 0
    bold: int = 0
    emoji: int = 0
    exclamations: int = 0
    questions: int = 0
    greeting: bool = False
    closing: bool = False
    hedges: int = 0
    contractions: int = 0
    formal: int = 0
    informal: int = 0
    humor: int = 0
    warm: int = 0
    cold: int = 0
    technical: int = 0
    collaborative: int = 0
    advisory: int = 0
    teaching: int = 0
    servile: int = 0
    pleasantries: int = 0
    boilerplate: int = 0
    experience: int = 0
    metaphor: int = 0
    imperatives: int = 0
    shouting: int = 0
    positive: int = 0
    negative: int = 0
    second_person: int = 0
    first_person: int = 0
    sentence_texts: list[str] = field(default_factory=list)

    def per_sentence(self, value: float) -> float:
        return value / max(1, self.sentences)

    def per_word(self, value: float) -> float:
        return value / max(1, self.words)


_SECOND = _lexicon(r"you", r"your", r"yours", r"you'?re", r"you'?ve", r"you'?ll", r"you'?d")
_FIRST = _lexicon(r"i", r"i'?m", r"i'?ve", r"i'?ll", r"i'?d", r"me", r"my")


def measure(text: str) -> Style:
    # Lines first: a bullet or a header is a unit of its own even without a full stop. Emoji are
    # found a line at a time too: a line is where background work measuring 200 messages at once
    # (an impression) lets a request beside it go first.
    parts: list[str] = []
    found_emoji: list[str] = []
    for line in text.splitlines():
        if line.strip():
            yield_to_requests()
            parts += [s for s in sentences(line.strip(" #*-•\t")) if WORD.search(s)]
            found_emoji += emoji_in(line)
    s = Style(words=count_words(text), sentences=max(1, len(parts)), sentence_texts=parts)
    s.bullets = len(_BULLET.findall(text))
    s.numbered = len(_NUMBERED.findall(text))
    s.headers = len(_HEADER.findall(text))
    s.code_blocks = len(_CODE_BLOCK.findall(text)) // 2
    s.inline_code = len(_INLINE_CODE.findall(text))
    s.bold = len(_BOLD.findall(text))
    s.emoji = len(found_emoji)
    s.exclamations = text.count("!")
    s.questions = sum(1 for p in parts if p.rstrip().endswith("?"))
    s.greeting = bool(GREETING.search(text))
    s.closing = bool(CLOSING.search(text[-160:]))
    s.hedges = _count(HEDGES, text)
    s.contractions = _count(CONTRACTION, text)
    s.formal = _count(FORMAL, text)
    s.informal = _count(INFORMAL, text)
    s.humor = _count(HUMOR, text) + sum(1 for e in found_emoji if e in "😂🤣😄😆😜😉🙃😅")
    s.warm = _count(WARM, text)
    s.cold = _count(COLD, text)
    s.technical = _count(TECHNICAL, text) + 2 * (s.code_blocks + s.inline_code)
    s.collaborative = _count(COLLABORATIVE, text)
    s.advisory = _count(ADVISORY, text)
    s.teaching = _count(TEACHING, text)
    s.servile = _count(SERVILE, text)
    s.pleasantries = _count(PLEASANTRIES, text)
    s.boilerplate = _count(BOILERPLATE, text)
    s.experience = _count(EXPERIENCE, text)
    s.metaphor = _count(METAPHOR, text)
    s.imperatives = sum(1 for p in parts if IMPERATIVE_START.search(p))
    s.shouting = len(_SHOUT.findall(text))
    s.positive = _count(POSITIVE, text)
    s.negative = _count(NEGATIVE, text)
    s.second_person = _count(_SECOND, text)
    s.first_person = _count(_FIRST, text)
    return s


def impersonal(s: Style) -> bool:
    """Several sentences about the topic and none to the person: no you, I or we."""
    return s.sentences >= 3 and s.words >= 25 and not (s.second_person or s.first_person or s.collaborative)


def _clamp(x: float) -> float:
    return max(0.0, min(1.0, x))


def estimate_traits(s: Style) -> dict[str, float]:
    """The six built-in traits of one text, 0..1. 0.5 is 'nothing either way'."""
    n = s.sentences
    hedging = s.per_sentence(s.hedges)
    directness = 0.6 + 0.35 * s.per_sentence(s.imperatives) - 0.55 * hedging - 0.15 * s.per_sentence(s.questions)
    directness -= 0.1 * s.per_sentence(s.pleasantries + s.servile)
    formal_balance = (
        s.formal + 0.5 * s.boilerplate - s.informal - 0.5 * s.contractions - 0.5 * s.emoji - 0.3 * s.exclamations
    ) / n
    if s.sentences >= 2 and s.words >= 15 and not s.contractions:  # "It is", "do not": written, not said
        formal_balance += 0.4
    formality = 0.5 + 0.45 * math.tanh(1.5 * formal_balance)
    humor = 0.15 + 0.85 * math.tanh(1.2 * s.per_sentence(s.humor + 0.5 * s.emoji))
    warm_balance = (
        s.warm + 0.5 * s.positive + 0.3 * s.collaborative - 1.5 * s.cold - 0.5 * s.negative - 0.5 * s.boilerplate
    ) / n
    if impersonal(s):
        warm_balance -= 0.3
    warmth = 0.45 + 0.5 * math.tanh(1.6 * warm_balance)
    technical = 0.1 + 0.9 * math.tanh(6.0 * s.per_word(s.technical))
    return {
        "directness": _clamp(directness),
        "formality": _clamp(formality),
        "verbosity": length_score(s.words),
        "humor": _clamp(humor),
        "warmth": _clamp(warmth),
        "technical_depth": _clamp(technical),
    }


def voice_markers(s: Style) -> dict[str, float]:
    """Voice markers the text shows, each with how strongly (0..1)."""
    found = {
        "collaborative ('let's', 'we')": s.per_sentence(s.collaborative),
        "hedges (maybe, perhaps, I think)": s.per_sentence(s.hedges),
        "plain statements, no hedging": 1.0 if s.hedges == 0 and s.sentences >= 2 else 0.0,
        "asks follow-up questions": s.per_sentence(s.questions),
        "uses contractions": min(1.0, s.per_word(s.contractions) * 12),
        "formal vocabulary": s.per_sentence(s.formal),
        "casual vocabulary": s.per_sentence(s.informal),
        "humour": s.per_sentence(s.humor),
        "empathetic acknowledgement": s.per_sentence(s.warm),
        "technical vocabulary": min(1.0, s.per_word(s.technical) * 8),
        "metaphors and analogies": s.per_sentence(s.metaphor),
        "references experience": s.per_sentence(s.experience),
        "imperative, step-by-step advice": s.per_sentence(s.imperatives),
        "pleasantries (great question, hope this helps)": s.per_sentence(s.pleasantries),
        "assistant boilerplate (as an AI, I am unable)": s.per_sentence(s.boilerplate),
        "exclamations": s.per_sentence(s.exclamations),
        "curt or dismissive phrasing": s.per_sentence(s.cold),
    }
    return {k: min(1.0, v) for k, v in found.items() if v > 0}


def relational_stances(s: Style) -> dict[str, float]:
    """How the text positions the agent relative to the user."""
    found = {
        "peer-to-peer collaborator": s.per_sentence(s.collaborative),
        "advisor": s.per_sentence(s.advisory + 0.5 * s.imperatives),
        "friend": s.per_sentence(s.warm + 0.5 * s.humor),
        "teacher": s.per_sentence(s.teaching),
        "deferential servant": s.per_sentence(s.servile),
        "distant, impersonal": s.per_sentence(s.boilerplate) + (0.5 if impersonal(s) else 0.0),
        "dismissive": s.per_sentence(s.cold),
    }
    return {k: min(1.0, v) for k, v in found.items() if v > 0}


def formatting_prefs(s: Style) -> dict[str, float]:
    found = {
        "bullet lists": 1.0 if s.bullets >= 2 else 0.0,
        "numbered steps": 1.0 if s.numbered >= 2 else 0.0,
        "markdown headers": 1.0 if s.headers else 0.0,
        "code snippets": 1.0 if s.code_blocks or s.inline_code else 0.0,
        "bold emphasis": 1.0 if s.bold else 0.0,
        "emoji": 1.0 if s.emoji else 0.0,
        "plain paragraphs": 1.0 if not (s.bullets or s.headers or s.code_blocks) else 0.0,
        "opens with a greeting": 1.0 if s.greeting else 0.0,
        "closes with an offer or sign-off": 1.0 if s.closing else 0.0,
        "short replies (under 60 words)": 1.0 if s.words < 60 else 0.0,
        "long replies (over 150 words)": 1.0 if s.words > 150 else 0.0,
    }
    return {k: v for k, v in found.items() if v > 0}


def emotional_register(s: Style) -> str:
    if s.cold and s.cold >= s.warm:
        return "curt"
    if s.warm and s.negative:
        return "empathetic"
    if s.exclamations >= 2 and s.positive:
        return "enthusiastic"
    if s.positive > s.negative:
        return "upbeat"
    if s.negative > s.positive:
        return "sombre"
    return "calm, neutral"


# A reply's voice as its habits, each 0..1: what a burst of replies unlike the agent's own is told
# by (judge.own_voice_departures), whatever the persona's words say of it. The rates are scaled so
# that a chat reply's usual range spans most of 0..1.
OWN_VOICE = (
    "directness",
    "formality",
    "verbosity",
    "humor",
    "warmth",
    "technical_depth",
    "emoji",
    "exclamations",
    "questions",
    "shouting",
    "contractions",
    "casual vocabulary",
    "formal vocabulary",
    "pleasantries",
    "curt phrasing",
    "figures",
    "sentence length",
    "to the listener",
    "about itself",
)
_DIGIT = re.compile(r"\d")


def own_voice(text: str) -> list[float]:
    """The reply's place on each of OWN_VOICE's habits, in that order."""
    s = measure(text)
    rates = {
        "emoji": s.per_word(s.emoji) * 5,
        "exclamations": s.per_sentence(s.exclamations),
        "questions": s.per_sentence(s.questions),
        "shouting": s.per_word(s.shouting) * 5,
        "contractions": s.per_word(s.contractions) * 8,
        "casual vocabulary": s.per_sentence(s.informal),
        "formal vocabulary": s.per_sentence(s.formal),
        "pleasantries": s.per_sentence(s.pleasantries),
        "curt phrasing": s.per_sentence(s.cold),
        "figures": s.per_word(len(_DIGIT.findall(text))) * 5,
        "sentence length": s.per_sentence(s.words) / 30,
        "to the listener": s.per_word(s.second_person) * 8,
        "about itself": s.per_word(s.first_person) * 8,
    }
    habits = {**estimate_traits(s), **{name: _clamp(rate) for name, rate in rates.items()}}
    return [round(habits[name], 4) for name in OWN_VOICE]
