"""The PersonaState over time: every version, rule proposals, Persona Preservation Records and SyncScores."""
