"""The semantic response cache (seed 001) in front of the real anthropic provider, which talks
to a local Messages API server: exact hits, semantic hits, keyword-only keys, namespaces,
exact-only tasks and uncacheable ones."""

from __future__ import annotations

import json

import pytest
from fake_anthropic import FakeAnthropic, message

from agentmemd.memory.core.clock import ManualClock, parse_time
from agentmemd.memory.core.config import CacheConfig, LLMConfig
from agentmemd.memory.llm.anthropic_provider import AnthropicProvider
from agentmemd.memory.llm.cache import ResponseCache, keywords
from agentmemd.memory.llm.ledger import Ledger
from agentmemd.memory.llm.tasks import IMPRESSION, OBSERVE, SUMMARISE, ImpressionResult, SummaryResult, TurnIn
from agentmemd.memory.retrieval.embeddings import MiniLMEmbedder
from agentmemd.memory.store.database import Store
from agentmemd.persona.syncscore.judge import JUDGE

pytestmark = pytest.mark.process  # the tier (pyproject.toml)

POTTERY = [
    "Melanie signed up for a pottery class yesterday.",
    "Melanie says pottery is calming and creative.",
    "Melanie made a clay bowl in her pottery class.",
]
POTTERY_AGAIN = [
    "Melanie signed up for a pottery class yesterday.",
    "Melanie says pottery is calming and creative.",
    "Melanie made a clay mug in her pottery class.",
]
ADOPTION = ["Caroline is researching adoption agencies.", "Caroline chose an agency that supports LGBTQ+ parents."]


@pytest.fixture(scope="module")
def embedder():
    return MiniLMEmbedder(0)


@pytest.fixture
def setup(tmp_path, embedder):
    store = Store(tmp_path / "db", dim=embedder.dim, model=embedder.name)
    clock = ManualClock(parse_time("2026-11-22T10:00:00Z"))
    with FakeAnthropic() as fake:
        cfg = LLMConfig(provider="anthropic", base_url=fake.base_url, max_retries=0)
        provider = AnthropicProvider(cfg, Ledger(store, clock, cfg), api_key="test-key")

        def cache(**over) -> ResponseCache:
            return ResponseCache(
                store, embedder, clock, CacheConfig(**{"similarity_threshold": 0.9, **over}), provider.name
            )

        yield fake, provider, cache, store
    store.close()


def summary(text: str):
    return message(json.dumps({"summary": text}), input_tokens=200, output_tokens=20)


def summarise(cache, provider, texts, namespace="default"):
    return cache.through(SUMMARISE, namespace, texts, lambda: provider.summarise(texts, namespace=namespace))


def stats(cache, task):
    return next(r for r in cache.totals() if r["task"] == task)


def test_an_identical_prompt_is_answered_from_the_cache_without_a_call(setup):
    fake, provider, make, _ = setup
    cache = make()
    fake.replies.append(summary("Melanie took up pottery."))
    first = summarise(cache, provider, POTTERY)
    second = summarise(cache, provider, POTTERY)
    assert first == second == SummaryResult(summary="Melanie took up pottery.")
    assert len(fake.requests) == 1
    s = stats(cache, "summarise")
    assert (s["hits_exact"], s["hits_semantic"], s["misses"]) == (1, 0, 1) and s["tokens_saved"] > 20


def test_a_similar_prompt_reuses_the_answer_and_a_different_one_does_not(setup):
    fake, provider, make, _ = setup
    cache = make()
    fake.replies.extend([summary("Melanie took up pottery."), summary("Caroline is adopting.")])
    summarise(cache, provider, POTTERY)
    assert summarise(cache, provider, POTTERY_AGAIN).summary == "Melanie took up pottery."  # bowl -> mug
    assert summarise(cache, provider, ADOPTION).summary == "Caroline is adopting."
    assert len(fake.requests) == 2
    s = stats(cache, "summarise")
    assert (s["hits_exact"], s["hits_semantic"], s["misses"]) == (0, 1, 2)
    # Another namespace never sees this one's answers.
    fake.replies.append(summary("Pottery, elsewhere."))
    assert summarise(cache, provider, POTTERY, namespace="other").summary == "Pottery, elsewhere."


def test_the_threshold_decides(setup):
    fake, provider, make, _ = setup
    strict = make(similarity_threshold=0.999)
    fake.replies.extend([summary("one"), summary("two")])
    summarise(strict, provider, POTTERY)
    assert summarise(strict, provider, POTTERY_AGAIN).summary == "two"


def test_keyword_only_caching_embeds_only_the_keywords(setup):
    fake, provider, make, store = setup
    cache = make(keyword_only=True)
    fake.replies.append(summary("Melanie took up pottery."))
    summarise(cache, provider, POTTERY)
    key_text = store.conn.execute("SELECT key_text FROM llm_cache").fetchone()[0]
    assert key_text == keywords(json.dumps(POTTERY))
    assert "{" not in key_text and "pottery" in key_text.split() and key_text.split().count("pottery") == 1
    assert summarise(cache, provider, POTTERY_AGAIN).summary == "Melanie took up pottery."
    assert len(fake.requests) == 1


def test_observe_answers_are_reused_only_for_the_exact_same_turns(setup):
    fake, provider, make, _ = setup
    cache = make(similarity_threshold=0.5)
    reply = json.dumps({"observations": [{"priority": "MED", "category": "fact", "content": "x", "source_turns": [1]}]})
    fake.replies.extend([message(reply), message(reply)])
    turns = [
        TurnIn(seq=1, role="user", speaker="Ana", content="I moved to Lisbon last May.", ts="2023-06-01T10:00:00Z")
    ]
    similar = [turns[0].model_copy(update={"content": "I moved to Porto last May."})]
    for batch in (turns, similar, turns):
        cache.through(OBSERVE, "default", batch, lambda b=batch: provider.observe(b, namespace="default"))
    assert len(fake.requests) == 2  # the similar batch was not served another batch's facts
    s = stats(cache, "observe")
    assert (s["hits_exact"], s["hits_semantic"], s["misses"]) == (1, 0, 2)


def test_a_persons_impression_asked_again_is_read_back_from_the_cache(setup):
    """Impressions were cached, but a hit was read back with a table of result shapes that had no
    impression in it: the second rebuild of the same person raised KeyError instead of answering.
    Each task now declares its own result shape."""
    fake, provider, make, _ = setup
    cache = make()
    answer = {
        "cares_about": ["her pottery class"],
        "relationship_to_agent": "a friend of the user",
        "relationship_to_user": "close friend",
        "speaks": "short, warm messages",
        "believes": [],
    }
    fake.replies.append(message(json.dumps(answer), input_tokens=300, output_tokens=60))
    payload = {"name": "Melanie", "current": "", "memories": POTTERY}

    def ask():
        return cache.through(
            IMPRESSION,
            "default",
            payload,
            lambda: provider.impression("Melanie", "", POTTERY, namespace="default"),
        )

    first, again = ask(), ask()
    assert isinstance(again, ImpressionResult) and again == first
    assert again.cares_about == ["her pottery class"]
    assert len(fake.requests) == 1
    assert stats(cache, "impression")["hits_exact"] == 1


def test_an_uncacheable_task_always_reaches_the_model(setup):
    fake, provider, make, store = setup
    cache = make()
    fake.replies.extend([message("0.8"), message("0.6")])
    answers = [
        cache.through(
            JUDGE,
            "default",
            "same prompt",
            lambda: provider.complete("judge", stable="Score it.", prompt="same prompt").text,
        )
        for _ in range(2)
    ]
    assert answers == ["0.8", "0.6"] and len(fake.requests) == 2
    assert stats(cache, "judge")["bypassed"] == 2
    assert store.conn.execute("SELECT count(*) FROM llm_cache").fetchone()[0] == 0


def test_a_disabled_cache_stores_nothing(setup):
    fake, provider, make, store = setup
    cache = make(enabled=False)
    fake.replies.extend([summary("a"), summary("b")])
    assert [summarise(cache, provider, POTTERY).summary for _ in range(2)] == ["a", "b"]
    assert store.conn.execute("SELECT count(*) FROM llm_cache").fetchone()[0] == 0
