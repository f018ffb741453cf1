"""What the agent remembers, from the leaves up: the store, language and safety, retrieval
(embeddings, scoring, MMR, packing, decay), the LLM layer, and what derives memories
(conversations, chat imports, the Markdown workspace, consolidation)."""
