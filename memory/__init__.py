"""agentmemd.memory — the store, embeddings, scoring, MMR, packing and decay."""
