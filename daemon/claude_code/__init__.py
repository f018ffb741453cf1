"""Claude Code with agentmemd's memory, through Claude Code's own hooks: `agentmemd hooks claude-code
install` writes four entries into a Claude Code settings file (and `uninstall` removes only those),
so a memory pack is added as context when a session starts and when a prompt is submitted, and the
session's transcript is kept in agentmemd when a turn or the session ends. MCP stays for the
model's own calls (`agentmemd mcp`).

    settings    the entries: where the settings file is, writing and removing them
    transcript  Claude Code's session transcript (JSON lines) read back into turns
    hooks       what each hook does when Claude Code runs it
"""
