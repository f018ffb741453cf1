"""A data dir another agentmemd wrote: an older schema is migrated with one log line naming the
migrations and the versions, a newer one is refused naming both versions, its database unchanged.
Real SQLite files; the older and newer data dirs are made as those versions would have left them."""

from __future__ import annotations

import json
import logging
import shutil
import subprocess

import pytest
from inprocess import HashEmbedder
from schema_dirs import DIM, MODEL, OLD_SCHEMA, fingerprint, newer_data_dir, older_data_dir

from agentmemd.daemon.services.app import Services
from agentmemd.memory.core import __version__
from agentmemd.memory.core.config import load_config
from agentmemd.memory.core.errors import StartupError
from agentmemd.memory.store.database import Store
from agentmemd.memory.store.opening import DB_FILE
from agentmemd.memory.store.schema import SchemaTooNew, known_migrations

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)


def test_a_new_database_notes_the_version_that_made_it(short_tmp):
    store = Store(short_tmp / DB_FILE, dim=DIM, model=MODEL)
    try:
        assert store.schema.applied == known_migrations() and store.schema.from_schema is None
        assert not store.schema.upgraded
        [row] = store.conn.execute("SELECT agentmemd, schema, applied FROM schema_versions").fetchall()
        assert row[0] == __version__ and row[1] == known_migrations()[-1] and json.loads(row[2]) == known_migrations()
    finally:
        store.close()
    again = Store(short_tmp / DB_FILE, dim=DIM, model=MODEL)
    try:
        assert again.schema.applied == [] and again.schema.from_version == __version__
        assert again.conn.execute("SELECT count(*) FROM schema_versions").fetchone()[0] == 1  # nothing applied
    finally:
        again.close()


@pytest.mark.sqlite_file
def test_an_older_data_dir_is_migrated_with_one_line_naming_migrations_and_versions(short_tmp, caplog):
    data_dir = older_data_dir(short_tmp / "data")
    added = known_migrations()[known_migrations().index(OLD_SCHEMA) :]
    with caplog.at_level(logging.INFO, logger="agentmemd"):
        services = Services.open(load_config(), data_dir, embedder=HashEmbedder())
    services.store.close()
    [line] = [r for r in caplog.records if "upgraded" in r.getMessage()]
    assert line.levelname == "INFO" and line.getMessage() == "data dir upgraded"
    assert line.migrations == added and line.from_schema == "m019" and line.to_schema == known_migrations()[-1][:4]
    assert line.from_version is None and line.to_version == __version__  # the older one left no note
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="agentmemd"):
        services = Services.open(load_config(), data_dir, embedder=HashEmbedder())
    services.store.close()
    assert not [r for r in caplog.records if "upgraded" in r.getMessage()]  # up to date now: no line


@pytest.mark.sqlite_file
def test_a_newer_data_dir_is_refused_naming_both_versions_and_left_unchanged(short_tmp):
    data_dir = newer_data_dir(short_tmp / "data")
    before = fingerprint(data_dir)
    expected = (
        f"this data dir was written by agentmemd 0.3.0 (schema m031); this is agentmemd {__version__} "
        f"(schema up to {known_migrations()[-1][:4]}): upgrade agentmemd, or use another --data-dir"
    )
    with pytest.raises(SchemaTooNew) as refused:
        Store(data_dir / DB_FILE, dim=DIM, model=MODEL)
    assert str(refused.value) == expected
    with pytest.raises(StartupError) as at_start:  # what `serve` reports (exit 1)
        Services.open(load_config(), data_dir, embedder=HashEmbedder())
    assert str(at_start.value) == expected
    assert fingerprint(data_dir) == before
    assert sorted(p.name for p in data_dir.iterdir()) == [DB_FILE]  # no -wal or -shm left either


SYSTEM_SQLITE = shutil.which("sqlite3")


@pytest.mark.skipif(SYSTEM_SQLITE is None, reason="no system sqlite3 (`make test` installs Debian's)")
def test_the_systems_own_sqlite_finds_an_upgraded_data_dir_sound(short_tmp):
    """Debian 12's sqlite3 (3.40.1) reported "NULL value in memory_times.namespace" for every row of a
    data dir the bundled SQLite found sound: SQLite 3.40.0-3.41.0 misread WITHOUT ROWID tables whose
    key's columns were not declared first (m041 declares them so)."""
    data_dir = older_data_dir(short_tmp / "old")
    store = Store(data_dir / DB_FILE, dim=DIM, model=MODEL)
    with store.transaction():
        store.conn.execute(
            "INSERT INTO memory_times (seq, namespace, first_day, after_day) VALUES (1, 'default', '2026-03-01', '2026-04-01')"
        )
        store.conn.execute(
            "INSERT INTO slot_fills (seq, namespace, slot, subject, created) VALUES (1, 'default', 'residence', 'self', 'x')"
        )
    store.close()
    checked = subprocess.run([SYSTEM_SQLITE, str(data_dir / DB_FILE), "PRAGMA integrity_check"], capture_output=True)
    assert checked.stdout.decode().split() == ["ok"], checked.stdout.decode()[:500]
