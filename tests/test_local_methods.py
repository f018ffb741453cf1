"""The local provider's methods on real conversation text (LoCoMo): dates, sentences, cues."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

import pytest
from conftest import evidence_ids, locomo_date

from agentmemd.memory.language.dates import WEEKDAYS, find_dates, iso_week

_DATE = r"(\d{1,2}) ?([A-Z][a-z]+),? (\d{4})"


def _day(m: re.Match) -> date | None:
    try:
        return datetime.strptime(f"{m.group(1)} {m.group(2)} {m.group(3)}", "%d %B %Y").date()
    except ValueError:  # the gold set has typos ("21 Janury 2022")
        return None


def gold_reference(answer: str) -> str | None:
    """A LoCoMo temporal answer in find_dates' notation, or None when it is not a date."""
    a = answer.strip().rstrip(".")
    if m := re.fullmatch(r"(?:on )?" + _DATE, a, re.I):
        return _day(m) and _day(m).isoformat()
    if m := re.fullmatch(r"(?:the |on a |on the )?week before " + _DATE, a, re.I):
        return _day(m) and iso_week(_day(m) - timedelta(days=7))
    if m := re.fullmatch(r"(?:the |on the )?weekend before " + _DATE, a, re.I):
        anchor = _day(m)
        return anchor and (anchor - timedelta(days=anchor.weekday()) - timedelta(days=2)).isoformat()
    if m := re.fullmatch(r"(?:the |on the )?(" + "|".join(WEEKDAYS) + r") before " + _DATE, a, re.I):
        weekday = WEEKDAYS.index(m.group(1).lower())
        anchor = _day(re.search(_DATE, a))
        return anchor and (anchor - timedelta(days=(anchor.weekday() - weekday) % 7 or 7)).isoformat()
    if m := re.fullmatch(r"(?:in )?((?:19|20)\d{2})", a, re.I):
        return m.group(1)
    if m := re.fullmatch(r"(?:in )?([A-Z][a-z]+),? ((?:19|20)\d{2})", a):
        try:
            return datetime.strptime(f"{m.group(1)} {m.group(2)}", "%B %Y").strftime("%Y-%m")
        except ValueError:
            return None
    if m := re.fullmatch(r"in (summer|winter|spring|fall) ((?:19|20)\d{2})", a, re.I):
        return f"{m.group(2)}-{m.group(1).lower()}"
    return None


def locomo_turn_index(sample: dict) -> dict[str, tuple[str, datetime]]:
    conv = sample["conversation"]
    out: dict[str, tuple[str, datetime]] = {}
    n = 1
    while f"session_{n}" in conv:
        when = locomo_date(conv[f"session_{n}_date_time"])
        for turn in conv[f"session_{n}"]:
            out[turn["dia_id"]] = (turn["text"], when)
        n += 1
    return out


def test_relative_dates_resolve_against_the_turns_own_time():
    monday = date(2023, 5, 8)
    got = {
        r.phrase: r.referenced
        for r in find_dates(
            "Yesterday was great; last Friday we ran, two weeks ago I moved, next month I start, "
            "last summer we camped, in 2022 I quit, on 7 May 2023 I went, last weekend we hiked.",
            monday,
        )
    }
    assert got == {
        "Yesterday": "2023-05-07",
        "last Friday": "2023-05-05",
        "two weeks ago": "2023-W17",
        "next month": "2023-06",
        "last summer": "2022-summer",
        "in 2022": "2022",
        "7 May 2023": "2023-05-07",
        "last weekend": "2023-05-06",
    }
    # "may" the verb is not a month; nothing is resolved against today's date.
    assert find_dates("I may go there, and I might.", monday) == []
    assert find_dates("the other day", monday)[0].approximate


def test_locomo_temporal_answers_are_the_resolved_dates_of_their_evidence(locomo):
    """Every LoCoMo temporal question whose answer is a date and whose evidence turn names a
    date: the date resolved from that turn (against the session's own time) is the answer."""
    total = hits = 0
    misses = []
    for sample in locomo:
        turns = locomo_turn_index(sample)
        for qa in sample["qa"]:
            gold = gold_reference(str(qa.get("answer", ""))) if qa.get("category") == 2 else None
            evidence = [turns[e] for e in sorted(evidence_ids(qa)) if e in turns]
            if gold is None or not evidence:
                continue
            refs = [r.referenced for text, when in evidence for r in find_dates(text, when)]
            if not refs:
                continue  # the date is the session's own (no phrase in the turn)
            total += 1
            if gold in refs:
                hits += 1
            else:
                misses.append((qa["answer"], refs, evidence[0][0][:80]))
    print(f"resolved {hits}/{total}", *misses[:20], sep="\n")
    assert total >= 60
    assert hits / total >= 0.85, misses


# ---- sentences and cues ---------------------------------------------------------------

from agentmemd.memory.language.cues import classify, condense  # noqa: E402
from agentmemd.memory.language.sentences import sentences  # noqa: E402

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)


def test_real_turns_split_into_sentences():
    assert sentences("Hey Mel! Good to see you! How have you been?") == [
        "Hey Mel!",
        "Good to see you!",
        "How have you been?",
    ]
    assert sentences(
        "Thanks, Caroline! Painting's a fun way to express my feelings and get creative. It's a "
        "great way to relax after a long day."
    ) == [
        "Thanks, Caroline!",
        "Painting's a fun way to express my feelings and get creative.",
        "It's a great way to relax after a long day.",
    ]
    assert sentences("Dr. Lee said it costs $3.50, e.g. at the U.S. store... I paid.") == [
        "Dr. Lee said it costs $3.50, e.g. at the U.S. store...",
        "I paid.",
    ]


# Sentences from LoCoMo conv-26, with the cue a person would give each.
LABELLED = [
    ("Hey Caroline! Good to see you!", None),
    ("Thanks, Melanie! That's really sweet.", None),
    ("What happened that was so awesome?", None),
    (
        "I'm keen on counseling or working in mental health - I'd love to support those with similar issues.",
        ("preference", "HIGH"),
    ),
    ("I love camping trips with my fam, 'cause nature brings such peace and serenity.", ("preference", "HIGH")),
    ("We're thinking about going camping next month.", ("decision", "HIGH")),
    ("I chose them 'cause they help LGBTQ+ folks with adoption.", ("decision", "HIGH")),
    ("The support group has made me feel accepted and given me courage to embrace myself.", ("emotional", "HIGH")),
    ("I was scared when we got into the accident.", ("emotional", "HIGH")),
    ("I contacted my mentor for adoption advice.", ("relational", "HIGH")),  # adoption: a life event
    ("I went to a LGBTQ support group yesterday and it was so powerful.", ("fact", "MED")),
    ("I ran a charity race for mental health last Saturday.", ("fact", "MED")),
    ("I'm a transgender woman and I've been transitioning for three years.", ("fact", "HIGH")),
    ("You'd be a great counselor!", None),
]


@pytest.mark.parametrize("sentence, expected", LABELLED)
def test_cue_detection_on_real_sentences(sentence, expected):
    cue = classify(sentence)
    assert (None if cue is None else (cue.category, cue.priority)) == expected


def test_the_local_observer_keeps_a_standing_constraint_as_a_high_preference():
    """An allergy or a diet matters whenever advice is asked (issue 16's indirect preferences):
    "made me feel ill" alone reads as an emotion, but it is a preference that matters."""
    from agentmemd.memory.llm.local_provider import LocalProvider
    from agentmemd.memory.llm.tasks import TurnIn

    said = [
        "Gluten makes me ill, so no bread for me.",
        "I'm lactose intolerant.",
        "I had a lovely slice of cake at the bakery.",
    ]
    turns = [
        TurnIn(seq=i, role="user", speaker="Ana", content=t, ts="2023-06-01T10:00:00Z") for i, t in enumerate(said)
    ]
    observed = {
        o.source_turns[0]: (o.category, o.priority)
        for o in LocalProvider(None).observe(turns, namespace="t").observations
    }
    assert observed[0] == observed[1] == ("preference", "HIGH")
    assert observed.get(2) != ("preference", "HIGH")


def test_condensation_drops_interjections_and_filler_only():
    assert condense("Wow, Caroline! I really love that painting so much.") == "I love that painting so much."
    assert condense("Yeah, I painted that lake sunrise last year!") == "I painted that lake sunrise last year!"
    assert condense("So, I think we should go.") == "I think we should go."
    assert condense("Hey Ana, I moved to Porto.") == "I moved to Porto."
    # Words of other languages (and of plain English) that an interjection list also holds: kept.
    assert condense("So sah der Gasthof früher aus") == "So sah der Gasthof früher aus"
    assert condense("Man sagt, der Winter wird kalt.") == "Man sagt, der Winter wird kalt."
    assert condense("I think so too, let's leave early so that we can park.") == (
        "I think so too, let's leave early so that we can park."
    )


def _gold_observation_turns(sample: dict) -> set[str]:
    """LoCoMo's own annotation: the turns its human-written observations cite."""
    out: set[str] = set()
    for by_speaker in sample["observation"].values():
        for items in by_speaker.values():
            for _, cited in items:
                for ref in cited if isinstance(cited, list) else [cited]:
                    out.update(x.strip() for x in str(ref).replace(",", ";").split(";"))
    return out


def test_the_local_observer_covers_the_turns_locomos_annotators_observed(locomo):
    """All 10 conversations: the share of turns LoCoMo's annotated observations cite that the
    local Observer turns into at least one observation, and how much more often those turns
    get a HIGH or MED observation than turns the annotators passed over."""
    from agentmemd.memory.llm.local_provider import LocalProvider
    from agentmemd.memory.llm.tasks import TurnIn

    provider = LocalProvider(None)
    covered = gold_n = gold_important = other_n = other_important = 0
    for sample in locomo:
        gold = _gold_observation_turns(sample)
        index = locomo_turn_index(sample)
        dia = list(index)
        turns = [
            TurnIn(seq=i, role="user", speaker="S", content=index[d][0], ts=index[d][1].isoformat())
            for i, d in enumerate(dia)
        ]
        by_turn: dict[int, set[str]] = {}
        for o in provider.observe(turns, namespace="t").observations:
            by_turn.setdefault(o.source_turns[0], set()).add(o.priority)
        for i, d in enumerate(dia):
            important = bool(by_turn.get(i, set()) & {"HIGH", "MED"})
            if d in gold:
                gold_n += 1
                covered += i in by_turn
                gold_important += important
            else:
                other_n += 1
                other_important += important
    coverage, rate_gold, rate_other = covered / gold_n, gold_important / gold_n, other_important / other_n
    print(f"coverage {coverage:.3f}, HIGH/MED on annotated turns {rate_gold:.3f}, on others {rate_other:.3f}")
    assert gold_n > 2000
    assert coverage >= 0.88
    assert rate_gold >= 2 * rate_other


def test_the_local_summary_of_a_locomo_cluster_is_its_most_shared_sentence(locomo):
    """summarise: of Melanie's pottery turns in conv-26, the one sharing most words with the rest."""
    from agentmemd.memory.llm.local_provider import LocalProvider

    index = locomo_turn_index(locomo[0])
    pottery = [text for text, _ in index.values() if "pottery" in text.lower()][:8]
    assert len(pottery) >= 5
    summary = LocalProvider(None).summarise(["Thanks, see you soon!", *pottery], namespace="t").summary
    source = next(t for t in pottery if " ".join(t.split()).startswith(summary.rstrip(" …")))  # extractive
    assert "pottery" in summary.lower() and source != "Thanks, see you soon!"
    with pytest.raises(ValueError):
        LocalProvider(None).summarise([], namespace="t")


def test_a_turn_with_a_sentence_longer_than_an_observation_is_observed_cut_not_refused(in_process):
    """A user turn of one 'sentence' over ~2,000 characters (a pasted log, a message without stops)
    failed every Observer run of its session with ObservationDraft's length error: never compacted."""
    d = in_process(fake_embedder=True)
    pasted = "I love " + " and ".join(f"the blue lake number {i}" for i in range(200))
    assert len(pasted) > 4000
    d.call("conversation.append", {"session": "long", "role": "user", "content": pasted})
    done = d.call("conversation.observe", {"session": "long", "force": True})
    assert done["observe_runs"] and done["counts"]["observed"] == 1
    [seen] = d.call("observations.list", {"session": "long"})["observations"]
    assert (
        len(seen["content"]) <= 2000 and seen["content"].endswith(" …") and "the blue lake number 1" in seen["content"]
    )
