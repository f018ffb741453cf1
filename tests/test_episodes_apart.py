"""Episodes apart (search.py): of a search's first hits, one conversation's near-equal turns yield
places to another conversation's, judged by that hit's own match unless the question asks for a
list; a hit whose similarity its episode's neighbours lent it evicted the evidence."""

from types import SimpleNamespace

import numpy as np
import pytest
from conftest import wait_for

from agentmemd.memory.core.config import Config
from agentmemd.memory.retrieval.candidates import Scored
from agentmemd.memory.retrieval.query_kind import asks_for_a_list
from agentmemd.memory.retrieval.scoring import Signals
from agentmemd.memory.retrieval.search import Search

pytestmark = pytest.mark.inprocess


def _hit(name: str, when: str, similarity: float, match: float) -> Scored:
    signals = Signals(similarity=similarity, priority=0.0, decay=1.0, frequency=0.0, match=match)
    return Scored({"id": name, "created": when}, np.zeros(3), signals, similarity, 1.0, "hot")


# Two turns of one conversation, then a turn of another whose similarity its neighbours lent it.
HITS = [
    _hit("a1", "2024-03-01T10:00:00Z", 0.90, 0.90),
    _hit("a2", "2024-03-01T10:01:00Z", 0.85, 0.85),
    _hit("b1", "2024-05-01T10:00:00Z", 0.80, 0.30),
]


@pytest.mark.parametrize("by_own_match, order", [(False, ["a1", "b1", "a2"]), (True, ["a1", "a2", "b1"])])
def test_another_episode_takes_a_place_only_on_its_own_match_unless_a_list_is_asked(by_own_match, order):
    search = Search(SimpleNamespace(), SimpleNamespace(), Config(), SimpleNamespace())
    assert [s.row["id"] for s in search._episodes_apart(list(HITS), by_own_match)] == order


@pytest.mark.parametrize(
    "query, listed",
    [
        ("Which cities have I travelled to for work this year?", True),
        ("What books has Melanie read?", True),
        ("Can you remind me who I've seen about my knee so far?", True),
        ("How many hikes has Joanna been on?", True),
        ("When did Caroline go to the support group?", False),
        ("Which US state did Jolene visit during her internship?", False),
        ("Which bus do I take to work?", False),
    ],
)
def test_which_questions_ask_for_a_list(query, listed):
    assert asks_for_a_list(query) is listed


def test_turns_of_different_conversations_are_not_one_episode(in_process):
    """Three chats of one namespace, their turns stored one after another: a turn's neighbours and
    the question it answers are its own conversation's, not whatever was stored just before it."""
    d = in_process({"clock": {"start": "2026-11-20T09:00:00Z"}})
    said = [
        ("chatA", "Any tips for feeding my pet?"),
        ("chatB", "My cousin Irene works at a pharmacy in Faro."),
        ("chatC", "I adopted a grey cat named Bolacha yesterday."),
    ]
    for session, text in said:
        d.call("conversation.append", {"session": session, "role": "user", "content": text})
    d.services.episodes.catch_up()
    hits = d.call("memory.search", {"query": "What should I feed my pet?", "k": 5})["results"]
    ranked = [h["content"] for h in hits if h["type"] == "episode"]
    cousin = next(i for i, c in enumerate(ranked) if "Irene" in c)
    cat = next(i for i, c in enumerate(ranked) if "Bolacha" in c)
    assert cat < cousin, ranked
    assert all(h["signals"]["answer"] == 0 for h in hits if "Irene" in h["content"]), hits
    pack = d.call("context.pack", {"query": "What should I feed my pet?", "budget_tokens": 400})
    assert "Irene" not in pack["text"]  # it answered nothing: another chat's line stored after the question


SPORTS = [  # (session, speaker, text): an evening of chat about climbing, then two other days
    ("s1", "Maya", "climbing tomorrow at the wall, who's in?"),
    ("s1", "Tom", "you and your sports Maya, my forearms are still dead"),
    ("s1", "Maya", "come on, the new bouldering routes are amazing"),
    ("s1", "Tom", "ok see you at 7 at the sports centre"),
    ("s2", "Tom", "how was your weekend?"),
    ("s2", "Maya", "played padel with my sister on saturday, lost every set 😂"),
    ("s3", "Maya", "just swam 2k at the pool before work"),
    ("s3", "Tom", "show off"),
]


def test_a_spread_answer_s_parts_are_not_lifted_by_their_neighbours(in_process):
    """Asked for a list, a turn's neighbours lent it their match (the neighbourhood lift), so one
    session's turns around the best part filled the hits; each part now stands on its own match.
    A question answered inside one exchange keeps the lift."""
    d = in_process({"clock": {"start": "2026-11-20T09:00:00Z"}})
    days = {"s1": "2026-11-01T19:", "s2": "2026-11-04T12:", "s3": "2026-11-07T08:"}
    for i, (session, speaker, text) in enumerate(SPORTS):
        ts = f"{days[session]}{i:02d}:00Z"
        d.call(
            "conversation.append", {"session": session, "role": "user", "speaker": speaker, "content": text, "ts": ts}
        )
    wait_for(lambda: d.call("channels.pending", {"namespace": "default"})["pending"] == 0)
    spread = d.call("memory.search", {"query": "What sports does Maya play?", "k": 8})["results"]
    assert spread and all(h["signals"]["neighbourhood"] == 0 for h in spread)
    one = d.call("memory.search", {"query": "When is Maya going climbing at the wall?", "k": 8})["results"]
    assert any(h["signals"]["neighbourhood"] > 0 for h in one)
