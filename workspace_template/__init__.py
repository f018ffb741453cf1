"""The Markdown workspace `agentmemd init` copies (package data: SOUL.md, IDENTITY.md, USER.md, MEMORY.md, GOALS.md, TOOLS.md, memory/)."""
