"""Episodes apart (search.py): of a search's first hits, one conversation's near-equal turns yield
places to another conversation's, judged by that hit's own match unless the question asks for a
list; a hit whose similarity its episode's neighbours lent it evicted the evidence."""

from types import SimpleNamespace

import numpy as np
import pytest

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
