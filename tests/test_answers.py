"""The answer to a question asked just before it (candidates.py, [retrieval] answer_share): in a
conversation the evidence is often the reply ("We love playing It Takes Two together") to a
question that matches ("What's your favourite game to play with him?") while the reply shares
no word with what is asked later. A reply is at least answer_share as similar as the question it
follows, in its episode; an assistant's reply is not, unless what the assistant said is asked.

Real MiniLM (the in-process daemon's default embedder): the defect is about what the model finds
similar."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.inprocess

DAY = "2023-05-0{}T10:{:02d}:00Z"
# One conversation a day: the question and its answer on day 3, other talk of games around it.
TURNS = [
    (1, "Jolene: I finally bought a new console, the games look amazing on it."),
    (1, "Deborah: Nice! Which games did it come with?"),
    (1, "Jolene: Two racing games and a puzzle one. The racing games are great fun."),
    (2, "Deborah: My nephew plays board games with me every Sunday, he always wins."),
    (2, "Jolene: Board games are the best for rainy days, we have a shelf full of them."),
    (3, "Deborah: You two seem so close. What's your favourite game to play with your partner?"),
    (
        3,
        "Jolene: Oh, It Takes Two, no contest! We play it every weekend, a co-op adventure where you have to "
        "work together to get through each level, and we end up laughing the whole time, even when we argue "
        "about who messed up the jump.",
    ),
    (3, "Deborah: That sounds like so much fun, I should try it with my husband."),
    (4, "Jolene: I played a game of chess against my brother last night and lost again."),
    (4, "Jolene: My favourite game as a kid was hide and seek with my cousins."),
    (4, "Deborah: Chess is a hard game, my favourite is still Monopoly."),
]
QUESTION = "What is the favorite game Jolene plays with her partner?"
ANSWER = TURNS[6][1]


def _store(daemon, ns: str, turns=TURNS) -> dict[str, str]:
    ids = {}
    for i, (day, text) in enumerate(turns):
        added = daemon.call(
            "memory.add", {"content": text, "type": "fact", "namespace": ns, "created": DAY.format(day, i)}
        )
        ids[added["id"]] = text
    return ids


def _top(daemon, ns: str, query: str, k: int = 3) -> list[str]:
    hits = daemon.call("memory.search", {"query": query, "namespace": ns, "k": k})["results"]
    return [h["content"] for h in hits]


@pytest.mark.parametrize("share, found", [(0.0, False), (1.0, True)])
def test_the_answer_to_a_matching_question_is_found(in_process, share, found):
    daemon = in_process({"retrieval": {"answer_share": share}})
    _store(daemon, "answers")
    assert (ANSWER in _top(daemon, "answers", QUESTION)) is found, _top(daemon, "answers", QUESTION, 10)


def test_the_lift_is_shown_as_a_signal_and_only_follows_a_question(daemon, ns):
    _store(daemon, ns)
    hits = daemon.call("memory.search", {"query": QUESTION, "namespace": ns, "k": 10})["results"]
    lifted = {h["content"]: h["signals"]["answer"] for h in hits if h["signals"]["answer"] > 0}
    assert ANSWER in lifted
    # The turn after the answer follows no question: it is not lifted as one.
    assert TURNS[7][1] not in lifted


def test_an_assistant_s_reply_is_not_lifted_unless_asked_for(daemon, ns):
    turns = [
        (1, "user: We booked a cottage in Cornwall for August. Any ideas what to pack for the kids?"),
        (1, "assistant: Bring rain jackets, wellies, a kite, buckets and spades, and some card games."),
        (2, "user: My daughter Mia started swimming lessons and loves them."),
        (3, "user: The cottage in Cornwall has a wood stove, which the kids are excited about."),
    ]
    _store(daemon, ns, turns)
    query = "What did I pack for the trip to Cornwall?"
    hits = daemon.call("memory.search", {"query": query, "namespace": ns, "k": 4})["results"]
    reply = next(h for h in hits if h["content"].startswith("assistant:"))
    assert reply["signals"]["answer"] == 0
    asked = "What did you recommend I pack for Cornwall?"
    hits = daemon.call("memory.search", {"query": asked, "namespace": ns, "k": 4})["results"]
    assert hits[0]["content"].startswith("assistant:")


def test_an_answer_stored_with_its_context_still_answers_the_question_before_it(in_process):
    """A memory stored with its context is not lifted by its neighbours (the context carries its
    episode), but it is still the answer to the question stored just before it."""
    daemon, ns = in_process(), "situated"
    for i, (day, text) in enumerate(TURNS):
        item = {"content": text, "type": "fact", "namespace": ns, "created": DAY.format(day, i)}
        if i and TURNS[i - 1][0] == day:
            item["context"] = TURNS[i - 1][1]
        daemon.call("memory.add", item)
    hits = daemon.call("memory.search", {"query": QUESTION, "namespace": ns, "k": 10})["results"]
    signals = {h["content"]: h["signals"] for h in hits}
    assert signals[ANSWER]["answer"] > 0 and signals[ANSWER]["neighbourhood"] == 0, signals[ANSWER]
