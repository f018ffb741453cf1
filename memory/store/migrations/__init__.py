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


def in_order(names: list[str]) -> list[str]:
    """The migration files among ``names``, lowest number first; their numbers must run 1..n with
    no gap or repeat (a gap is a file lost, a repeat two files given one number by hand)."""
    ordered = sorted(name for name in names if MIGRATION_FILE.match(name))
    numbers = [int(name[1:4]) for name in ordered]
    if numbers != list(range(1, len(ordered) + 1)):
        raise RuntimeError(f"the migrations are not numbered 1..{len(ordered)} without gaps or repeats: {ordered}")
    return ordered


# Each file registers its migration with ``migrations`` as it is imported.
for _name in in_order([m.name for m in pkgutil.iter_modules(__path__)]):
    importlib.import_module(f"{__name__}.{_name}")
