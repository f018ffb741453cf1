"""agentmemd's entries in a Claude Code settings file: written by `install`, removed by `uninstall`,
every other key and hook of the file kept as it was.

Claude Code reads hooks from ``~/.claude/settings.json`` (``$CLAUDE_CONFIG_DIR/settings.json``
when that is set), a project's ``.claude/settings.json`` and ``.claude/settings.local.json``, and
merges them; each entry is ``{"hooks": {Event: [{"matcher"?, "hooks": [{"type": "command",
"command", "timeout"}]}]}}``. An entry has no id: agentmemd's are known by their command, which
runs ``python -m agentmemd.daemon.claude_code HOOK``.
"""

from __future__ import annotations

import json
import os
import shlex
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

Scope = Literal["user", "project", "local"]
MARK = " -m agentmemd.daemon.claude_code "  # in every command agentmemd writes, and in no other

# Each event, the hook agentmemd runs for it, the matcher (SessionStart's sources; the others take
# none) and its timeout in seconds: a pack within 10 s or the prompt goes on without it; a
# session's end gets 1.5 s unless an entry asks for more (up to 60).
EVENTS: dict[str, tuple[str, str | None, int]] = {
    "SessionStart": ("session-start", "startup|resume|clear|compact", 10),
    "UserPromptSubmit": ("user-prompt-submit", None, 10),
    "Stop": ("stop", None, 30),
    "SessionEnd": ("session-end", None, 30),
}


class SettingsError(Exception):
    """The settings file cannot be read or written; nothing was changed."""


def settings_path(scope: Scope, project: Path, environ: dict[str, str] | None = None) -> Path:
    """Where Claude Code keeps the settings of ``scope``: the user's, or the project's (shared, or
    local to this machine)."""
    env = os.environ if environ is None else environ
    if scope == "user":
        config = env.get("CLAUDE_CONFIG_DIR")
        return (Path(config) if config else Path(env.get("HOME", str(Path.home()))) / ".claude") / "settings.json"
    return project / ".claude" / ("settings.json" if scope == "project" else "settings.local.json")


def hook_command(python: str, hook: str, options: list[str]) -> str:
    """The shell command of one hook (Claude Code runs it with /bin/sh): quoted, absolute."""
    return shlex.join([python, "-m", "agentmemd.daemon.claude_code", hook, *options])


def is_ours(handler: Any) -> bool:
    return isinstance(handler, dict) and MARK in str(handler.get("command", ""))


@dataclass
class Change:
    path: Path
    written: list[str]  # the events whose entry was written (or replaced)
    removed: int  # agentmemd's handlers taken out


def install(path: Path, python: str, options: list[str]) -> Change:
    """agentmemd's four entries in the file at ``path`` (created if missing), replacing any it
    wrote before; the rest of the file unchanged."""
    settings = _read(path)
    removed = _without_ours(settings)
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise SettingsError(f'{path}: "hooks" is not an object; fix it by hand first')
    for event, (name, matcher, timeout) in EVENTS.items():
        entry: dict[str, Any] = {
            "hooks": [{"type": "command", "command": hook_command(python, name, options), "timeout": timeout}]
        }
        if matcher:
            entry = {"matcher": matcher, **entry}
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise SettingsError(f'{path}: "hooks.{event}" is not a list; fix it by hand first')
        groups.append(entry)
    _write(path, settings)
    return Change(path, list(EVENTS), removed)


@dataclass
class Scoped:
    scope: str
    path: Path


def other_scopes_with_ours(path: Path, cwd: Path, env: dict[str, str] | None = None) -> list[Scoped]:
    """The settings files of the other scopes (as seen from ``cwd``) that hold agentmemd's hooks
    too: Claude Code runs the hooks of every scope it reads."""
    found = []
    scopes: tuple[Scope, ...] = ("user", "project", "local")
    for scope in scopes:
        other = settings_path(scope, cwd, env)
        if os.path.realpath(other) == os.path.realpath(path):
            continue
        try:
            hooks = _read(other).get("hooks")
        except SettingsError:
            continue
        if isinstance(hooks, dict) and any(
            isinstance(g, dict) and isinstance(g.get("hooks"), list) and any(is_ours(h) for h in g["hooks"])
            for groups in hooks.values()
            if isinstance(groups, list)
            for g in groups
        ):
            found.append(Scoped(scope, other))
    return found


def uninstall(path: Path) -> Change:
    """agentmemd's entries taken out of the file at ``path``: its handlers, then any group or event
    they leave empty; every other hook stays. A file that is not there is left so."""
    if not path.exists():
        return Change(path, [], 0)
    settings = _read(path)
    removed = _without_ours(settings)
    if removed:
        _write(path, settings)
    return Change(path, [], removed)


def _without_ours(settings: dict[str, Any]) -> int:
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return 0
    removed = 0
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        removed_before = removed
        kept_groups = []
        for group in groups:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(handlers, list):
                kept_groups.append(group)
                continue
            kept = [h for h in handlers if not is_ours(h)]
            removed += len(handlers) - len(kept)
            if kept:
                kept_groups.append({**group, "hooks": kept})
            elif len(kept) == len(handlers):  # a group that had no handlers: not ours to drop
                kept_groups.append(group)
        if kept_groups:
            hooks[event] = kept_groups
        elif removed > removed_before:  # emptied by taking ours out; an event the user left empty stays
            del hooks[event]
    if not hooks and removed:
        del settings["hooks"]
    return removed


def _read(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise SettingsError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not text.strip():
        return {}
    try:
        settings = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SettingsError(
            f"{path} is not valid JSON ({exc}); Claude Code would not read it either: fix it first"
        ) from None
    if not isinstance(settings, dict):
        raise SettingsError(f"{path} is not a JSON object")
    return settings


def _write(path: Path, settings: dict[str, Any]) -> None:
    """Written whole or not at all (a temporary file renamed over it), with the file's mode; a
    settings file that is a link (into a dotfiles repository) is written where it points, and
    stays a link."""
    path = Path(os.path.realpath(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o600
    fd, temporary = tempfile.mkstemp(prefix=".settings.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(json.dumps(settings, indent=2, ensure_ascii=False) + "\n")
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
