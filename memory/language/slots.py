"""Fact slots: the things about a person that hold one value at a time (where they live, where
they work, who they report to, who their partner is, whom they work with or back, how many children
they have, what they drive,
their name, phone number, e-mail address, diet, what a membership or subscription costs), recognised
in questions and in memories by cue patterns, no model. Which slot of whom a memory fills is
recorded when it is stored (memory/store/slot_tables.py).

A person says what changed without saying what it replaces ("We finally got the keys to the new
place in Leeds", a year after "The user lives in Berlin"), and a model that stores it with
memory.add instead of memory.update leaves both live. The two share no word, and search finds
"where do I live?" far nearer the old one (similarity 0.63 against 0.05). What ties them is what they
are: both fill the residence slot of the same person. A question about that slot in the present
wants the newest memory filling it (memory/retrieval/currency.py, ``[retrieval] slot_share``).

* ``asked_slots(question)``: the (slot, subject) pairs a question asks for.
* ``filled_slots(text)``: the (slot, subject) pairs a memory fills.
* ``mentions_the_past(question)``: a past tense, a year, "before": the old value may be the answer.

A subject is ``"self"`` (the person the agent serves: "I", "we", "the user", a turn said by
"user"), ``"agent"`` (the agent: "you" in a question put to it, "I" in its own turns), a name in
lower case ("caroline", for "Caroline said: I moved to Leeds" or "Where does Caroline live?") or a
relation ("my sister"); a statement about someone else ("My sister moved to Rome") does not answer
where I live, and an assistant's "you" ("assistant: you live in ...") fills nothing: the user's
facts are the user's to state. A relation that holds both ways (an ally) is filled for its other
side too: "Tomas said: I'm with you now" fills Tomas's ally slot and the user's. English first; residence, workplace, name and partner also in German, French, Spanish,
Portuguese and Italian first-person forms ("Ich wohne in", "je travaille chez", "me llamo", "mi
novia se llama"), and
asked of someone named in those languages ("¿Dónde vive Lucía?"). A name is a capitalised word,
accented Latin letters included ("Lucía", "Łukasz").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from agentmemd.memory.core.text import STOPWORDS, words
from agentmemd.memory.language.speakers import ASSISTANT_SPEAKERS, USER_SPEAKERS, split_speaker

SLOTS: tuple[str, ...] = (
    "residence",
    "workplace",
    "manager",
    "partner",
    "ally",
    "children",
    "vehicle",
    "name",
    "phone",
    "email",
    "diet",
    "subscription",
)
SELF = "self"
AGENT = "agent"  # the agent itself: "you" in a question put to it, "I" in its own turns

# A capitalised word, whatever the pattern's case; Latin letters with accents too ("Lucía", "Łukasz").
_NAME = r"(?-i:[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿĀ-ž]+)"
_KIN = (
    r"(?:mom|mother|mum|dad|father|parents|husband|wife|partner|boyfriend|girlfriend|fianc[eé]?e?|son|daughter|"
    r"kids|children|brother|sister|grandma|grandmother|grandpa|grandfather|friend|best friend|cousin|aunt|uncle|"
    r"niece|nephew|neighbou?r|boss|colleague|roommate|flatmate|dog|cat)"
)
# Who a question asks about: the asker, a name, a relation; "you" (the agent) and a bare pronoun
# name no one the rule can match.
# A person asked about by name, a surname with it ("Lucía Gómez": not "Lucía Pérez").
_PERSON = rf"{_NAME}(?: {_NAME})?"
_WHO = rf"(?P<who>i|we|the user|user|you|he|she|they|(?:my|our) {_KIN}|{_PERSON})"
_NAMED = rf"(?P<who>{_PERSON})"  # someone named, in a question of another language
_WHOSE = rf"(?P<who>my|our|the user's|user's|your|his|her|their|(?:my|our) {_KIN}'s|{_PERSON}'s)"
_FLAGS = re.IGNORECASE
# Statements are matched with ASCII word boundaries: Unicode ones made each pattern 5-10x slower
# over a long text (a pattern next to a non-ASCII letter is written without one).
_TEXT_FLAGS = re.IGNORECASE | re.ASCII


def _listed(listed: str) -> tuple[str, ...]:
    return tuple(listed.split(", "))


@dataclass(frozen=True)
class _Slot:
    said: tuple[str, ...]  # predicates; the subject is the words before them, or their own `who` group
    first_person: tuple[str, ...]  # statements whose wording says the speaker ("call me Alex", "je m'appelle")
    asked: tuple[str, ...]  # questions, with a `who` group (none: the asker)
    keys: tuple[str, ...]  # word starts (lower case, words apart), one of which each statement holds: a fast pass
    # What of the slot's kind a text names (the gym of "my gym membership"), a group ``item``: a
    # person holds several at once, and one named for another thing does not answer (names_another).
    item: str | None = None
    # A relation that holds both ways (an alliance): a statement's other side (a group ``other``, "you"
    # or a name; "you" for a first-person one, "you and me") fills the slot too (_other_side).
    mutual: bool = False


_DEFINITIONS: dict[str, _Slot] = {
    "residence": _Slot(
        said=(
            r"\b(?:live|lives|living|reside|resides|residing)(?: now| currently| still)? (?:in|at|near|on)\b",
            r"\b(?:moved|relocated)(?: back| over| out)? (?:in ?to|to|in with|in|across to)\b",
            r"\bgot the keys (?:to|for)\b",
            r"\b(?:bought|rented|rent|renting|signed for|found) (?:a|an|the|our|my) (?:new )?"
            r"(?:house|flat|apartment|place|home|condo|studio)\b",
            r"\b(?:based|settled) in\b",
            rf"\b(?P<who>my|our|{_NAME}'s) (?:new |current |home )?address\b",
            r"\b(?P<who>my|our) new (?:place|flat|apartment|house|home|neighbou?rhood)\b",
            r"\bthe (?:movers|removal (?:men|van|company)) (?:came|arrived|finished|left|unloaded|have)\b",
            r"\b(?:moving day|moved house|unpacking (?:the|our|my) boxes)\b",
        ),
        first_person=(
            r"\b(?:ich wohne|wir wohnen|ich lebe|wir leben) (?:jetzt |nun |seit \w+ )?(?:in|bei)\b",
            r"\b(?:ich bin|wir sind)\b[^.!?]{0,60}\b(?:umgezogen|gezogen)\b",
            r"\b(?:j'habite|nous habitons|on habite|je vis|nous vivons)\b|\b(?:j'ai|nous avons|on a) d[ée]m[ée]nag",
            r"\b(?:vivo en|vivimos en|nos mudamos|me he mudado|nos hemos mudado)\b|\bme mud[ée]",
            r"\b(?:moro em|moro no|moro na|moramos em|me mudei|mudei-me|mudamos para)\b",
            r"\b(?:abito a|abitiamo a|vivo a|viviamo a|mi sono trasferit[oa]|ci siamo trasferiti)\b",
        ),
        asked=(
            rf"\bwhere (?:do|does|am|are|is) {_WHO} (?:\w+ )?(?:live|living|based|reside|residing|staying|call home)\b",
            rf"\bwhere {_WHO} (?:now |currently )?(?:live|lives|reside|resides|am living|'m living|am based)\b",
            rf"\bwhat(?:'s| is) {_WHOSE} (?:current |home |new |postal )*address\b",
            rf"\b(?:which|what) (?:city|town|country|neighbou?rhood|area|street|part of town) (?:do|does|am|are|is) "
            rf"{_WHO} (?:\w+ )?(?:live|living|based|in)\b",
            rf"\bwhere(?:'s| is) {_WHOSE} (?:home|place|flat|apartment|house)\b",
            r"\bwo (?:wohne ich|wohnen wir|lebe ich|leben wir)\b",
            r"\bo[uù] (?:est-ce que )?(?:j'habite|nous habitons|je vis|habite-je|vis-je)\b",
            r"\bd[oó]nde (?:vivo|vivimos)\b",
            r"\bonde (?:eu )?(?:moro|vivo|moramos)\b",
            r"\bdove (?:abito|vivo|abitiamo)\b",
            # someone named, in the languages the statements are read in ("¿Dónde vive Lucía?")
            rf"\b(?:d[oó]nde vive|wo (?:wohnt|lebt)|o[uù] (?:habite|vit)|onde (?:mora|vive)|dove (?:abita|vive)) "
            rf"(?:(?-i:[ao]) )?{_NAMED}",
        ),
        keys=_listed(
            "liv, resid, moved, relocat, keys, bought, rent, signed for, found, based in, settled in, address, "
            "my new, our new, movers, removal, moving day, moved house, unpacking, wohn, lebe, gezogen, umgezogen, habit, je vis, vivons, déménag, viv, mud, moro, moramos, "
            "abit, trasferit"
        ),
    ),
    "workplace": _Slot(
        said=(
            r"\b(?:work|works|working)(?: now| currently| still| full-time| part-time)? "
            r"(?:at|as(?! a team\b)|for(?! (?:me|you|us|everyone|everybody|them|him|her|all)\b))\b",
            r"\b(?:started|start|starting|began)(?: at| with)? (?:a |my |the )?new "
            r"(?:job|role|position|firm|company|employer|office|team|workplace)\b",
            rf"\bstarted (?:work )?(?:at|with) {_NAME}\b",
            r"\bjoined (?:[\w&'-]+ ){1,4}as (?:a|an|the)\b",
            r"\b(?:hired|employed) (?:by|at|as)\b",
            # "got a job offer" is not the job taken: an offer counts only accepted or taken.
            r"\b(?:got|landed|accepted|took) (?:a|the|an) (?:new )?(?:job|position|role)\b(?! offers?\b)",
            r"\b(?:accepted|took) (?:a|the|an|their|his|her) (?:new )?(?:job )?offer\b",
            r"\b(?P<who>my|our) first day (?:at|of) ",
            r"\bfirst (?:day|week|month|shift) (?:at|with) (?-i:[A-Z])",
            r"\b(?:quit|left|lost) (?:my|the|our) job\b",
            r"\b(?:resigned|got laid off|was laid off|were laid off|got fired|was fired|retired)\b",
            r"\bpromoted to\b",
            r"\b(?P<who>my|our) new (?:job|employer|company|firm|role|position|workplace|office)\b",
            r"\b(?P<who>my) (?:job|employer|workplace|role|position) (?:is|at|as)\b",
        ),
        first_person=(
            r"\b(?:ich arbeite|wir arbeiten) (?:jetzt |nun |seit \w+ )?(?:bei|als|f(?:ü|ue)r|in)\b",
            r"\b(?:je travaille|nous travaillons) (?:maintenant )?(?:chez\b|à |pour\b|comme\b|dans\b)",
            r"\b(?:trabajo|trabajamos) (?:ahora )?(?:en|para|como)\b",
            r"\b(?:trabalho|trabalhamos) (?:agora )?(?:na|no|em|para|como)\b",
            r"\b(?:lavoro|lavoriamo) (?:ora )?(?:a|per|come|presso|da)\b",
        ),
        asked=(
            rf"\bwhere (?:do|does|am|are|is) {_WHO} (?:\w+ )?(?:work|working|employed)\b",
            rf"\bwhere {_WHO} (?:now |currently )?(?:work|works|am working|'m working)\b",
            rf"\bwho (?:do|does|am|are|is) {_WHO} (?:\w+ )?(?:work(?:ing)? for|employed by)\b",
            rf"\bwhat (?:do|does) {_WHO} do for (?:a living|work|money)\b",
            rf"\bwhat(?:'s| is) {_WHOSE} (?:current |new |present )*(?:job|job title|role|occupation|profession|"
            rf"employer|position|company|workplace|line of work)\b",
            rf"\b(?:which|what) (?:company|firm|employer|organi[sz]ation|business) (?:do|does|am|are|is) {_WHO} "
            rf"(?:\w+ )?(?:work|working|employed|with|at)\b",
            r"\bwo arbeite (?:ich|wir)\b",
            r"\bo[uù] (?:est-ce que )?(?:je travaille|travaille-je)\b",
            r"\bd[oó]nde trabajo\b",
            r"\bonde (?:eu )?trabalho\b",
            r"\bdove lavoro\b",
            rf"\b(?:d[oó]nde trabaja|wo arbeitet|o[uù] travaille|onde trabalha|dove lavora) (?:(?-i:[ao]) )?{_NAMED}",
        ),
        keys=_listed(
            "work, start, began, joined, hired, employed, job, position, role, offer, first day, first week, "
            "first month, first shift, resigned, "
            "laid off, fired, retired, promoted, my new, our new, employer, arbeit, travaill, trabaj, trabalh, "
            "lavor"
        ),
    ),
    "partner": _Slot(
        said=(
            rf"\b(?P<who>my|our) (?:new |current )?(?:girlfriend|boyfriend|partner|wife|husband|fianc[eé]?e?|spouse),? "
            rf"{_NAME}\b",
            r"\b(?P<who>my) new (?:girlfriend|boyfriend|partner)\b",
            rf"\b(?P<who>my|our) (?:new |current )?(?:girlfriend|boyfriend|partner|wife|husband|fianc[eé]?e?|spouse)"
            rf"(?:'s name)? is (?:called |named )?{_NAME}\b",
            rf"\b(?:dating|seeing|married to|engaged to|going out with|moved in with|in a relationship with) {_NAME}\b",
            r"\b(?:married|engaged|divorced|single|separated|broke up|split up)\b",
            rf"\bthings with {_NAME} (?:are|have been) (?:going |getting )?(?:\w+ )?(?:well|great|good|serious)\b",
            rf"\b{_NAME} and (?:i|me) (?:are|have been) (?:dating|together|seeing each other|official|a couple)\b",
        ),
        # A partner named in German, French, Spanish, Portuguese and Italian: "mi novia se llama Lena",
        # "meine Freundin heißt Lena", "je sors avec Lena" (a partner only praised names no one; German
        # "ist" is left out, its nouns being capitalised: "Mein Mann ist Arzt").
        first_person=(
            rf"\b(?:meine|mein) (?:neue[rn]? )?(?:freundin|freund|partnerin|partner|frau|mann|verlobter?|ehefrau|"
            rf"ehemann) hei(?:ß|ss)t {_NAME}|\bich (?:bin mit {_NAME} zusammen|date {_NAME}|habe {_NAME} "
            rf"geheiratet)\b",
            rf"\b(?:ma|mon) (?:nouvel?l?e? )?(?:copine|copain|petite amie|petit ami|femme|mari|compagne|compagnon|"
            rf"partenaire|fianc[ée]e?) (?:s'appelle|est) {_NAME}|\bje sors avec {_NAME}|\bj'ai [ée]pous[ée] {_NAME}",
            rf"\bmi (?:nuev[oa] )?(?:novi[oa]|pareja|espos[oa]|marido|prometid[oa]) (?:se llama|es) {_NAME}|"
            rf"\b(?:estoy saliendo con|salgo con|me cas[ée] con) {_NAME}",
            rf"\b(?:minha|meu) (?:nov[oa] )?(?:namorad[oa]|espos[oa]|mulher|marido|companheir[oa]|noiv[oa]) "
            rf"(?:se chama|chama-se|(?:é|e)) {_NAME}|\b(?:estou namorando(?: com)?|namoro com|casei com) {_NAME}",
            rf"\b(?:la mia|il mio|mia|mio) (?:nuov[oa] )?(?:ragazz[ao]|fidanzat[ao]|moglie|marito|compagn[ao]) "
            rf"(?:si chiama|(?:è|e)) {_NAME}|\b(?:sto con|esco con|ho sposato) {_NAME}",
        ),
        asked=(
            rf"\bwho(?:'s| is) {_WHOSE} (?:current |new )*(?:partner|girlfriend|boyfriend|wife|husband|spouse|"
            rf"fianc[eé]?e?|significant other|other half)\b",
            rf"\bwho (?:am|is|are) {_WHO} (?:\w+ )?(?:dating|seeing|married to|engaged to|going out with|"
            rf"in a relationship with)\b",
            rf"\b(?:am|is|are) {_WHO} (?:\w+ )?(?:married|single|dating|engaged|seeing (?:anyone|someone)|"
            rf"in a relationship)\b",
            rf"\bwhat(?:'s| is) {_WHOSE} (?:current )?relationship status\b",
            rf"\bwhat(?:'s| is) {_WHOSE} (?:current |new )*(?:partner|girlfriend|boyfriend|wife|husband|spouse|"
            rf"fianc[eé]?e?)(?:'s|’s) name\b",
            r"\b(?:wie hei(?:ß|ss)t|wer ist) (?:meine|mein) (?:freundin|freund|partnerin|partner|frau|mann|verlobter?)\b"
            r"|\bmit wem bin ich zusammen\b",
            r"\b(?:comment s'appelle|qui est) (?:ma|mon) (?:copine|copain|petite amie|petit ami|femme|mari|compagne|"
            r"compagnon|partenaire|fianc[ée]e?)\b|\bavec qui (?:je sors|est-ce que je sors)\b",
            r"\b(?:c[oó]mo se llama|qui[eé]n es) mi (?:novi[oa]|pareja|espos[oa]|marido|prometid[oa])\b"
            r"|\bcon qui[eé]n (?:salgo|estoy saliendo)\b",
            r"\b(?:como se chama|quem (?:é|e)) (?:a |o )?(?:minha|meu) (?:namorad[oa]|espos[oa]|mulher|marido|"
            r"companheir[oa]|noiv[oa])\b|\bqual (?:é|e) o nome d[ao] (?:minha|meu) (?:namorad[oa]|espos[oa]|marido)\b",
            r"\b(?:come si chiama|chi (?:è|e)) (?:la mia|il mio|mia|mio) (?:ragazz[ao]|fidanzat[ao]|moglie|marito|"
            r"compagn[ao])\b",
        ),
        keys=_listed(
            "girlfriend, boyfriend, partner, wife, husband, fianc, spouse, dating, seeing, married, engaged, "
            "going out with, moved in with, relationship, divorced, single, separated, broke up, split up, "
            "things with, and i are, and me are, and i have been, seeing each other, "
            "freund, frau, mann, verlobt, zusammen, date, geheiratet, copine, copain, petit, femme, mari, compagn, "
            "partenaire, sors, pous, novi, pareja, espos, marido, prometid, saliendo, salgo, cas, namor, mulher, "
            "noiv, casei, ragazz, fidanzat, moglie, sto con, esco con, sposato"
        ),
    ),
    "manager": _Slot(
        said=(
            rf"\b(?P<who>my|our) (?:new |current )?(?:manager|boss|line manager|supervisor|team lead),? {_NAME}\b",
            rf"\b{_NAME} (?:has |had )?(?:officially |finally )?took over (?:the|our|my) (?:team|department|group)\b",
            rf"\b{_NAME} (?:is|became) (?:my|our) (?:new )?(?:manager|boss|line manager|supervisor|team lead)\b",
            rf"\breport(?:ing)? (?:directly )?to {_NAME}\b",
            r"\b(?P<who>my|our) new (?:manager|boss|line manager|supervisor|team lead)\b",
        ),
        first_person=(),
        asked=(
            rf"\bwho (?:do|does) {_WHO} (?:\w+ )?report to\b",
            rf"\bwho(?:'s| is) {_WHOSE} (?:current |new )*(?:manager|boss|line manager|supervisor|team lead)\b",
        ),
        keys=_listed("manager, boss, supervisor, team lead, took over, report"),
    ),
    "ally": _Slot(
        # Whom someone works with, backs or votes with now: "I'm backing you now, Oskar, not Tomas",
        # "You and me together on Saturday", "Marco and I are partners on the migration now", "count
        # me in with you". A pact is renewed by the newest one. Not "support" (a football team, or
        # comfort: "I'm supporting you through this") nor "got your back" (said to comfort, in LoCoMo's
        # chats); not a past "worked together".
        said=(
            rf"\b(?:backing|siding with|standing (?:with|behind|by)|allied with|"
            rf"(?:working|voting|campaigning|playing|raiding|studying|running|training) (?:together )?with|"
            rf"(?:teaming|teamed|partnering|partnered|pairing|paired|linking|linked|buddying) (?:up )?with|"
            rf"join(?:ing|ed)? forces with|co-?(?:found|lead|run|host|chair|organi[sz]|captain)\w* (?:[\w'-]+ ){{0,4}}with) "
            rf"(?P<other>you|{_NAME})\b",
            rf"\b(?:join|joins|joining|joined) (?P<other>your|{_NAME}'s) (?:squad|team|side|group|crew|party|campaign|camp)\b",
            rf"\b(?:back|backs|side with|sides with|stand with|stands with|stand by|vote with|votes with|"
            rf"work with|study with|play with|train with|raid with|campaign with|"
            rf"team up with|teamed up with|partnered with|allied with|count (?:me|us) in with|"
            rf"(?:throw|throwing|threw|thrown|put|putting) (?:my|our) (?:full |whole )?(?:weight|vote|name) behind) "
            rf"(?P<other>you|{_NAME})\b(?! up\b)",
            r"\b(?:am|'m|are|'re) (?:now |still |all |firmly |definitely )?with (?P<other>you)\b(?! (?:in a|in one|on th)\w*)",
            rf"\b(?:am|'m|are|'re) (?:now with (?P<other>{_NAME})|with (?P<other2>{_NAME}),? now)\b",
            rf"\b(?:(?:am|'m|are|'re) )?(?:now |officially |firmly )?(?:on|in) (?:(?P<other>your|{_NAME}'s) (?:side|corner|team|camp)|"
            rf"team (?P<other3>{_NAME}))\b",
            r"\b(?:vote|voting|work|working|stand|standing|campaign|campaigning|team up|teaming up|side) together\b",
            r"\b(?:are|'re) (?:now |officially )?(?:\w+ )?partners (?:on|for|in|now)\b",
            r"\b(?P<who>my|our) (?:new )?(?:doubles|tennis|project|lab|study|business|dance|debate|running|climbing|"
            r"squash|badminton|bridge|raid|duo|writing) partner\b",
        ),
        first_person=(
            r"(?<!between )\b(?:you and me|you and i|me and you)\b(?! (?:both|should|could|can|need|must|gotta|have to)\b)",
            rf"\b(?P<other>{_NAME}) and I (?:are|'re|will|'ll|am going to|are going to)\b[^.!?]{{0,60}}\b"
            rf"(?:together|partners|a team|a duo)\b",
        ),
        asked=(
            rf"\bwho(?:'s| am| is| are) {_WHO} (?:\w+ )?(?:working|teaming up|teamed up|partnering|partnered up|siding|"
            rf"voting|allied|aligned|joining forces|campaigning|pairing up|paired up|playing doubles|raiding|"
            rf"co-?founding|co-?leading) (?:together )?with\b",
            rf"\bwho (?:do|does|will) {_WHO} (?:\w+ )?(?:work|team up|side|vote|campaign|stand|align|pair up) with\b",
            rf"\bwho (?:has|have) {_WHO} (?:\w+ )?(?:joined forces|teamed up|sided|allied|partnered|paired up) with\b",
            rf"\bwho(?:'s| am| is| are| do| does) {_WHO} (?:\w+ )?(?:backing|back)\b",
            rf"\bwho(?:'s| is| are) {_WHOSE} (?:current |new |main )*(?:ally|allies|teammate|team-mate|running mate|"
            rf"(?:doubles |tennis |project |lab |study |business |dance |debate |squash |bridge |raid )?partner "
            rf"(?:on|for|in|at)|(?:doubles|tennis|project|lab|study|business|dance|debate|squash|bridge|raid) partner)\b",
            rf"\bwho(?:'s| is| are) (?:on|in) {_WHOSE} (?:side|corner|team|camp)\b",
            rf"\b(?:which|whose) (?:side|team|camp) (?:am|is|are) {_WHO} (?:\w+ )?on\b",
            rf"\b(?:am|is|are) {_WHO} (?:\w+ )?(?:teamed up|teaming up|working|allied|partnered up|paired up|"
            rf"voting|siding) with (?:anyone|anybody|someone|somebody)\b",
        ),
        keys=_listed(
            "back, siding, side, corner, team, camp, squad, stand, allied, with, together, partner, join, you and, "
            "me and you, count me, count us, weight, co found, co lead, co run, co host, co chair, "
            "co organi, co captain, cofound, colead"
        ),
        mutual=True,
    ),
    "children": _Slot(
        said=(
            r"\b(?:was born|were born|gave birth|had (?:a|the|our) baby|newborn|baby (?:boy|girl)|"
            r"(?:am|is|are|'m|'re) pregnant|expecting (?:a|our|another) (?:baby|child))\b",
            rf"\b{_NAME} arrived\b(?:[^.!?]|\.\d){{0,60}}\b(?:kilos?|kg|pounds|lbs|grams)\b",
            r"\b(?:have|with|of) (?:one|two|three|four|five|six|\d) (?:kids|children|sons|daughters)\b",
        ),
        first_person=(),
        asked=(
            rf"\bhow many (?:children|kids|sons|daughters|grandchildren) (?:do|does) {_WHO} (?:\w+ )?have\b",
            rf"\b(?:do|does) {_WHO} have (?:any )?(?:children|kids)\b",
        ),
        keys=_listed("born, birth, baby, pregnant, newborn, expecting, arrived, kids, children"),
    ),
    "vehicle": _Slot(
        said=(
            r"\btraded in (?:the|my|our|his|her) \w+",
            r"\b(?P<who>my|our) new (?:car|truck|van|motorbike|motorcycle|scooter|ev|electric car)\b",
            r"\b(?:bought|got|picked up|leased|sold) (?:a|an|the|our|my) (?:new |used |second-hand |\w+ )?"
            r"(?:car|truck|van|motorbike|motorcycle|hybrid|ev|electric car)\b",
            r"\b(?P<who>my|our) (?:car|truck|van) (?:is|now) (?:a|an)\b",
        ),
        first_person=(r"\bi (?:now |currently )?drive (?:a|an)\b",),
        asked=(
            rf"\bwhat (?:kind of |make of |model of )?(?:car|vehicle|truck) (?:do|does|am|are|is) {_WHO} (?:\w+ )?"
            rf"(?:drive|driving|own|have)\b",
            rf"\bwhat (?:kind of |make of |model of )?(?:car|vehicle|truck) {_WHO} (?:now |currently )?"
            rf"(?:drive|drives|own|owns|have|has)\b",
            rf"\bwhat(?:'s| is) {_WHOSE} (?:current |new )*(?:car|vehicle)\b",
        ),
        keys=_listed("traded, car, truck, van, motorbike, motorcycle, scooter, hybrid, ev, drive"),
    ),
    "name": _Slot(
        said=(
            rf"\b(?P<who>my|{_NAME}'s) (?:full |real |first |last |new |legal |preferred )*name(?: is|'s|:)",
            r"\bchanged (?:my|our) (?:last |first )?name\b",
        ),
        first_person=(
            rf"\bcall me {_NAME}\b",
            r"\b(?:i go by|i'm called|i am called)\b",
            r"\b(?:je m'appelle|ich hei(?:ß|ss)e|me llamo|mi nombre es|mi chiamo)\b|\bmeu nome (?:é|e)\s",
        ),
        asked=(
            rf"\bwhat(?:'s| is) {_WHOSE} (?:full |real |first |last |preferred |legal |new )*name\b",
            rf"\bwhat {_WHOSE} (?:full |real |first |last |preferred |legal |new )*name is\b",
            r"\bwhat (?:should|do|shall|can|will|would) you call me\b",
            r"\bwhat do (?:i|you) go by\b",
            r"\bhow should you (?:call|address) me\b",
            r"\bwie hei(?:ß|ss)e ich\b",
            r"\bcomment (?:je m'appelle|m'appelle-je)\b",
            r"\bc[oó]mo me llamo\b",
            r"\bcome mi chiamo\b",
            r"\bqual (?:é|e) o meu nome\b",
        ),
        keys=_listed(
            "name, call me, go by, i m called, i am called, appelle, heiße, heisse, llamo, nombre, chiamo, meu nome"
        ),
    ),
    "phone": _Slot(
        said=(
            r"\b(?P<who>my|our) (?:new )?(?:phone|mobile|cell|telephone)(?: number)?(?: is|'s|:| now)[^.!?\n]{0,12}\+?\d",
            r"\bnew (?:phone |mobile |cell )?number\b",
        ),
        first_person=(r"\b(?:call|text|reach|ring) me (?:at|on) \+?\d",),
        asked=(
            rf"\bwhat(?:'s| is) {_WHOSE} (?:\w+ )?(?:phone|mobile|cell|telephone)(?: number)?\b",
            r"\b(?:how|where) (?:can|do|could|should) (?:you|people|they) (?:call|reach|text|ring) me\b",
        ),
        keys=_listed("phone, mobile, cell, telephone, number, me at, me on"),
    ),
    "email": _Slot(
        said=(r"\b(?P<who>my|our) (?:new )?e-?mail(?: address)?(?: is|'s|:| now)", r"\bnew e-?mail(?: address)?\b"),
        first_person=(r"\be-?mail me (?:at|on)\b",),
        asked=(
            rf"\bwhat(?:'s| is) {_WHOSE} (?:\w+ )?e-?mail(?: address)?\b",
            r"\b(?:how|where) (?:can|do|could|should) (?:you|people|they) e-?mail me\b",
        ),
        keys=_listed("email, e mail"),
    ),
    "diet": _Slot(
        said=(
            r"\b(?:vegan|vegetarian|pescatarian|pescetarian|keto|paleo|flexitarian|plant-based)\b",
            r"\b(?:started|stopped|quit|gave up|cut out|eat|eating)(?: eating)? (?:meat|fish|dairy|eggs|pork|beef|"
            r"chicken|carbs|sugar)\b",
            r"\b(?P<who>my|our) (?:new |current )?diet (?:is|now|consists)\b",
            r"\bon a (?:strict |new |\w+ )?diet\b",
        ),
        first_person=(),
        asked=(
            rf"\bwhat(?:'s| is) {_WHOSE} (?:current )?diet\b",
            rf"\b(?:am|is|are) {_WHO} (?:still |now |currently )?(?:a |an )?(?:vegan|vegetarian|pescatarian|"
            rf"pescetarian|keto|paleo|flexitarian|plant-based|on a diet)\b",
            rf"\bwhat (?:do|does|can|can't|cannot) {_WHO} (?:not )?eat\b",
            rf"\bdo(?:es)? {_WHO} (?:still )?eat (?:meat|fish|dairy|eggs)\b",
            rf"\b{_WHOSE} dietary (?:needs|restrictions|requirements)\b",
            rf"\bwhat (?:kind|sort|type) of (?:diet|food) (?:am|is|are|do|does) {_WHO} (?:\w+ )?"
            rf"(?:following|on|doing|eating|keeping to|sticking to)\b",
        ),
        keys=_listed(
            "vegan, vegetarian, pescatarian, pescetarian, keto, paleo, flexitarian, plant based, meat, fish, "
            "dairy, eggs, pork, beef, chicken, carbs, sugar, diet"
        ),
    ),
    "subscription": _Slot(
        said=(
            r"\b(?P<who>my|our) (?:[\w-]+ ){0,2}(?:membership|subscription)(?: fee| price| cost| rate)? "
            r"(?:is|are|costs?|went|goes|has gone|will go|is going|rose|increased|dropped|now|just)\b",
            r"\b(?P<who>my|our) (?:monthly|annual|yearly|weekly|membership|subscription) "
            r"(?:fee|rate|payment|price|charge|bill|cost)s? "
            r"(?:is|are|went|goes|has gone|will go|is going|rose|increased|dropped|now|just|will)\b",
            r"\b(?:signed up for|joined|cancell?ed|renewed|upgraded|downgraded|switched to|paused) "
            r"(?:a|an|the|my|our) (?:[\w-]+ ){0,2}(?:membership|subscription)\b",
            r"\b(?:pay|paying) (?:[\w-]+ ){0,3}for (?:the|my|our) (?:[\w-]+ ){0,2}(?:membership|subscription)\b",
        ),
        first_person=(),
        asked=(
            rf"\bhow much (?:does|do|is|are) {_WHOSE} (?:[\w-]+ ){{0,2}}(?:membership|subscription)s?\b",
            rf"\bhow much (?:do|does) {_WHO} (?:\w+ )?pay (?:for (?:the|my|our|his|her|their) (?:[\w-]+ ){{0,2}}"
            rf"(?:membership|subscription)|a month|per month|monthly|a year|per year|each month)\b",
            rf"\bwhat(?:'s| is| are) {_WHOSE} (?:[\w-]+ ){{0,2}}(?:membership|subscription|monthly|annual|yearly) "
            rf"(?:fee|cost|price|rate)s?\b",
            rf"\bwhat (?:do|does) {_WHO} pay (?:for (?:the|my|our|his|her|their) (?:[\w-]+ ){{0,2}}"
            rf"(?:membership|subscription)|a month|per month|monthly)\b",
        ),
        keys=_listed(
            "membership, subscription, monthly, annual, yearly, weekly, signed up, cancel, renewed, upgraded, "
            "downgraded, switched to, paused, pay"
        ),
        item=r"\b(?P<item>[a-z][\w-]*) (?:membership|subscription)",
    ),
}

_SAID = {name: [re.compile(p, _TEXT_FLAGS) for p in slot.said] for name, slot in _DEFINITIONS.items()}
_FIRST_PERSON = {name: [re.compile(p, _TEXT_FLAGS) for p in slot.first_person] for name, slot in _DEFINITIONS.items()}
_ASKED = {name: [re.compile(p, _FLAGS) for p in slot.asked] for name, slot in _DEFINITIONS.items()}
_ITEM = {name: re.compile(slot.item, _TEXT_FLAGS) for name, slot in _DEFINITIONS.items() if slot.item}
# Words before "membership" that say how, not what: "my monthly membership" names no gym.
_NO_ITEM = frozenset(
    """my our your his her their the a an this that monthly annual yearly weekly new current old family student
    premium basic full cheap cheaper""".split()
)

# Between a subject and its predicate: auxiliaries and adverbs ("we finally got", "I've been living").
_BETWEEN = frozenset(
    """am are is was were be been being have has had 've 'm 're 's got get now currently still also just finally
    recently actually officially already both all eventually happily permanently then went go going gone became
    become a an fully strictly no longer not never don't do did really totally mostly basically""".split()
)
# What may open a clause whose subject is its speaker ("Started at the new firm on Monday.").
_OPENERS = frozenset("and so then just finally also now recently today yesterday anyway well oh yes yeah btw".split())
_COORDINATORS = frozenset("and then but so".split())
_SELF_WORDS = frozenset("i i'm i've we we're we've user".split())
_PROMISING = frozenset("i'll we'll".split())  # a future the mutual slots take as said now
# A form of "be" before an -ing predicate: "I'm living in" states where I live, "living in the city, I
# miss nature" does not.
_BE = frozenset("am are is was were be been 'm 're 's i'm we're".split())
# Capitalised, but no one's name.
_NOT_NAMES = frozenset(
    """monday tuesday wednesday thursday friday saturday sunday january february march april may june july august
    september october november december thanks thank please sorry hey hi hello congrats wow okay ok sure great
    yes yeah god""".split()
)
_WORD_STARTS = {name: tuple(" " + key for key in slot.keys) for name, slot in _DEFINITIONS.items()}
_APART = str.maketrans(dict.fromkeys("\n\t\r'’\"()[]{}<>-/.,;:!?*_", " "))  # words apart, for ``keys``
_CLAUSE_END = re.compile(r"[.!?;\n]")
# An identity line (USER.md, a relation): "[[Marc]] is the brother of [[the user]]: lives in Lyon";
# what follows the colon is said of the one named first.
_DESCRIBED = re.compile(
    r"^\s*(?:\[\[)?(?P<who>(?-i:[A-Z])[\w'’-]*(?: (?-i:[A-Z])[\w'’-]*)?)(?:\]\])?\s+(?:is|was)\s+"
    r"(?:the|a|an|my|our)\s+[^:]{1,80}:\s*$",
    re.IGNORECASE,
)
_PAST = re.compile(
    r"\b(?:did|was|were|had|used to|lived|worked|dated|ago|last year|back (?:in|then|when)|when (?:i|we) (?:was|were)|"
    r"as a (?:kid|child|student|teenager)|(?:19|20)\d\d|before|previous(?:ly)?|at first|originally|initially|"
    r"earlier|formerly|former|old|in the past|früher|vorher|damals|gewohnt|gearbeitet|avant|autrefois|antes|"
    r"anteriormente|prima)\b",
    _FLAGS,
)


def _speaker(text: str) -> tuple[str, str]:
    """(whose first person the text is, the text after the speaker): SELF for no speaker or the
    user, AGENT for the agent's own turns, else a lower-cased name (speakers.py says who speaks)."""
    who, said = split_speaker(text)
    if who is None:
        return SELF, text
    low = who.lower()
    if low in ASSISTANT_SPEAKERS:
        return AGENT, said
    if low in USER_SPEAKERS:
        return SELF, said
    return low, said


def _others(found: re.Match[str]) -> list[str]:
    """What a match's ``other`` groups name ("you", "your", "Dana", "Jonah's")."""
    return [v for k, v in found.groupdict().items() if k.startswith("other") and v]


def _other_side(other: str, speaker: str) -> str | None:
    """Whom a mutual statement's other side names: a name, or for "you" the one spoken to. In the
    user's record of a chat, anyone else who says "I'm backing you" says it to the user (in a group
    that may be another member: the newest pact is still the one to read); the user's own "you" and
    the agent's ("I'm with you on that", said to the user as a courtesy) name no one here."""
    low = other.lower().removesuffix("'s")
    if low not in ("you", "your"):
        return None if low in _NOT_NAMES else low
    return SELF if speaker not in (SELF, AGENT) else None


def _subject_word(tokens: list[str], raw: list[str], speaker: str, promise: bool = False) -> str | None:
    """The subject named by the last of ``tokens`` (lower-cased; ``raw`` as written); with
    ``promise``, "I'll" and "we'll" too (a pact promised is a pact made)."""
    last, written = tokens[-1], raw[-1]
    if last in _SELF_WORDS or (promise and last in _PROMISING):
        return speaker
    kin = re.fullmatch(_KIN, last, _FLAGS)
    if kin and len(tokens) > 1 and tokens[-2] in ("my", "our"):
        return f"my {last}" if speaker == SELF else None
    if written[:1].isupper() and last not in STOPWORDS and last not in _OPENERS and last not in _NOT_NAMES:
        return last
    return None


def _subject_before(before: str, speaker: str, gerund: bool, promise: bool = False) -> str | None:
    """Who a predicate is said of, from the words before it in its clause: the speaker for "I"/"we"
    or a clause with none ("Started at the new firm"), a name, "my sister"; None when the words
    before are no subject ("I'd love to live in", "fish live in"), or when an -ing predicate
    (``gerund``) has no "be" before it ("living in the city, I miss nature")."""
    clause = _CLAUSE_END.split(before)[-1]
    described = _DESCRIBED.search(clause)
    if described:  # "Anna is the sister of the user: lives in Munich": Anna lives there
        return described.group("who").lower()
    raw = re.findall(r"[^\W_]+(?:['’-][^\W_]+)*", clause)
    tokens = words(clause)
    between: list[str] = []
    while tokens and tokens[-1] in _BETWEEN:
        between.append(tokens[-1])
        tokens, raw = tokens[:-1], raw[:-1]
    if gerund and not (_BE.intersection(between) or (tokens and tokens[-1] in _BE)):
        return None
    if not tokens or all(t in _OPENERS for t in tokens):
        return speaker
    if tokens[-1] in _COORDINATORS:  # "we signed for a house and moved in": the clause's subject
        return _subject_word(tokens[:1], raw[:1], speaker, promise)
    return _subject_word(tokens, raw, speaker, promise)


def _owner(word: str, speaker: str) -> str | None:
    """The subject a possessive names: "my" the speaker's, "Ana's" Ana's."""
    low = word.lower()
    if low in ("my", "our"):
        return speaker
    return low[:-2] if low.endswith("'s") else low


# A sentence that asks or supposes states no value: "If I moved to Lisbon, I'd learn to surf", "¿Debería
# dejar mi trabajo en el banco?", "Wenn ich in Berlin wohnen würde…", "I might move to Leeds".
_SUPPOSING = re.compile(
    r"\b(if|whether|would|could|might|should|imagine|suppose|supposing|hypothetically|maybe|perhaps|what if|"
    r"si (?:me|te|nos|os|yo|tú|tu|fuera|fuese|tuviera|pudiera|estuviera)|ojalá|quizás|quizá|tal vez|debería|deberia|"
    r"podría|podria|sería|"
    r"wenn|falls|ob|würde|würden|könnte|sollte|vielleicht|"
    r"peut-être|pourrais|devrais|serait)\b|\b\w+'d\b",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"[.!?\n]")


def stated(said: str, start: int, end: int) -> bool:
    """Whether the match at ``said[start:end]`` states a value: its sentence does not ask (a "?" at
    its end, a "¿" before it) nor suppose before it (``_SUPPOSING``)."""
    opening = max((m.end() for m in _SENTENCE_END.finditer(said, 0, start)), default=0)
    closing = _SENTENCE_END.search(said, end)
    if (closing and closing.group() == "?") or "¿" in said[opening:start]:
        return False
    return not _SUPPOSING.search(said, opening, end)


def filled_slots(text: str, slots: Iterable[str] = SLOTS) -> set[tuple[str, str]]:
    """The (slot, subject) pairs ``text`` fills, of ``slots``.

    >>> sorted(filled_slots("We finally got the keys to the new place in Leeds."))
    [('residence', 'self')]
    >>> sorted(filled_slots("Caroline said: I started at the new firm on Monday."))
    [('workplace', 'caroline')]
    >>> sorted(filled_slots("My sister moved to Rome."))
    [('residence', 'my sister')]
    >>> filled_slots("I'd love to live in Japan one day.")
    set()
    >>> filled_slots("If I moved to Lisbon, I'd finally learn to surf.")
    set()
    """
    spaced = " " + text.lower().translate(_APART)
    slots = [slot for slot in slots if any(key in spaced for key in _WORD_STARTS[slot])]
    if not slots:
        return set()
    speaker, said = _speaker(text)
    out: set[tuple[str, str]] = set()
    for slot in slots:
        mutual = _DEFINITIONS[slot].mutual
        for pattern in _FIRST_PERSON[slot]:
            for found in pattern.finditer(said):
                if not stated(said, found.start(), found.end()):
                    continue
                out.add((slot, speaker))
                # The other side of a first-person pact: the one it names, else the one spoken to.
                for other in (_others(found) or ["you"]) if mutual else ():
                    if side := _other_side(other, speaker):
                        out.add((slot, side))
        for pattern in _SAID[slot]:
            for found in pattern.finditer(said):
                if not stated(said, found.start(), found.end()):
                    continue
                own = found.groupdict().get("who")
                who = (
                    _owner(own, speaker)
                    if own
                    else _subject_before(
                        said[max(0, found.start() - 80) : found.start()],
                        speaker,
                        found.group(0).split()[0].endswith("ing"),
                        promise=mutual,
                    )
                )
                if who is None:
                    continue
                out.add((slot, who))
                for other in _others(found) if mutual else ():
                    if side := _other_side(other, speaker):
                        out.add((slot, side))
    return out


def _item(slot: str, text: str) -> str | None:
    pattern = _ITEM.get(slot)
    for found in pattern.finditer(text) if pattern else ():
        if found.group("item").lower() not in _NO_ITEM:
            return found.group("item").lower()
    return None


def names_another(slot: str, question: str, text: str) -> bool:
    """Does ``text`` name another thing of the slot's kind than ``question`` does? A person holds
    several subscriptions at once: "my Netflix subscription went up" is no answer to "how much is my
    gym membership?", while "our monthly fee goes up" (naming none) may be.

    >>> names_another("subscription", "How much is my gym membership?", "My Netflix subscription is 11 pounds")
    True
    >>> names_another("subscription", "How much is my gym membership?", "Our monthly fee goes up to 52 pounds")
    False
    """
    asked, named = _item(slot, question), _item(slot, text)
    return asked is not None and named is not None and asked != named


def _asker(who: str | None) -> str | None:
    """The subject a question's ``who`` names: SELF for the asker or the user, AGENT for "you" (the
    agent asked), None for a bare pronoun, else the name or relation."""
    if who is None:
        return SELF
    low = who.lower()
    low = low[:-2] if low.endswith("'s") else low
    if low in ("i", "we", "my", "our", "the user", "user", "me"):
        return SELF
    if low in ("you", "your"):
        return AGENT
    if low in ("he", "she", "they", "his", "her", "their"):
        return None
    return low


def asked_slots(question: str) -> list[tuple[str, str]]:
    """The (slot, subject) pairs ``question`` asks for, in SLOTS order.

    >>> asked_slots("Where does the user live now?")
    [('residence', 'self')]
    >>> asked_slots("What is Caroline's job?")
    [('workplace', 'caroline')]
    >>> asked_slots("Which bakery should we order the cake from?")
    []
    """
    out: list[tuple[str, str]] = []
    for slot in SLOTS:
        for pattern in _ASKED[slot]:
            found = pattern.search(question)
            if found is None:
                continue
            who = _asker(found.groupdict().get("who"))
            if who is not None and (slot, who) not in out:
                out.append((slot, who))
    return out


def mentions_the_past(question: str) -> bool:
    """Does ``question`` ask about a time gone by (a past tense, a year, "before", "old")? There the
    slot's old value may be the answer.

    >>> mentions_the_past("Where did I live in 2019?"), mentions_the_past("Where do I live these days?")
    (True, False)
    """
    return bool(_PAST.search(question))
