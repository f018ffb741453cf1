"""A data dir written by another agentmemd: an older schema is migrated, a newer one refused.

The schema is the list of migrations applied (sqlite-utils' ``_sqlite_migrations``). Each time an
agentmemd applies some it notes its version beside them (``schema_versions``, m026), so an older
agentmemd that finds a migration it does not know can say which version wrote the data dir, and
stops before it changes anything: its code would read and write tables it does not understand.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import sqlite_utils

from agentmemd.memory.core import __version__
from agentmemd.memory.core.clock import SystemClock, format_time
from agentmemd.memory.core.errors import StoreError
from agentmemd.memory.store.migrations import FORMER_SET_NAMES, migrations


class SchemaTooNew(StoreError):
    """The data dir holds migrations this agentmemd does not know: a newer one wrote it."""


@dataclass(frozen=True)
class SchemaUpgrade:
    """What opening the database did to its schema."""

    applied: list[str]  # the migrations applied now, in order (none: it was up to date)
    from_schema: str | None  # its newest migration before (None: a new database)
    to_schema: str
    from_version: str | None  # the agentmemd that last migrated it (None: new, or older than m026)
    to_version: str = __version__

    @property
    def upgraded(self) -> bool:
        """An existing database was migrated (not a new one created)."""
        return bool(self.applied) and self.from_schema is not None


def known_migrations() -> list[str]:
    """This agentmemd's migrations, in order (sqlite-utils keeps its list private; ``pending`` alone
    would pass over an applied one this version does not know)."""
    return [migration.name for migration in migrations._migrations]


def short(migration: str) -> str:
    """``m026_schema_versions`` → ``m026``: the schema's number, as messages name it."""
    return migration.split("_", 1)[0]


def migrations_upto(upto: str | None) -> list[str]:
    """This agentmemd's migrations up to and including ``upto`` (all of them for None)."""
    known = known_migrations()
    return known if upto is None else known[: known.index(upto) + 1]


def upgrade_schema(db: sqlite_utils.Database, upto: str | None = None) -> SchemaUpgrade:
    """Apply the migrations the database lacks (up to and including ``upto``, if given: an archive
    of an older schema is read into a store of its own schema first) and note this version beside
    them; SchemaTooNew, with nothing changed, if it holds one this agentmemd does not know."""
    known = migrations_upto(upto)
    _claim_for_this_set(db)
    done = [migration.name for migration in migrations.applied(db)]
    unknown = [name for name in done if name not in known]
    if unknown:
        writer = last_writer(db)
        raise SchemaTooNew(
            f"this data dir was written by agentmemd {writer or '(a newer version)'} (schema {short(done[-1])}); "
            f"this is agentmemd {__version__} (schema up to {short(known[-1])}): upgrade agentmemd, "
            "or use another --data-dir",
            {"data_version": writer, "data_schema": done[-1], "version": __version__, "schema": known[-1]},
        )
    pending = [name for name in known if name not in done]
    upgrade = SchemaUpgrade(
        applied=pending,
        from_schema=done[-1] if done else None,
        to_schema=known[-1],
        from_version=last_writer(db),
    )
    if pending:
        after = known_migrations()[len(known) :]
        migrations.apply(db, stop_before=after[0] if after else None)
        db.execute(
            "INSERT INTO schema_versions(agentmemd, schema, applied, at) VALUES (?, ?, ?, ?)",
            [__version__, known[-1], json.dumps(pending), format_time(SystemClock().now())],
        )
    return upgrade


def _claim_for_this_set(db: sqlite_utils.Database) -> None:
    """The migrations an agentmemd applied under a former set name, moved to this one: from then on
    a release from before the version check finds none applied, tries to create the tables again
    and stops at start, changing nothing (it would have opened the data dir and written to it)."""
    table = migrations.migrations_table
    marks = ", ".join("?" * len(FORMER_SET_NAMES))
    if (
        db[table].exists()
        and db.execute(f"SELECT 1 FROM {table} WHERE migration_set IN ({marks}) LIMIT 1", FORMER_SET_NAMES).fetchone()
    ):
        with db.conn:
            db.execute(
                f"UPDATE {table} SET migration_set = ? WHERE migration_set IN ({marks})",
                [migrations.name, *FORMER_SET_NAMES],
            )


def last_writer(db: sqlite_utils.Database) -> str | None:
    """The version of the agentmemd that last applied migrations (None: none noted it)."""
    if not db["schema_versions"].exists():
        return None
    row = db.execute("SELECT agentmemd FROM schema_versions ORDER BY seq DESC LIMIT 1").fetchone()
    return row[0] if row else None
