"""Finding and packing memories: writes, the parsed query, candidates, scoring, decay, MMR and the
pack in a hard token budget, search, forgetting's reach."""
