"""The SQLite schema as numbered migrations, one a file (``mNNN_what.py``), applied in the order of
their numbers by sqlite-utils' Migrations (the helper llm uses); ``shared.py`` holds what several
of them build with. Never edit an applied migration: add the next number, in a file of its own."""

from __future__ import annotations

import importlib
import pkgutil
import re

from sqlite_utils import Migrations

# The set's name is what an agentmemd reads its applied migrations by. It was "agentmemd.memory"
# until the data dir had to keep out the releases before the version check (m026), which read none
# under the new name, try to create the tables again and stop at start with nothing changed
# (schema.py renames a data dir's rows as it opens it).
migrations = Migrations("agentmemd.store")
FORMER_SET_NAMES = ("agentmemd.memory",)

MIGRATION_FILE = re.compile(r"^m(\d{3})_[a-z0-9_]+$")


def _register_in_order() -> None:
    """Import every migration file, lowest number first: each registers itself with ``migrations``.
    Numbers are unique and have no gaps (a gap is a file lost, or named by hand)."""
    names = sorted(m.name for m in pkgutil.iter_modules(__path__) if MIGRATION_FILE.match(m.name))
    numbers = [int(MIGRATION_FILE.match(name).group(1)) for name in names]  # type: ignore[union-attr]
    if numbers != list(range(1, len(names) + 1)):
        raise RuntimeError(f"the migrations are not numbered 1..{len(names)} without gaps: {names}")
    for name in names:
        importlib.import_module(f"{__name__}.{name}")


_register_in_order()
