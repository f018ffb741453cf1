"""Cue detection: is a sentence a preference, a decision, an emotion, a relationship or a fact,
how much does it matter (HIGH/MED/LOW, seed 002 5.6's priority guide), or is it small talk?

Lexical rules over a sentence, no model: the offline provider's Observer. They are
written for first-person chat ("I love...", "we decided...", "my sister...") and
miss what needs world knowledge or irony; the anthropic provider does that job better.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from agentmemd.memory.core.text import content_words

Category = Literal["fact", "preference", "decision", "emotional", "relational"]
Priority = Literal["HIGH", "MED", "LOW"]
CATEGORIES: tuple[str, ...] = ("fact", "preference", "decision", "emotional", "relational")
PRIORITIES: tuple[str, ...] = ("HIGH", "MED", "LOW")


def _rx(*parts: str) -> re.Pattern[str]:
    return re.compile("|".join(parts), re.IGNORECASE)


FIRST_PERSON = _rx(r"\b(i|i'm|i've|i'd|i'll|me|my|mine|myself|we|we're|we've|we'll|us|our|ours)\b")
SECOND_PERSON = _rx(r"\b(you|you're|you've|you'll|your|yours|yourself)\b")
PREFERENCE = _rx(
    r"\b(i|we)\s+(really\s+|absolutely\s+|just\s+|totally\s+|still\s+|also\s+|do(n't)?\s+|definitely\s+)?"
    r"(love|like|enjoy|adore|prefer|hate|dislike|detest|can't stand|cannot stand|am into|'m into)\b",
    r"\b(my|our)\s+(absolute\s+|all-time\s+)?(favou?rite|fave|go-to)\b",
    r"\b(i'm|i am|we're|we are)\s+(a\s+)?(big\s+|huge\s+|massive\s+|not\s+a\s+)?"
    r"(fan of|into|passionate about|obsessed with|hooked on|allergic to)\b",
    r"\b(i|we)\s+(no longer|don't|do not|never)\s+(like|eat|drink|enjoy|want)\b",
    r"\b(changed my mind|switched to|went vegan|went vegetarian)\b",
    r"\b(i'd|i would|we'd|we would)\s+(really\s+|absolutely\s+)?love\b",
    r"\b(i'm|i am|we're|we are)\s+(really\s+|so\s+|very\s+)?(keen on|fond of|drawn to)\b",
)
DECISION = _rx(
    r"\b(i|we)('ve|\s+have)?\s+(just\s+|finally\s+|officially\s+)?(decided|chose|chosen|picked|committed|signed up|"
    r"enrolled|applied|registered|booked|quit|resigned|accepted|agreed|made up my mind|settled on)\b",
    r"\b(i'm|i am|we're|we are)\s+(now\s+|finally\s+|really\s+)?(going to|gonna|planning|thinking (about|of)|"
    r"about to|starting|moving|leaving|switching|taking up|looking into|considering)\b",
    r"\b(i|we)\s+(will|'ll|plan to|intend to|want to|hope to|aim to|need to|have to)\b",
    r"\b(i'll|we'll)\b",
    r"\bmy\s+(plan|goal|decision|dream|aim)\b",
)
# What an agent's own reply holds that is worth an observation: what it undertakes or did ("I'll
# remind you on Friday", "I've booked the table"). What it says of the user or the world ("your
# flight is on March 3") is not evidence of what is true: a reply it got wrong would come back as memory.
AGENT_UNDERTAKES = _rx(
    r"^(i'll|i will|i'm going to|i am going to|let me|i've|i have|i just)\s+(\w+\s+)?"
    r"(remind|set|add|added|book|booked|schedule|scheduled|save|saved|create|created|send|sent|make|made|put|"
    r"move|moved|cancel|cancell?ed|order|ordered|reserve|reserved|check|checked|call|email|emailed|text|texted|"
    r"follow up|look into|write|wrote|draft|drafted|update|updated|note|track|keep track)\b"
)
# A correction ("No, the flight is on March 5, not March 3", "sorry, I meant Tuesday"): it outranks
# what it corrects, which is often the agent's mistake or the speaker's own slip.
CORRECTION = _rx(
    r"\bi meant\b",
    r"\bi never said\b",
    r"\b(that's|that is|this is|it's|it is)\s+(wrong|not right|not true|incorrect)\b",
    r"\b\w+,\s*not\s+(?!(bad|yet|really|sure|much|at all|too|so|quite|now|that|even|exactly|always|only)\b)"
    r"(on\s+|at\s+|in\s+|the\s+)?\w+",
)
EMOTION_WORDS = (
    "happy|happier|happiest|sad|excited|exciting|thrilled|proud|grateful|thankful|anxious|nervous|stressed|stressful|"
    "overwhelmed|overwhelming|scared|afraid|worried|lonely|depressed|upset|angry|mad|frustrated|frustrating|relieved|"
    "heartbroken|devastated|hopeful|inspired|inspiring|accepted|loved|blessed|exhausted|burned out|burnt out|"
    "joy|joyful|fulfilled|fulfilling|content|peaceful|calm|grief|grieving|hurt|hurting|tough|hard time|struggling|"
    "amazing|awesome|fantastic|wonderful|terrible|awful|bummed|bummer|disappointed|disappointing|"
    "motivated|empowered|empowering|free|alive|at peace|emotional|overjoyed|ecstatic|rough|painful|comforting|"
    "cozy|special|meaningful|powerful|touched|moved|love"
)
EMOTIONAL = _rx(
    r"\b(i|we)\s+(feel|felt|was|were|am|'m|'re|are|get|got|have been|'ve been)\s+(so\s+|really\s+|very\s+|super\s+|"
    r"pretty\s+|totally\s+|a bit\s+|kind of\s+|kinda\s+|quite\s+|incredibly\s+)?(" + EMOTION_WORDS + r")\b",
    r"\b(made|makes|make|making)\s+(me|us)\s+(feel|so|really|very)?\s*\w*",
    r"\bmy\s+(heart|feelings|mood|anxiety|stress|mental health)\b",
    r"\b(it|that|this)\s+(was|is|has been|felt)\s+(so\s+|really\s+|very\s+|super\s+)?("
    + EMOTION_WORDS
    + r")\b.*\b(me|my|i)\b",
)
KIN = (
    "mom|mother|mum|dad|father|parents?|husband|wife|partner|spouse|boyfriend|girlfriend|fianc[eé]e?|son|daughter|"
    "kids?|children|child|baby|babies|brother|sister|siblings?|grandma|grandmother|grandpa|grandfather|grandparents?|"
    "family|friends?|best friend|bff|cousins?|aunt|uncle|niece|nephew|neighbou?rs?|boss|co-?workers?|colleagues?|"
    "mentor|roommates?|teammates?|classmates?|dog|cat|pets?|puppy|kitten|in-laws"
)
RELATIONAL = _rx(
    r"\b(my|our)\s+(\w+\s+)?(" + KIN + r")\b",
    r"\b(i|we)('ve|\s+have|'re|\s+are|\s+got|\s+just got|\s+were|\s+was)?\s+(married|divorced|engaged|dating|"
    r"broke up|separated|adopted|pregnant|widowed)\b",
    r"\b(i|we)\s+(met|miss|missed|visited|called|texted)\s+(my|our)\b",
)
# Identity-relevant facts (HIGH by the priority guide): who the person is, where they live, what they do.
IDENTITY = _rx(
    r"\bmy name is\b|\bcall me\b",
    r"\b(i'm|i am)\s+(a|an)\s+(\w+\s+){0,2}(woman|man|person|mother|father|mom|dad|teacher|nurse|doctor|engineer|"
    r"student|artist|writer|developer|designer|counsel+or|veteran|vegan|vegetarian|christian|muslim|jewish|"
    r"transgender|trans|gay|lesbian|bisexual|single parent|\w+ist|\w+er|\w+or)\b",
    r"\b(i|we)\s+(work|worked|live|lived|grew up|was born|were born|moved|retired|graduated|studied|study)\s+"
    r"(as|at|in|to|from|for)\b",
    r"\b(i'm|i am)\s+(\d{2}|twenty|thirty|forty|fifty|sixty|seventy)\b",
    r"\b(i|we)\s+(have|got)\s+(a|an|two|three|four|\d+)\s+(\w+\s+)?(kids?|children|sons?|daughters?|dogs?|cats?)\b",
)
LIFE_EVENTS = _rx(
    r"\b(married|divorced|engaged|pregnant|passed away|died|born|adopt\w*|funeral|wedding|"
    r"diagnos\w+|surgery|hospital|graduat\w+|promotion|promoted|fired|laid off|lost my job)\b"
)
PAST_EVENT = _rx(
    r"\b(i|we)\s+(just\s+|finally\s+|recently\s+|also\s+|actually\s+)?(went|started|finished|"
    r"made|got|bought|took|visited|joined|ran|won|lost|saw|read|wrote|painted|built|learned|learnt|"
    r"tried|met|found|had|did|gave|attended|traveled|travelled|hiked|played|created|volunteered|"
    r"launched|opened|baked|cooked|signed|received|completed|organized|organised|hosted|"
    r"participated|performed|spoke|taught|adopted|published|released|bought|sold|celebrated)\b"
)
SMALL_TALK = _rx(
    r"^(hi|hey|hello|yo|thanks|thank you|thx|bye|goodbye|see ya|see you|take care|cheers|congrats|congratulations|"
    r"wow|whoa|cool|nice|great|awesome|amazing|lol|haha+|yeah|yep|yes|no|nope|ok|okay|sure|totally|definitely|"
    r"absolutely|exactly|same|good (luck|night|morning)|you too|me too|glad|sounds good|(that|it) (sounds|looks) "
    r"(great|good|wonderful|amazing|awesome|lovely|fun|nice|cool|fantastic|exciting)|that's (great|awesome|"
    r"amazing|cool|so cool|wonderful|fantastic|true|right)|so (true|cool)|oh+|aww+|omg)\b[^.?!]{0,40}[.!?]*$"
)
# An interjection opening a sentence, with the name it calls ("Hey Ana, ..."; a name is capitalised,
# so "So sah der Gasthof früher aus" keeps its verb). "So", "well" and "man" are words of other
# languages and of plain English too ("Man sagt", "So I think"): only with a comma or a stop after them.
_NAME = r"(?:,?\s+(?-i:[A-Z][a-z]+))?"
_LEADING_FILLER = re.compile(
    r"^((?:(?:hey|hi|hello|wow|whoa|oh|ooh|aww|haha+|lol|yeah|yep|yes|um+|uh+|hmm+|thanks|thank you|"
    r"omg|ah+|gosh|dude|totally|definitely|absolutely|honestly|actually|by the way|btw|anyway)"
    rf"{_NAME}[,!.:\-–— ]+|(?:so|well|man){_NAME}[,!.:\-–—]+)\s*)+",
    re.IGNORECASE,
)
# Not "so": "so much", "so that" and "I think so too" lose their sense without it.
_FILLER_WORDS = re.compile(
    r"\b(really|just|pretty|totally|super|actually|basically|literally|kinda|kind of)\s+", re.IGNORECASE
)


@dataclass(frozen=True)
class Cue:
    category: Category
    priority: Priority
    information: int  # content words + named things + numbers: how much the sentence says
    text: str  # the sentence condensed (see condense)


def information(sentence: str) -> int:
    words = content_words(sentence)
    names = len(re.findall(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]{2,}", sentence))
    numbers = len(re.findall(r"\b\d+\b", sentence))
    return len(words) + names + numbers


def _small_talk(condensed: str) -> bool:
    return information(condensed) < 2 or (bool(SMALL_TALK.match(condensed)) and len(content_words(condensed)) <= 3)


def classify(sentence: str, *, dated: bool = False) -> Cue | None:
    """The sentence's cue, or None when it says nothing worth an observation.

    ``dated``: the sentence names a date (an event placed in time is worth keeping).
    """
    s = condense(sentence)
    corrects = bool(CORRECTION.search(sentence)) and information(s) >= 2
    if _small_talk(s) and not corrects:
        return None
    info = information(s)
    first_person = bool(FIRST_PERSON.search(s))
    question = s.endswith("?")
    if question and not first_person:
        return None  # asking about the other person tells us nothing yet; their answer will
    category: Category
    if DECISION.search(s):
        category = "decision"
    elif PREFERENCE.search(s):
        category = "preference"
    elif RELATIONAL.search(s):
        category = "relational"
    elif first_person and EMOTIONAL.search(s):
        category = "emotional"
    else:
        category = "fact"
    identity = bool(IDENTITY.search(s))
    if question:
        priority: Priority = "LOW"
    elif corrects:
        priority = "HIGH"
    elif identity or (category == "relational" and LIFE_EVENTS.search(s)):
        priority = "HIGH"
    elif category in ("preference", "decision", "emotional"):
        # A bare "I'd love to!" or "I'll do my best" says too little to outrank a fact.
        priority = "HIGH" if info >= (3 if category == "emotional" else 4) else "MED"
    elif first_person and (PAST_EVENT.search(s) or dated or LIFE_EVENTS.search(s) or category == "relational"):
        priority = "MED"
    elif first_person and info >= 5:
        priority = "MED"
    elif info >= 4 and not SECOND_PERSON.search(s):
        priority = "LOW"
    else:
        return None  # remarks about the listener ("you're so kind") and generic comments
    return Cue(category=category, priority=priority, information=info, text=s)


_TRAILING_CLAUSE = re.compile(r"\s*(,\s*(which|but|'cause|because|since|so|as)\b|\s[-–—]\s|;\s).*$", re.IGNORECASE)


def main_clause(sentence: str) -> str:
    """The sentence up to its first trailing clause ("I love camping, 'cause nature..." -> "I love camping")."""
    cut = _TRAILING_CLAUSE.sub("", sentence).rstrip(" ,")
    return cut if len(cut.split()) >= 4 else sentence


def condense(sentence: str) -> str:
    """The sentence without leading interjections and filler adverbs ("Wow, I really love it!" -> "I love it!")."""
    s = _LEADING_FILLER.sub("", sentence.strip())
    s = _FILLER_WORDS.sub("", s)
    s = " ".join(s.split())
    if not s:
        return sentence.strip()
    return s[0].upper() + s[1:]
