"""The lexical candidates: a query's word forms never outweigh its own rare words, so what plain
BM25 finds is never lost from the candidates (memory/retrieval/lexical.py)."""

from __future__ import annotations

import pytest

from agentmemd.memory.retrieval.candidates import _best_bm25
from agentmemd.memory.retrieval.lexical import bm25_hits, looked_up, other_forms_of

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)


def test_a_form_the_index_already_stems_to_a_term_is_not_looked_up_again():
    # FTS5's porter stemmer holds "going" as "go": looking both up weighed "go" twice.
    assert "going" not in other_forms_of(["go", "bar"])
    assert "went" in other_forms_of(["go", "bar"])  # an irregular form the stemmer cannot make
    assert "go" in other_forms_of(["went"]) and "going" not in other_forms_of(["went"])


def test_the_rare_word_of_a_question_keeps_its_evidence_among_the_candidates(in_process):
    d = in_process(fake_embedder=True)
    items = [{"content": f"Jon said: I am going to go see game {i}, going there with Gina", "type": "fact"}
             for i in range(70)]  # fmt: skip
    items += [{"content": f"Note {i}: the weather report for district {i} is mild", "type": "fact"} for i in range(900)]
    items += [{"content": "Jon said: the new bar downtown was packed on Friday", "type": "fact"}]
    for start in range(0, len(items), 500):
        d.call("memory.add_many", {"items": items[start : start + 500]})

    def candidates() -> tuple[int, bool]:
        store = d.services.store
        terms, phrases = looked_up("When did Jon go to a bar?")
        hits = bm25_hits(store, "default", terms, 20_000, 1.0, phrases)
        gold = store.conn.execute("SELECT seq FROM memories WHERE content LIKE '%bar downtown%'").fetchone()[0]
        ranked = sorted(hits.scores, key=lambda seq: -hits.scores[seq])
        return ranked.index(gold), gold in _best_bm25(hits.scores, 50)

    rank, candidate = d.run_on_store(candidates)
    assert candidate and rank < 5, rank  # before: rank 70, outside the 50 lexical candidates
