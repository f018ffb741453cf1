"""Time as data (m028, memory/language/dates.py): the days a memory speaks of are resolved when
it is stored, against when it was said ("yesterday" on Friday 18 October is the 17th); a
question's own date phrases ("last Thursday", "in March 2023", "this year") are resolved against
when it is asked and become a time to look in, never words to match."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.inprocess

ASKED_AT = "2024-10-21T09:00:00Z"  # a Monday
MEETINGS = [
    ("2024-10-18T17:00:00Z", "The meeting with the Kalaari investors yesterday went really well."),
    ("2024-10-02T17:00:00Z", "I met with the Accel investors today."),
    ("2024-10-09T17:00:00Z", "Blume meeting this morning: polite, but no follow-up."),
    ("2024-10-03T08:00:00Z", "Every Thursday I meet my mentor for coffee."),
]
QUESTION = "Which investor did I meet with last Thursday?"


def _add(daemon, ns: str) -> list[str]:
    return [
        daemon.call("memory.add", {"content": text, "type": "fact", "namespace": ns, "created": when})["id"]
        for when, text in MEETINGS
    ]


def test_a_question_about_last_thursday_finds_what_was_said_of_that_day(in_process):
    """Before, "Thursday" was a word to match and no day was resolved: the Accel meeting (the
    question's own words) came first, the mentor's every-Thursday coffee second, the answer third."""
    daemon, ns = in_process(), "investors"
    ids = _add(daemon, ns)
    hits = daemon.call("memory.search", {"query": QUESTION, "namespace": ns, "k": 4, "asked_at": ASKED_AT})["results"]
    assert hits[0]["id"] == ids[0], [h["content"] for h in hits]
    assert hits[0]["signals"]["time"] == 0 and all(h["signals"]["time"] > 0 for h in hits[1:]), hits
    pack = daemon.call("context.pack", {"query": QUESTION, "namespace": ns, "budget_tokens": 200, "asked_at": ASKED_AT})
    assert pack["items"][0]["id"] == ids[0], pack["items"]
    # Off, the days still leave the lexical terms, but nothing is weighed by them.
    off = in_process({"retrieval": {"time_penalty": 0.0}})
    _add(off, ns)
    hits = off.call("memory.search", {"query": QUESTION, "namespace": ns, "k": 4, "asked_at": ASKED_AT})["results"]
    assert all(h["signals"]["time"] == 0 for h in hits)


def test_the_days_a_memory_speaks_of_are_resolved_when_it_is_stored(in_process):
    daemon, ns = in_process(), "days"
    said = [
        ("2024-10-14T08:00:00Z", "Last weekend we went sailing on the Solent."),  # a Monday
        ("2024-10-14T08:00:00Z", "Back in March 2023 I ran my first half marathon."),
        ("2024-10-14T08:00:00Z", "The universe was young 6000 years ago, he says."),  # outside the calendar
        ("2024-10-14T08:00:00Z", "Nothing dated here."),
    ]
    seqs = []
    for when, text in said:
        mid = daemon.call("memory.add", {"content": text, "type": "fact", "namespace": ns, "created": when})["id"]
        seqs.append(daemon.services.store.conn.execute("SELECT seq FROM memories WHERE id = ?", (mid,)).fetchone()[0])
    rows = daemon.services.store.conn.execute(
        "SELECT seq, first_day, after_day FROM memory_times ORDER BY seq"
    ).fetchall()
    assert rows == [(seqs[0], "2024-10-11", "2024-10-14"), (seqs[1], "2023-03-01", "2023-04-01")]


def test_a_plan_or_an_unmet_date_changes_no_order(in_process):
    """'next month' is a plan, not a time to look in; a day nothing speaks of leaves the order alone."""
    daemon, ns = in_process(), "plans"
    _add(daemon, ns)
    for query in ("Which investor should I meet next month?", "Which investor did I meet in March 2019?"):
        hits = daemon.call("memory.search", {"query": query, "namespace": ns, "asked_at": ASKED_AT})["results"]
        assert hits and all(h["signals"]["time"] == 0 for h in hits), (query, hits)


def test_this_year_keeps_last_years_item_out_of_the_lead(in_process):
    daemon, ns = in_process(), "bakes"
    last = daemon.call(
        "memory.add",
        {
            "content": "For Easter we made a simnel cake.",
            "type": "fact",
            "namespace": ns,
            "created": "2023-04-09T10:00:00Z",
        },
    )["id"]
    this = daemon.call(
        "memory.add",
        {"content": "Baked hot cross buns for the Easter lunch.", "type": "fact", "namespace": ns,
         "created": "2024-03-31T10:00:00Z"},
    )["id"]  # fmt: skip
    q = {"query": "What did I bake for Easter this year?", "namespace": ns, "asked_at": "2024-05-01T10:00:00Z"}
    order = [h["id"] for h in daemon.call("memory.search", q)["results"]]
    assert order.index(this) < order.index(last), order


def test_a_year_outside_the_calendar_is_no_date():
    """ "6000 years ago" was the year "-3976" on an observation; now it is no date at all."""
    from datetime import date

    from agentmemd.memory.language.dates import find_dates

    assert find_dates("The universe was young 6000 years ago.", date(2024, 10, 14)) == []
    assert find_dates("That was 90000 months ago.", date(2024, 10, 14)) == []
    assert [r.referenced for r in find_dates("three years ago", date(2024, 10, 14))] == ["2021"]


@pytest.mark.parametrize(
    ("said", "phrase", "resolved"),
    [
        ("Wir sehen uns morgen früh", "morgen", "2024-04-11"),
        ("Ich war gestern beim Arzt", "gestern", "2024-04-09"),
        ("Das war vor zwei Wochen", "vor zwei Wochen", "2024-W13"),
        ("nächsten Monat ziehe ich um", "nächsten Monat", "2024-05"),
        ("Im März waren wir in Rom", "Im März", "2024-03"),
        ("letzten Freitag", "letzten Freitag", "2024-04-05"),
        ("Nos vemos mañana por la mañana", "mañana", "2024-04-11"),  # the second is a morning
        ("Ayer fui al cine", "Ayer", "2024-04-09"),
        ("Hace tres días", "Hace tres días", "2024-04-07"),
        ("el mes que viene", "el mes que viene", "2024-05"),
        ("En marzo fuimos a Roma", "En marzo", "2024-03"),
        ("el viernes pasado", "el viernes pasado", "2024-04-05"),
        ("On se voit demain", "demain", "2024-04-11"),
        ("il y a deux ans", "il y a deux ans", "2022"),
        ("la semaine dernière", "la semaine dernière", "2024-W14"),
    ],
)
def test_relative_dates_in_german_spanish_and_french(said, phrase, resolved):
    """They got no date: 'nächsten Monat' and 'en marzo' were words, not a time (said on Wednesday
    10 April 2024)."""
    from datetime import date

    from agentmemd.memory.language.dates import find_dates

    assert [(r.phrase, r.referenced) for r in find_dates(said, date(2024, 4, 10))] == [(phrase, resolved)]


@pytest.mark.parametrize("said", ["Guten Morgen! Wie geht es?", "heute Morgen war es kalt", "cada mañana corro",
                                  "Jeden Morgen laufe ich", "Es por la mañana"])  # fmt: skip
def test_a_morning_is_no_tomorrow(said):
    from datetime import date

    from agentmemd.memory.language.dates import find_dates

    assert [r.referenced for r in find_dates(said, date(2024, 4, 10)) if r.referenced == "2024-04-11"] == []


def _texts_of(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    return [text for item in value for text in _texts_of(item)] if isinstance(value, list) else []


def test_a_date_pattern_is_left_untried_only_when_the_text_cannot_match_it():
    """Storing a message ran all ~55 date patterns over it, a third of the store's work; now a
    pattern runs only where the text holds what each of its matches must hold (read from the
    pattern). Whatever the patterns match in every chat the tests keep (in five languages and
    every importer's format), its pattern is tried; a message naming no date tries none."""
    import json
    import re
    from pathlib import Path

    from agentmemd.memory.language import dates

    data = Path(__file__).parent / "data"
    texts = [line for path in data.rglob("*.txt") for line in path.read_text(errors="replace").splitlines()]
    texts += [t for path in data.rglob("*.json") for t in _texts_of(json.loads(path.read_text()))]
    texts += ["YESTERDAY!!", "Übermorgen?", "HACE DOS SEMANAS", "the 3rd of March 2024", "2024-03-05", "IN 2019",
              "il y a 3 ans", "vor 2 Jahren", "Mitte Mai", "early March", "la semana que viene", "next Fall"]  # fmt: skip
    texts = list(dict.fromkeys(texts))
    assert len(texts) > 5000
    case_sensitive = {kind: re.compile(p.pattern) for kind, p in dates._PATTERNS if kind in dates._CASE_SENSITIVE}
    tried = 0
    for text in texts:
        scans = {(kind, p.pattern) for kind, p in dates._scans_for(text)}
        tried += len(scans)
        for kind, pattern in dates._PATTERNS:
            if case_sensitive.get(kind, pattern).search(text):
                assert (kind, pattern.pattern) in scans, (kind, text)
    assert tried < len(texts) * len(dates._PATTERNS) / 5  # most are left untried
    assert dates._scans_for("Sounds good, see you there!") == []
    assert dates._scans_for("Nos vemos, ¡qué bien!") == []


def test_a_relative_date_is_of_the_writers_day_not_the_utc_day(in_process):
    """ "Morgen fahre ich nach Köln" written at 00:30 in Berlin on 6 November (23:30 UTC on the 5th)
    was observed as the 6th, a day early, and "Tomorrow I'm flying to Oslo" likewise: the Observer
    resolved them against the UTC day. An export's zone, or the daemon's, is the writer's clock."""
    d = in_process({"channels": {"timezone": "Europe/Berlin"}}, fake_embedder=True)
    chat = {"channel": "whatsapp", "chat_id": "whatsapp:jonas", "title": "Jonas", "kind": "private", "owner": "Lena",
            "tz": "Europe/Berlin", "messages": [
                {"sender": "Jonas", "ts": "2026-11-06T00:30:00", "line": 1, "text": "Morgen fahre ich nach Köln zurück."},
                {"sender": "Lena", "ts": "2026-11-06T00:31:00", "line": 2, "text": "Gute Reise! Ich habe heute Geburtstag übrigens."},
            ]}  # fmt: skip
    for session in d.call("channels.ingest", chat)["sessions"]:
        d.call("conversation.observe", {"session": session})
    d.call("conversation.append", {"session": "me", "role": "user", "content": "Tomorrow I'm flying to Oslo for the conference.", "ts": "2026-11-05T23:32:00Z"})  # fmt: skip
    d.call("conversation.observe", {"session": "me"})
    resolved = {o["relative_date"]: o["referenced_date"] for o in d.call("observations.list", {})["observations"]}
    assert resolved == {"Morgen": "2026-11-07", "heute": "2026-11-06", "Tomorrow": "2026-11-07"}, resolved


def test_an_edited_message_refers_to_the_date_its_new_words_say(in_process):
    """ "I moved to Bremen last week." edited to "I'm moving to Bremen next month.": the observation
    took the new words and kept the old date (2026-W44, "last week")."""
    d = in_process({"channels": {"timezone": "UTC"}}, fake_embedder=True)
    chat = {"channel": "telegram", "chat_id": "telegram:marta", "title": "Marta", "kind": "private", "owner": "Lena",
            "messages": [{"sender": "Marta Klein", "ts": "2026-11-05T10:00:00Z", "line": 1, "message_id": "4",
                          "text": "I moved to Bremen last week, the flat is lovely."}]}  # fmt: skip
    for session in d.call("channels.ingest", chat)["sessions"]:
        d.call("conversation.observe", {"session": session})
    (before,) = d.call("observations.list", {})["observations"]
    assert (before["referenced_date"], before["relative_date"]) == ("2026-W44", "last week")
    d.call("channels.edit", {"channel": "telegram", "chat_id": "telegram:marta", "message_id": "4",
                             "text": "I'm moving to Bremen next month, the flat is lovely.",
                             "edited_at": "2026-11-05T11:00:00Z"})  # fmt: skip
    (after,) = d.call("observations.list", {})["observations"]
    assert "next month" in after["content"]
    assert (after["referenced_date"], after["relative_date"]) == ("2026-12", "next month")
