"""The identity: PersonaState and its merge, trait scales, SOUL.md/IDENTITY.md read, the identity
graph and its recall."""
