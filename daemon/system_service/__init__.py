"""agentmemd as a system service (not the services layer, daemon/services): `agentmemd service install | uninstall | status | logs`
writes a systemd user unit (Linux) or a launchd agent (macOS) that runs `agentmemd serve`.

    places    where an installed daemon keeps its files (the CLI's default socket comes from it)
    models    what is written (ServiceSpec) and what the commands report
    systemd   the unit: written, read back, and the systemctl/journalctl commands
    launchd   the plist: written, read back, and the launchctl/tail commands
    runner    runs those commands (tests put a recorder in its place)
    manager   install, uninstall, status and logs, for either

Below the socket in the layers: it never talks to the daemon; `status` is handed the function
that asks it for `health`.
"""
