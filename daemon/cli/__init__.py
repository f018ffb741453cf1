"""The `agentmemd` command on click: one decorated function a command, each one call to the daemon."""
