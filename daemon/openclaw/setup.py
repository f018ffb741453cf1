"""What `agentmemd hooks openclaw install | uninstall` does, through OpenClaw's own CLI (never by
editing its JSON5 config, which a person may have written by hand):

    install     openclaw plugins install -l PLUGIN --force --accept-capabilities
                (linked, so an upgraded agentmemd is loaded as it is; OpenClaw puts it in the
                memory slot), then one `openclaw config set --batch-json` for the hook permission it needs
                (hooks.allowConversationAccess) and the plugin's config (the socket, ...)
    uninstall   openclaw plugins uninstall agentmemd --force (OpenClaw removes its entries and
                gives the memory slot back to memory-core)

and where OpenClaw's workspace is, so agentmemd's can be pointed at it (one set of SOUL.md,
USER.md, MEMORY.md and daily files).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from agentmemd.memory.core.errors import AgentmemdError

PLUGIN_ID = "agentmemd"
PLUGIN_DIR = Path(__file__).resolve().parent / "plugin"
ENTRY = f"plugins.entries.{PLUGIN_ID}"


class OpenClawError(AgentmemdError):
    """OpenClaw could not be found or refused a step; the message says which and what it said."""


@dataclass(frozen=True)
class OpenClaw:
    """The `openclaw` command to run (its path; the environment is this process's)."""

    command: str
    timeout: float = 180.0

    @classmethod
    def find(cls, given: str | None) -> "OpenClaw":
        found = given or shutil.which("openclaw")
        if given and not (os.access(given, os.X_OK) or shutil.which(given)):
            raise OpenClawError(f"--openclaw {given}: no such command (not an executable file, nor one on PATH)")
        if not found or not (os.access(found, os.X_OK) or shutil.which(found)):
            raise OpenClawError(
                "no `openclaw` command found: install OpenClaw (npm install -g openclaw) or give --openclaw PATH"
            )
        return cls(found)

    def run(self, *args: str) -> str:
        try:
            done = subprocess.run(
                [self.command, *args], capture_output=True, text=True, timeout=self.timeout, stdin=subprocess.DEVNULL
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise OpenClawError(f"`openclaw {' '.join(args)}` could not run: {exc}") from None
        if done.returncode != 0:
            said = (done.stderr.strip() or done.stdout.strip())[-1500:]
            raise OpenClawError(f"`openclaw {' '.join(args)}` failed (exit {done.returncode}): {said}")
        return done.stdout

    def set_many(self, values: dict[str, object]) -> None:
        """Every path to its value in one `openclaw config set --batch-json` (one validated write;
        each OpenClaw command costs seconds to start)."""
        batch = [{"path": path, "value": value} for path, value in values.items()]
        self.run("config", "set", "--batch-json", json.dumps(batch))

    def get(self, path: str) -> str | None:
        try:
            value = self.run("config", "get", path).strip()
        except OpenClawError:
            return None  # not set
        return value or None


def plugin_config(socket: Path, namespace: str | None, budget_tokens: int, token: str | None) -> dict[str, object]:
    """The plugin's config (its manifest's configSchema): the socket found now, since OpenClaw's
    environment may not say where it is."""
    config: dict[str, object] = {"socket": str(socket), "budgetTokens": budget_tokens}
    if namespace:
        config["namespace"] = namespace
    if token:
        config["token"] = token
    return config


def install(openclaw: OpenClaw, config: dict[str, object]) -> list[str]:
    """Install the plugin linked, allow its hooks, give it its config; what was done, in words."""
    openclaw.run("plugins", "install", "-l", str(PLUGIN_DIR), "--force", "--accept-capabilities")
    openclaw.set_many(
        {
            f"{ENTRY}.hooks.allowConversationAccess": True,
            f"{ENTRY}.config": config,
            f"{ENTRY}.enabled": True,
            "plugins.slots.memory": PLUGIN_ID,
        }
    )
    return [
        f"plugin {PLUGIN_ID} linked from {PLUGIN_DIR}",
        "memory slot: agentmemd (plugins.slots.memory)",
        "its hooks may read the conversation (hooks.allowConversationAccess)",
        f"config: {json.dumps({k: ('…' if k == 'token' else v) for k, v in config.items()})}",
    ]


def uninstall(openclaw: OpenClaw) -> None:
    openclaw.run("plugins", "uninstall", PLUGIN_ID, "--force")


def workspace_of(openclaw: OpenClaw) -> Path:
    """OpenClaw's workspace: agents.defaults.workspace, else $OPENCLAW_WORKSPACE_DIR, else
    ~/.openclaw/workspace (its documented default)."""
    configured = openclaw.get("agents.defaults.workspace")
    if configured:
        return Path(configured.strip('"')).expanduser()
    if os.environ.get("OPENCLAW_WORKSPACE_DIR"):
        return Path(os.environ["OPENCLAW_WORKSPACE_DIR"]).expanduser()
    home = Path(os.environ.get("OPENCLAW_HOME") or Path.home())
    return home / ".openclaw" / "workspace"
