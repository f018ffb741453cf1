"""A query read once: everything a search or a pack asks of its wording, worked out when the
request arrives and handed to every stage, so no stage reads the raw string again.

    >>> from datetime import datetime
    >>> q = Query.parse("Where does Ana live now?", asked_at=datetime(2024, 10, 21))
    >>> q.terms, q.kind, q.slots, q.about_now
    (('ana', 'live'), 'fact', (('residence', 'ana'),), True)
    >>> Query.parse("Who did I meet last Thursday?", asked_at=datetime(2024, 10, 21)).days
    (('2024-10-16', '2024-10-19'),)

Cue phrases, not a model (no language model runs at query time); each cue is defined where its
subject is (dates, slots, speakers, query kinds, currency, secrets) and only read here.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from agentmemd.memory.language.dates import days_asked_about, find_dates
from agentmemd.memory.language.slots import asked_slots, mentions_the_past, names_another
from agentmemd.memory.language.speakers import asks_for_the_assistant, speakers_named
from agentmemd.memory.retrieval.currency import asks_about_now, asks_about_the_past
from agentmemd.memory.retrieval.lexical import looked_up
from agentmemd.memory.retrieval.query_kind import QueryKind, asks_for_a_list, query_kind
from agentmemd.memory.safety.secrets import asked_kinds


@dataclass(frozen=True)
class Query:
    text: str  # as asked
    asked_at: datetime  # when: what "last Thursday" and "this year" mean
    terms: tuple[str, ...]  # the words looked up (lexical.looked_up): not stopwords, "now" or date phrases
    phrases: tuple[str, ...]  # ... and each two of them said one after the other
    kind: QueryKind  # a specific fact, a theme, or a request for advice (query_kind.py)
    days: tuple[tuple[str, str], ...]  # the day ranges it asks about that had begun when asked; none for advice
    about_the_past: bool  # "before", "used to": an earlier statement may be the answer (currency.py)
    mentions_the_past: bool  # a past tense, a year (slots.py): a slot's old value may be the answer
    about_now: bool  # "now", "currently", "do I have": a later statement replaces an earlier one
    spread: bool  # asks for several things, likely said in different conversations (asks_for_a_list)
    slots: tuple[tuple[str, str], ...]  # the fact slots it asks about in the present, (slot, subject)
    wants_assistant: bool  # asks what the assistant itself said
    secret_kinds: frozenset[str]  # the kinds of secret it asks for ("wifi password")

    @classmethod
    def parse(cls, text: str, asked_at: datetime) -> Query:
        dates = find_dates(text, asked_at)
        terms, phrases = looked_up(text, dates)
        kind = query_kind(text)
        past = asks_about_the_past(text)
        past_tense = mentions_the_past(text)
        slots = () if past or past_tense else tuple(asked_slots(text))
        return cls(
            text=text,
            asked_at=asked_at,
            terms=tuple(terms),
            phrases=tuple(phrases),
            kind=kind,
            days=() if kind == "planning" else tuple(days_asked_about(text, asked_at, dates)),
            about_the_past=past,
            mentions_the_past=past_tense,
            about_now=asks_about_now(text),
            spread=asks_for_a_list(text),
            slots=slots,
            wants_assistant=asks_for_the_assistant(text),
            secret_kinds=frozenset(asked_kinds(text)),
        )

    def names(self, speakers: set[str]) -> set[str]:
        """Which of these speaker names (lower-cased) it says."""
        return speakers_named(self.text, speakers)

    def names_another(self, slot: str, text: str) -> bool:
        """Does ``text`` name another thing of the slot's kind than the query does?"""
        return names_another(slot, self.text, text)
