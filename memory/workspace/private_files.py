"""Files and folders agentmemd makes in a workspace or beside it are the user's alone (0600 and
0700), as the data dir is; what a person made keeps its own permissions."""

from __future__ import annotations

import os
from pathlib import Path


def private_folders(folder: Path) -> None:
    """Make ``folder`` and any missing parent private to the user (0700); existing ones are left as they are."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for made in reversed(missing):
        made.mkdir(mode=0o700, exist_ok=True)
        os.chmod(made, 0o700)  # mkdir's mode is masked by the umask


def write_new_private(path: Path, data: bytes) -> None:
    """A new file (0600, its missing folders 0700); FileExistsError if one is there: never clobbered."""
    private_folders(path.parent)
    with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as fh:
        fh.write(data)
