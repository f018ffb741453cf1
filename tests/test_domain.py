"""The in-process tier's direct tests: pack building, context assembly and edit pairing as
plain functions, and consolidation's reconcile over an in-process engine with a fake embedder."""

from __future__ import annotations

import random

import numpy as np
import pytest

from agentmemd.memory.core.config import PackConfig
from agentmemd.memory.core.tokens import count_tokens
from agentmemd.memory.retrieval.pack_fitting import PACK_FOOTER, PACK_HEADER, PackCandidate, build_pack
from agentmemd.memory.workspace.indexer import WorkspaceIndexer
from agentmemd.memory.workspace.markdown import MarkdownItem
from agentmemd.persona.context.context import fit_turns, place_anchors

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)


def candidate(i: int, mtype: str, score: float, text: str, vector: np.ndarray) -> PackCandidate:
    return PackCandidate(
        id=f"m{i:03d}",
        type=mtype,
        score=score,
        content=text,
        content_tokens=count_tokens(text),
        source=None,
        created="2024-01-01T00:00:00.000000Z",
        vector=vector,
    )


def unit(seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(384).astype(np.float32)
    return v / np.linalg.norm(v)


@pytest.mark.parametrize("budget", [40, 80, 150, 400])
def test_a_pack_never_exceeds_its_budget_and_keeps_its_quota(budget):
    cands = [
        candidate(i, "fact", 0.9 - i / 100, f"Fact number {i} about the garden and the weather.", unit(i))
        for i in range(30)
    ]
    cands.append(candidate(99, "persona", 0.1, "Nova is warm and direct.", unit(99)))
    text, tokens, items, order = build_pack(cands, budget, PackConfig())
    assert tokens == count_tokens(text) <= budget
    assert sorted(order.complete()) == list(range(len(cands)))
    if items:
        assert text.startswith(PACK_HEADER) and text.endswith(PACK_FOOTER)
        assert "persona" in {it.candidate.type for it in items}  # min_items = {persona: 1}
        scores = [it.candidate.score for it in items]
        assert scores == sorted(scores, reverse=True)


def test_a_high_priority_does_not_bring_in_what_does_not_match_but_a_quota_still_holds():
    """The relevance floor (issue 16): scores order what matches; they do not pack what does not."""
    cands = [
        candidate(0, "fact", 0.62, "The user's sister lives in Porto.", unit(0)),
        candidate(1, "fact", 0.60, "The user likes the tram.", unit(1)),  # HIGH priority, barely matches
        candidate(2, "persona", 0.30, "Nova is warm and direct.", unit(2)),
    ]
    for c, similarity in zip(cands, (0.8, 0.2, 0.05)):
        c.similarity = similarity
    _, _, items, _ = build_pack(cands, 400, PackConfig())
    assert [it.candidate.id for it in items] == ["m000", "m002"]  # the persona quota ignores the floor
    _, _, items, _ = build_pack(cands, 400, PackConfig(relevance_floor=0))
    assert [it.candidate.id for it in items] == ["m000", "m001", "m002"]


def test_a_type_share_caps_its_items_and_a_near_duplicate_is_left_out():
    same = unit(1)
    cands = [
        candidate(0, "fact", 0.9, "The user lives in Lisbon.", same),
        candidate(1, "fact", 0.89, "The user lives in Lisbon, Portugal.", same),
        candidate(2, "preference", 0.5, "The user prefers short answers.", unit(2)),
    ]
    _, _, items, _ = build_pack(cands, 200, PackConfig(max_share={"fact": 0.1}))
    assert [it.candidate.id for it in items].count("m000") <= 1
    assert sum(it.tokens for it in items if it.candidate.type == "fact") <= 0.1 * 200
    _, _, items, _ = build_pack(cands, 200, PackConfig())
    assert [it.candidate.id for it in items] == ["m000", "m002"]  # the twin restates the best item


def test_the_newest_turns_that_fit_are_kept_and_a_lone_long_one_is_clipped():
    turns = [{"role": "user", "content": f"turn {i}", "tokens": 10} for i in range(6)]
    chosen, used = fit_turns(turns, 35)
    assert [t["content"] for t in chosen] == ["turn 3", "turn 4", "turn 5"] and used == 30
    long = [{"role": "user", "content": "word " * 200, "tokens": 200}]
    chosen, used = fit_turns(long, 20)
    assert len(chosen) == 1 and used == count_tokens(chosen[0]["content"]) <= 20


def test_anchors_go_at_a_third_and_two_thirds_or_ride_on_user_turns():
    messages = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"m{i}"} for i in range(12)]
    as_system = [dict(m) for m in messages]
    positions = place_anchors(as_system, "ANCHOR", 10, "system")
    assert positions == [4, 8] and [m["content"] for m in as_system].count("ANCHOR") == 2
    as_user = [dict(m) for m in messages]
    carriers = place_anchors(as_user, "ANCHOR", 10, "user")
    assert carriers == [4, 8] and len(as_user) == 12
    assert all(
        as_user[i]["role"] == "user" and as_user[i]["content"].startswith("<persona-anchor>ANCHOR") for i in carriers
    )
    assert place_anchors([dict(m) for m in messages[:4]], "ANCHOR", 10, "system") == []


def item(content: str, heading: tuple[str, ...] = ("Facts",), path: str = "USER.md") -> MarkdownItem:
    return MarkdownItem(
        path=path,
        heading_path=heading,
        content=content,
        line_start=1,
        line_end=1,
        type="fact",
        priority=None,
        created=None,
    )


def row(content: str, heading: str = "Facts", path: str = "USER.md") -> dict:
    return {"path": path, "heading_path": heading, "content": content, "memory_id": content[:8]}


def test_edits_pair_by_word_overlap_and_a_lone_rewrite_in_its_section():
    vanished = [row("Lives in Lisbon with two cats"), row("Works as a nurse", "Work")]
    new = [item("Lives in Porto with two cats"), item("Is a pediatric doctor now", ("Work",))]
    pairs = WorkspaceIndexer._pair_edits(vanished, new)
    assert {(r["content"], it.content) for r, it in pairs} == {
        ("Lives in Lisbon with two cats", "Lives in Porto with two cats"),  # shared words
        ("Works as a nurse", "Is a pediatric doctor now"),  # the only change in its section
    }
    # Unrelated text in another file is never an edit.
    assert WorkspaceIndexer._pair_edits([row("Likes tea")], [item("Owns a boat", path="MEMORY.md")]) == []


def test_consolidation_reconciles_instead_of_duplicating(in_process):
    d = in_process({"clock": {"start": "2024-01-01T00:00:00Z"}}, fake_embedder=True)
    items = [
        {"content": f"Melanie took the kids to the {place} on a sunny day {i}", "type": "fact"}
        for i, place in enumerate(["beach", "lake", "museum", "park"] * 10)
    ]
    d.call("memory.add_many", {"items": items})
    first = d.call("jobs.run", {"name": "consolidate"})["result"]
    assert first["added"] > 0
    nodes = d.call("consolidation.list", {})["nodes"]
    again = d.call("jobs.run", {"name": "consolidate"})["result"]
    assert again.get("added", 0) == 0  # the same tree is already stored: nothing new
    assert {n["id"] for n in d.call("consolidation.list", {})["nodes"]} == {n["id"] for n in nodes}


def test_every_method_is_a_params_model_a_service_call_and_a_result_model(in_process):
    from pydantic import BaseModel

    from agentmemd.daemon.socket.methods import build_methods

    d = in_process(fake_embedder=True)
    methods = build_methods(d.services)
    for name, method in methods.items():
        assert issubclass(method.params, BaseModel) and issubclass(method.result, BaseModel), name
        assert method.result.model_json_schema()["type"] == "object", name  # an output schema for every door
    # A service that breaks its documented shape is an internal error, never a silent change.
    methods["stats"].handler = lambda p: {"live": "many"}
    d.dispatcher.methods = methods
    reply = d.send_raw(b'{"jsonrpc": "2.0", "id": 1, "method": "stats"}')
    assert reply["error"]["code"] == -32603 and "does not match its model" in reply["error"]["message"]


# Texts that are hard on a WordPiece tokenizer: accents and a lone combining mark, CJK, emoji,
# punctuation runs, a control character, a zero-width space and a word too long for the vocabulary.
_TRICKY = ["café", "\u0301x", "東京", "🙂👍", "?!...", "a\x1cb", "zero\u200bwidth", "x" * 120, "don't", "U.S.A."]


@pytest.mark.parametrize("seed", range(8))
def test_tokens_of_texts_joined_at_whitespace_are_the_sum_of_theirs(seed):
    rng = random.Random(seed)
    words = ["memory", "pack", "the", "user's", "-", "[fact", "|", "2024-01-01", "id=m1]", *_TRICKY]
    seams = [" ", "\n", "\t", "\r\n", "\n\n"]
    for _ in range(200):
        parts = []
        for _ in range(rng.randint(1, 8)):
            parts.append(" ".join(rng.choices(words, k=rng.randint(0, 5))) + rng.choice(seams))
        assert sum(count_tokens(p) for p in parts) == count_tokens("".join(parts)), parts
