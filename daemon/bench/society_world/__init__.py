"""The society bench's world (world.json, README.md): data for `agentmemd bench society`."""
