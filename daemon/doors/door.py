"""What a door declares once: its name (its command, its config section and its log file), where
its command listens unless told, where clients go on it, and the command line the daemon starts it
with from its config section. Each door package holds its own declaration (``door.py``); the host
starts every declared door whose section sets ``listen`` (daemon/host/door_children.py), the CLI's
door commands take their default address from it, and docs/install.md's table is generated from it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from agentmemd.memory.core.config import Config, DoorSection

S = TypeVar("S", bound=DoorSection)


@dataclass(frozen=True)
class Door(Generic[S]):
    name: str  # `agentmemd NAME`, the config's [NAME], DATA_DIR/NAME.log
    summary: str
    section: type[S]
    default_listen: str  # HOST:PORT its command listens on when given none
    # Its command line after `agentmemd`, from its config section, the daemon's socket and data dir
    # (the same a person would type; `--allow-remote` is added when the section allows it).
    arguments: Callable[[S, Path, Path], list[str]]
    path: str = "/"  # where clients go on it

    def section_of(self, config: Config) -> S:
        section = getattr(config, self.name)
        assert isinstance(section, self.section), f"[{self.name}] is not a {self.section.__name__}"
        return section

    def url(self, listen: str) -> str:
        return f"http://{listen}{self.path}"
