"""A query is read once (memory/retrieval/query.py): a search or a pack parses its text once and
hands the parsed Query to every stage; no stage reads the raw string with a cue of its own."""

from __future__ import annotations

import ast
from datetime import datetime

import pytest
from conftest import REPO

from agentmemd.memory.retrieval.query import Query

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)

# What reads a query's wording; defined beside their subjects and called by Query.parse only.
CUES = {
    "looked_up",
    "query_kind",
    "asks_for_a_list",
    "days_asked_about",
    "find_dates",
    "without_date_phrases",
    "asked_slots",
    "mentions_the_past",
    "names_another",
    "speakers_named",
    "asks_for_the_assistant",
    "asked_kinds",
    "asks_about_the_past",
    "asks_about_now",
}
STAGES = ["candidates.py", "search.py", "packs.py", "pack_fitting.py", "memories.py"]


@pytest.mark.parametrize("stage", STAGES)
def test_no_stage_of_a_search_or_a_pack_reads_the_query_with_a_cue_of_its_own(stage):
    tree = ast.parse((REPO / "memory" / "retrieval" / stage).read_text())
    imported = {a.asname or a.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for a in node.names}
    # memories.py reads the dates a stored memory speaks of, not a query's: find_dates is its own.
    allowed = {"find_dates"} if stage == "memories.py" else set()
    assert not (imported & CUES) - allowed


def test_a_pack_and_a_search_parse_their_query_once(in_process, monkeypatch):
    d = in_process(fake_embedder=True)
    d.call("memory.add", {"content": "Ana lives in Berlin.", "type": "fact"})
    d.call("memory.add", {"content": "Ana moved to Leeds last March.", "type": "fact"})
    parsed: list[str] = []
    parse = Query.parse.__func__

    def counted(cls, text: str, asked_at: datetime) -> Query:
        parsed.append(text)
        return parse(cls, text, asked_at)

    monkeypatch.setattr(Query, "parse", classmethod(counted))
    pack = d.call("context.pack", {"query": "Where does Ana live now?", "budget_tokens": 300})
    assert parsed == ["Where does Ana live now?"]
    hits = d.call("memory.search", {"query": "What did Ana do last March?"})["results"]
    assert parsed == ["Where does Ana live now?", "What did Ana do last March?"]
    # What the stages read from the parsed query still decides: the newest residence comes first.
    assert "Leeds" in pack["text"] and hits[0]["content"] == "Ana moved to Leeds last March."


def test_a_query_holds_what_each_stage_asks_of_it():
    asked_at = datetime(2024, 10, 21)
    q = Query.parse("Where does Ana live now?", asked_at)
    assert (q.terms, q.kind, q.slots, q.about_now, q.spread) == (
        ("ana", "live"),
        "fact",
        (("residence", "ana"),),
        True,
        False,
    )
    past = Query.parse("Where did Ana live before she moved in 2019?", asked_at)
    assert past.about_the_past and past.slots == ()  # an old value may be the answer: no slot is lifted
    dated = Query.parse("Which investor did I meet last Thursday?", asked_at)
    assert dated.days == (("2024-10-16", "2024-10-19"),) and "thursday" not in dated.terms
    advice = Query.parse("Should I go to the concert next Thursday?", asked_at)
    assert advice.kind == "planning" and advice.days == ()
    gym = Query.parse("How much is my gym membership now?", asked_at)
    assert gym.names_another("subscription", "My Netflix subscription is 11 pounds")
    assert not gym.names_another("subscription", "Our monthly fee goes up to 52 pounds")
    assert Query.parse("What's the wifi password?", asked_at).secret_kinds == {"password"}
    assert Query.parse("What did you recommend for dinner?", asked_at).wants_assistant
    assert Query.parse("What did Caroline research?", asked_at).names({"caroline smith", "melanie"}) == {
        "caroline smith"
    }
