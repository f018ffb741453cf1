"""agentmemd.persona — PersonaState, SyncScore, anchors and identity (issue 5; not built yet)."""
