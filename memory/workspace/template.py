"""A new workspace: `agentmemd init` copies the template (never over a person's file) and writes
a config pointing at it, from the defaults that ship with the package."""

from __future__ import annotations

import json
import re
from pathlib import Path

from agentmemd.memory.core.config import load_config_text
from agentmemd.memory.core.errors import ConfigError
from agentmemd.memory.workspace.private_files import private_folders, write_new_private

# The shipped defaults ride in the template package (a link to the repository's agentmemd.toml),
# so `agentmemd init` writes them from a wheel too; they are not copied into the workspace.
DEFAULT_CONFIG = "agentmemd.toml"
NOT_COPIED = {"__init__.py", DEFAULT_CONFIG}


def template_dir() -> Path:
    """workspace_template/, the package data `agentmemd init` copies (a source checkout or a wheel)."""
    from importlib.resources import files

    return Path(str(files("agentmemd.workspace_template")))


def init_workspace(target: Path, config_path: Path | None = None) -> tuple[list[Path], Path | None]:
    """Copy the template into target without overwriting; write a config if none exists.

    Returns (files created, config written or None)."""

    template = template_dir()
    created: list[Path] = []
    for src in sorted(p for p in template.rglob("*") if p.name not in NOT_COPIED and "__pycache__" not in p.parts):
        dest = target / src.relative_to(template)
        if src.is_dir():
            private_folders(dest)
        elif not dest.exists():  # the user's alone, as the data dir is (the package's are 0644)
            write_new_private(dest, src.read_bytes())
            created.append(dest)
    return created, write_default_config(config_path or target.resolve().parent / "agentmemd.toml", target)


def write_default_config(config_path: Path, workspace: Path | None = None) -> Path | None:
    """Write the shipped defaults to ``config_path`` unless a file is there (a person's config is
    never overwritten), its ``[workspace] path`` pointing at ``workspace`` when one is given.

    Returns the path written, or None when a config was already there."""
    if config_path.exists():
        return None
    defaults = template_dir() / DEFAULT_CONFIG
    text = defaults.read_text() if defaults.is_file() else ""
    if workspace is not None:
        text = _pointed_at(text, workspace.resolve())
    write_new_private(config_path, text.encode())
    return config_path


def _pointed_at(text: str, workspace: Path) -> str:
    """The config text with its ``[workspace] path`` set to ``workspace``."""
    workspace_path = json.dumps(str(workspace))  # a JSON string is a valid TOML basic string
    section = re.search(r"(?m)^\[workspace\][^\n]*\n(?:(?!\[)[^\n]*\n)*", text)
    if section and re.search(r"(?m)^path\s*=", section.group(0)):
        body = re.sub(r"(?m)^path\s*=\s*\"[^\"\n]*\"", lambda _: f"path = {workspace_path}", section.group(0), count=1)
        text = text[: section.start()] + body + text[section.end() :]
    else:
        text += f"\n[workspace]\npath = {workspace_path}\n"
    if load_config_text(text).workspace.path != str(workspace):
        raise ConfigError(f"could not point the new config at {workspace}; edit [workspace] path by hand")
    return text
