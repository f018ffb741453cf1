"""A burst of replies unlike the agent's own voice (persona/syncscore/judge.py's own_voice_departures):
three replies in a row far from the habits of the agent's own recent replies bring a reminder,
though the persona judge scores them near the agent's level; its own replies in another session
bring none."""

from __future__ import annotations

import pytest

from agentmemd.daemon.bench.society import load_world
from agentmemd.persona.syncscore.judge import off_own_voice, own_voice_departures
from agentmemd.persona.syncscore.stylometry import OWN_VOICE, own_voice

pytestmark = pytest.mark.inprocess

WORLD = load_world()


def in_character(agent: str) -> list[str]:
    """The agent's own replies in the society bench's season, those written in character."""
    return [
        m["text"]
        for r in WORLD["rounds"]
        for c in r["chats"]
        for m in c["messages"]
        if m["from"] == agent and not m["drift"]
    ]


INES = next(a for a in WORLD["agents"] if a["id"] == "ines")
HERS = in_character("ines")  # terse and clipped
# Written for this test: on her topics, within her rules and free of the habits the persona judge
# marks (no hedges, no exclamations, no pleasantries), but long, asking and chatty, which she is not.
CHATTY = [
    "Tomas, what do you think we should do about the mooring line, and would you like me to come down and "
    "look at it with you this afternoon before the tide turns?",
    "Have you spoken to Oskar about the forecast yet, and do you know whether the ferry's still planning to "
    "sail, because I'd like to know what you both think before I decide anything?",
    "Could you tell me what time you're planning to leave, and who's going with you, so that I can write it "
    "down properly in the log before six?",
]


def test_the_voice_of_a_reply_is_its_habits():
    terse, chatty = own_voice("Force eight by noon. Nothing leaves."), own_voice(CHATTY[1])
    assert len(terse) == len(OWN_VOICE) and all(0 <= x <= 1 for x in terse + chatty)
    habit = dict(zip(OWN_VOICE, zip(terse, chatty)))
    assert habit["questions"][0] < habit["questions"][1] and habit["sentence length"][0] < habit["sentence length"][1]


def test_departures_are_in_units_of_the_agents_own_spread():
    history = [own_voice(t) for t in HERS]
    assert own_voice_departures(history[:19], [history[0]]) is None  # too little of her own yet
    own = own_voice_departures(history, history)
    assert own is not None and abs(sum(own) / len(own)) < 0.01  # her replies are her level, on average
    far = own_voice_departures(history, [own_voice(t) for t in CHATTY])
    assert far is not None and min(far) > 2.0, far
    assert off_own_voice(far, 3, 2.0) and not off_own_voice(far[:2] + [0.0], 3, 2.0)


def test_three_replies_unlike_her_own_bring_a_reminder_and_her_own_bring_none(in_process, tmp_path):
    ws = tmp_path / "ines"
    ws.mkdir()
    (ws / "SOUL.md").write_text(INES["soul"])
    d = in_process(workspace=ws)

    def score(session: str, reply: str) -> dict:
        return d.call("persona.score", {"response": reply, "session": session})

    for n, reply in enumerate(HERS[:-3]):
        score(f"harbour-{n // 4}", reply)  # her voice, over several sessions
    own = [score("own", reply) for reply in HERS[-3:]]
    assert [s["action"] for s in own] == ["none"] * 3, [(s["composite"], s["details"].get("burst")) for s in own]
    unlike = [score("unlike", reply) for reply in CHATTY]
    assert [s["action"] for s in unlike] == ["none", "none", "reinforce"], [
        (s["composite"], s["ewma"], s["details"].get("burst")) for s in unlike
    ]
    burst = unlike[-1]["details"]["burst"]
    assert burst["replies"] == 3 and min(burst["own_voice_departures"]) >= 1.0 and burst["history"] >= 20
    assert all(s["ewma"] >= 0.7 for s in unlike)  # the EWMA alone would not have acted


PRIYA = next(a for a in WORLD["agents"] if a["id"] == "priya")
PRIYAS = in_character("priya")  # bubbly, emoji
# Written for this test: Priya (bubbly, emoji) on her own topics, polite and on point, but with
# every emoji, exclamation and question gone: a change a few of her habits carry, not all 19.
FLAT = [
    "Eight crab is what we have. I will stretch the chowder with potato and leave it at that.",
    "Invoice me at the end of the month. Payment terms are thirty days, the same for every supplier.",
    "Leave the crates at the back door before seven. The front is for the customers.",
]


def test_a_voice_that_changes_in_a_few_habits_is_a_burst(in_process, tmp_path):
    """Her emoji, exclamations and questions gone, three replies in a row: averaged over all 19
    habits the change was diluted under the bound; counted by its square it brings a reminder."""
    ws = tmp_path / "priya"
    ws.mkdir()
    (ws / "SOUL.md").write_text(PRIYA["soul"])
    d = in_process(workspace=ws)
    for n, reply in enumerate(PRIYAS[:-3]):
        d.call("persona.score", {"response": reply, "session": f"cafe-{n // 4}"})
    own = [d.call("persona.score", {"response": reply, "session": "own"}) for reply in PRIYAS[-3:]]
    assert [s["action"] for s in own] == ["none"] * 3
    flat = [d.call("persona.score", {"response": reply, "session": "flat"}) for reply in FLAT]
    assert [s["action"] for s in flat] == ["none", "none", "reinforce"], [
        (s["composite"], s["ewma"], s["details"].get("own_voice")) for s in flat
    ]
    burst = flat[-1]["details"]["burst"]
    assert "own_voice_departures" in burst and all(s["ewma"] >= 0.7 for s in flat)
