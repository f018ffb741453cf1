"""MemoryWrites: memory.add and memory.add_many with their embedding beside the store thread.

Embedding a memory takes 10-40 ms of model time; the insert takes well under one. Embedded on
the store thread, every write queued behind the others' embeddings (issue 17: eight clients made
an add's p50 250 ms). Here the text is validated and embedded on the caller's thread (the model
runs [embedding] workers passes at once), and so is memory.add's look for a live memory that
already says the same (a product over the namespace's vectors); only the insert, after a look at
what was stored meanwhile, hops to the store thread.

Episodes are the daemon's to make, from conversation turns (memory/conversation/episodes.py adds
them through ``Memories.add_many`` directly); a caller's memory.add of one is refused.

    writes = MemoryWrites(memories, run_on_store)
    writes.add(AddParams(content="The user prefers short answers", type="preference"))
"""

from __future__ import annotations

from contextlib import nullcontext

from agentmemd.memory.core.errors import InvalidParams
from agentmemd.memory.core.models import AddManyParams, AddManyResult, AddParams, AddResult
from agentmemd.memory.core.threads import RunOnStore, run_here
from agentmemd.memory.core.vocabulary import EPISODE
from agentmemd.memory.retrieval.memories import Memories

NOT_AN_EPISODE = (
    "'episode' memories are the turns of a conversation as said, which the daemon makes from "
    "conversation.append; store what was learned as a fact, preference, persona, relational or procedural memory"
)


class MemoryWrites:
    def __init__(self, memories: Memories, run_on_store: RunOnStore):
        self.memories = memories
        self.run_on_store = run_on_store

    def add(self, p: AddParams) -> AddResult:
        """One memory, or the id of the live one that says the same (``duplicate``), with the closest
        memories already stored (``similar``)."""
        _refuse_episodes([p], field_prefix="")
        vectors = self.memories.prepare_vectors([p], field_prefix="")[0]
        read = self.memories.read_words_of([p])  # beside the embedding, not in the write transaction
        # Beside the store thread (on a read-only connection) where there is one; a library's own thread else.
        with self.memories.store.reading() if self.run_on_store is not run_here else nullcontext():
            near = self.memories.nearest_for_add(p, vectors)
        return self.run_on_store(lambda: self.memories.add_unless_stored(p, vectors, near, read))

    def add_many(self, p: AddManyParams) -> AddManyResult:
        """Every item stored as given (a bulk import: no look for duplicates), atomically."""
        _refuse_episodes(p.items, field_prefix="items")
        vectors = self.memories.prepare_vectors(p.items, field_prefix="items")
        read = self.memories.read_words_of(p.items)  # beside the embedding, not in the write transaction
        return AddManyResult(ids=self.run_on_store(lambda: self.memories.add_many(p.items, vectors=vectors, read=read)))


def _refuse_episodes(items: list[AddParams], field_prefix: str) -> None:
    for i, item in enumerate(items):
        if item.type == EPISODE:
            raise InvalidParams(f"{field_prefix}.{i}.type" if field_prefix else "type", NOT_AN_EPISODE)
