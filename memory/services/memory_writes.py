"""MemoryWrites: memory.add and memory.add_many with their embedding beside the store thread.

Embedding a memory takes 10-40 ms of model time; the insert takes well under one. Embedded on
the store thread, every write queued behind the others' embeddings (issue 17: eight clients made
an add's p50 250 ms). Here the text is validated and embedded on the caller's thread (the model
runs [embedding] workers passes at once), and only the insert hops to the store thread.

    writes = MemoryWrites(memories, run_on_store)
    writes.add(AddParams(content="The user prefers short answers", type="preference"))
"""

from __future__ import annotations

from agentmemd.memory.core.models import AddManyParams, AddManyResult, AddParams, AddResult
from agentmemd.memory.core.threads import RunOnStore
from agentmemd.memory.retrieval.memories import Memories


class MemoryWrites:
    def __init__(self, memories: Memories, run_on_store: RunOnStore):
        self.memories = memories
        self.run_on_store = run_on_store

    def add(self, p: AddParams) -> AddResult:
        vectors = self.memories.prepare_vectors([p], field_prefix="")
        return AddResult(id=self.run_on_store(lambda: self.memories.add_many([p], vectors=vectors))[0])

    def add_many(self, p: AddManyParams) -> AddManyResult:
        vectors = self.memories.prepare_vectors(p.items, field_prefix="items")
        return AddManyResult(ids=self.run_on_store(lambda: self.memories.add_many(p.items, vectors=vectors)))
