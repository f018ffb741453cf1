"""`agentmemd export`: a whole memory as an open archive (memory/store/archive.py), written while the
daemon keeps serving; every table but the derived indexes, each with its rows and checksum; a
forgotten memory in none of it; nothing written over an existing file."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import tarfile

import pytest
from click.testing import CliRunner
from conftest import REPO, wait_for

from agentmemd.daemon.cli.main import cli
from agentmemd.daemon.services.archive import export_archive
from agentmemd.memory.store.archive import read_archive
from agentmemd.memory.store.schema import known_migrations

pytestmark = [
    pytest.mark.inprocess,
    pytest.mark.sqlite_file,
]  # the data dir's file; test_postgres_store.py: PostgreSQL's


def lived_in(in_process, said: str, corrected: str, turn: str):
    """A store with a memory in two versions, a forgotten one ("the spare key"), a goal and a turn
    (its episode stored): the daemon and the forgotten memory's id."""
    d = in_process(fake_embedder=True)
    kept = d.call("memory.add", {"content": said, "type": "fact"})["id"]
    gone = d.call("memory.add", {"content": "The spare key is under the blue pot", "type": "fact"})["id"]
    d.call("memory.update", {"id": kept, "content": corrected})
    d.call("goal.add", {"text": "Send Ana a card", "priority": "high"})
    d.call("conversation.append", {"session": "s", "role": "user", "content": turn})
    d.call("memory.forget", {"id": gone, "confirm": True})
    wait_for(lambda: d.call("channels.pending", {})["pending"] == 0)  # the turn's episode is stored
    return d, gone


def test_the_archive_holds_every_table_with_its_rows_and_checksums(in_process, tmp_path):
    d, gone = lived_in(
        in_process,
        "I'm thrilled: Ana got the job in Lisbon!",
        "Ana got the job in Lisbon and starts in May",
        "My sister Ana starts in May.",
    )

    out = tmp_path / "memory.tar.gz"
    summary = export_archive(d.data_dir, out)  # the daemon still holds the store open
    manifest, files = read_archive(out)
    assert (manifest["format"], manifest["format_version"]) == ("agentmemd-archive", 1)
    assert manifest["schema"][-1] == summary["schema"] and manifest["schema"][0].startswith("m001")

    conn = d.services.store.conn
    for table, about in manifest["tables"].items():
        data = files[f"tables/{table}.jsonl"]
        assert hashlib.sha256(data).hexdigest() == about["sha256"]
        counted = conn.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
        assert about["rows"] == counted == data.count(b"\n"), table
    assert {"memories", "memory_events", "memory_affect", "goals", "conversation_turns", "persona_states"} <= set(
        manifest["tables"]
    )
    assert not any("fts" in t or t.startswith("memories_vec") for t in manifest["tables"])  # derived: rebuilt

    rows = [json.loads(line) for line in files["tables/memories.jsonl"].splitlines()]
    assert [r["version"] for r in rows if "Ana got the job" in r["content"]] == [1, 2]  # versions kept
    stored = conn.execute("SELECT embedding FROM memories WHERE id = ?", (rows[-1]["id"],)).fetchone()[0]
    assert base64.b64decode(rows[-1]["embedding"]["$base64"]) == stored
    everything = b"".join(files.values())
    assert b"spare key" not in everything and gone.encode() not in everything  # forgotten: no copy


def test_an_existing_archive_or_a_missing_store_is_refused_and_nothing_is_written(in_process, tmp_path):
    d = in_process(fake_embedder=True)
    mine = tmp_path / "mine.tar.gz"
    mine.write_text("a file of mine")
    result = CliRunner().invoke(cli, ["export", str(mine), "--data-dir", str(d.data_dir)])
    assert result.exit_code == 1 and "never written over a file" in result.output
    assert mine.read_text() == "a file of mine"
    result = CliRunner().invoke(cli, ["export", str(tmp_path / "x.tar.gz"), "--data-dir", str(tmp_path / "nowhere")])
    assert result.exit_code == 1 and "holds no agentmemd store" in result.output
    assert list(tmp_path.iterdir()) == [mine]

    result = CliRunner().invoke(cli, ["export", str(tmp_path / "ok.tar.gz"), "--data-dir", str(d.data_dir)])
    assert result.exit_code == 0 and "format_version  1" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.tar.gz", "ok.tar.gz"]  # no .partial left


def test_an_archive_read_back_is_the_same_store_with_its_indexes_rebuilt(in_process, tmp_path):
    d, _ = lived_in(
        in_process,
        "Ana's flat in Lisbon has a blue door",
        "Ana's flat in Lisbon has a green door now",
        "Quillfeather Lane is where Ana lives.",
    )
    export_archive(d.data_dir, tmp_path / "a.tar.gz")

    result = CliRunner().invoke(
        cli, ["import-store", str(tmp_path / "a.tar.gz"), "--data-dir", str(tmp_path / "r" / "data")]
    )
    assert result.exit_code == 0 and "every table matches its checksum" in result.output, result.output
    restored = in_process(fake_embedder=True, root=tmp_path / "r")
    hits = restored.call("memory.search", {"query": "the door of Ana's flat"})["results"]
    assert hits[0]["content"] == "Ana's flat in Lisbon has a green door now"  # the current version, by its indexes
    assert [v["version"] for v in restored.call("memory.history", {"id": hits[0]["id"]})["versions"]] == [1, 2]
    assert restored.call("conversation.search", {"query": "Quillfeather"})["turns"]  # the turns' index rebuilt
    assert [g["text"] for g in restored.call("goal.list", {})["goals"]] == ["Send Ana a card"]
    assert not any(
        "spare key" in h["content"] for h in restored.call("memory.search", {"query": "spare key"})["results"]
    )

    export_archive(restored.data_dir, tmp_path / "b.tar.gz")
    first, _ = read_archive(tmp_path / "a.tar.gz")
    second, _ = read_archive(tmp_path / "b.tar.gz")
    assert {t: v["sha256"] for t, v in first["tables"].items()} == {t: v["sha256"] for t, v in second["tables"].items()}


def test_a_tampered_archive_or_a_used_data_dir_is_refused_and_nothing_is_left(in_process, tmp_path):
    d = in_process(fake_embedder=True)
    d.call("memory.add", {"content": "The user's bike is a red Canyon", "type": "fact"})
    export_archive(d.data_dir, tmp_path / "a.tar.gz")
    with tarfile.open(tmp_path / "a.tar.gz", "r:gz") as tar:
        files = {m.name: tar.extractfile(m).read() for m in tar.getmembers()}
    files["tables/memories.jsonl"] = files["tables/memories.jsonl"].replace(b"red Canyon", b"blue Canyon")
    with tarfile.open(tmp_path / "t.tar.gz", "w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    target = tmp_path / "r"
    result = CliRunner().invoke(cli, ["import-store", str(tmp_path / "t.tar.gz"), "--data-dir", str(target)])
    assert result.exit_code == 1 and "table memories" in result.output and "checksum" in result.output
    assert not (target / "agentmemd.db").exists()

    result = CliRunner().invoke(cli, ["import-store", str(tmp_path / "a.tar.gz"), "--data-dir", str(d.data_dir)])
    assert result.exit_code == 1 and "already holds a store" in result.output
    assert d.call("memory.list", {})["total"] == 1
    not_one = tmp_path / "n.tar.gz"
    not_one.write_bytes(b"not an archive")
    result = CliRunner().invoke(cli, ["import-store", str(not_one), "--data-dir", str(target)])
    assert result.exit_code == 1 and "not an agentmemd archive" in result.output


def test_a_data_dir_named_on_the_command_line_is_the_store_whatever_the_environment_says(
    in_process, tmp_path, monkeypatch
):
    """$AGENTMEMD_STORE_URL left set from a PostgreSQL setup quietly exported that store instead
    of the data dir the command named (and import-store filled it): the named data dir wins."""
    d = in_process(fake_embedder=True)
    d.call("memory.add", {"content": "Kept in SQLite.", "type": "fact"})
    monkeypatch.setenv("AGENTMEMD_STORE_URL", "postgresql://agent@127.0.0.1:1/elsewhere")
    out = tmp_path / "mine.tar.gz"
    result = CliRunner().invoke(cli, ["export", str(out), "--data-dir", str(d.data_dir)])
    assert result.exit_code == 0, result.output
    assert "memories        1" in result.output
    restored = tmp_path / "restored"
    result = CliRunner().invoke(cli, ["import-store", str(out), "--data-dir", str(restored)])
    assert result.exit_code == 0 and (restored / "agentmemd.db").is_file(), result.output
    # Naming no data dir, the environment's store is the one meant.
    result = CliRunner().invoke(cli, ["export", str(tmp_path / "pg.tar.gz")])
    assert result.exit_code == 1 and "cannot connect to the PostgreSQL store" in result.output, result.output


def test_an_archive_the_disk_cannot_hold_is_one_line_and_leaves_nothing(in_process, tmp_path):
    """`ulimit -f` (or a full disk) under an export gave an OSError's traceback."""
    import resource
    import subprocess
    import sys

    d = in_process(fake_embedder=True)
    d.call("memory.add_many", {"items": [{"content": f"Memory number {i} about the garden.", "type": "fact"} for i in range(200)]})  # fmt: skip
    out = tmp_path / "small.tar.gz"

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    done = subprocess.run(
        [sys.executable, "-m", "agentmemd.daemon.cli", "export", str(out), "--data-dir", str(d.data_dir)],
        preexec_fn=limited,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "cannot write" in done.stderr and "File too large" in done.stderr and "Traceback" not in done.stderr
    assert list(tmp_path.glob("small.tar.gz*")) == []


def test_an_import_the_disk_cannot_hold_says_so_and_leaves_nothing(in_process, tmp_path):
    """A full disk under import-store was "invalid params: data_dir: … reads go on"; and a disk
    error when the file was opened read as a damaged database."""
    import resource
    import subprocess
    import sys

    d = in_process(fake_embedder=True)
    d.call("memory.add_many", {"items": [{"content": f"Memory number {i} about the garden and the bees.", "type": "fact"} for i in range(300)]})  # fmt: skip
    archive = tmp_path / "a.tar.gz"
    assert CliRunner().invoke(cli, ["export", str(archive), "--data-dir", str(d.data_dir)]).exit_code == 0

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))

    new = tmp_path / "new"
    done = subprocess.run(
        [sys.executable, "-m", "agentmemd.daemon.cli", "import-store", str(archive), "--data-dir", str(new)],
        preexec_fn=limited,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    said = done.stderr.strip().splitlines()[-1]
    assert said.startswith("agentmemd: the store cannot be written") and "left nothing behind" in said, said
    assert "invalid params" not in said and "cannot be read" not in said and "reads go on" not in said
    assert not new.exists() or list(new.iterdir()) == []


def test_an_import_stopped_part_way_may_run_again_and_a_served_data_dir_is_left_alone(in_process, tmp_path):
    """SIGTERM or kill -9 part way left a store holding only what opening it wrote; the next
    import-store was refused ('already holds a store'), and a daemon on it served 0 memories."""
    import subprocess
    import sys

    from agentmemd.memory.core.config import StoreConfig
    from agentmemd.memory.store.opening import open_store

    d = in_process(fake_embedder=True)
    d.call("memory.add", {"content": "The user's bike is a red Canyon", "type": "fact"})
    archive = tmp_path / "a.tar.gz"
    export_archive(d.data_dir, archive)
    target = tmp_path / "r"
    target.mkdir()
    open_store(StoreConfig(url=""), target, dim=384, model="all-MiniLM-L6-v2").close()  # as an import killed part way
    result = CliRunner().invoke(cli, ["import-store", str(archive), "--data-dir", str(target)])
    assert result.exit_code == 0 and "memories  1" in result.output, result.output
    # A daemon serving an empty data dir: its store is not taken from under it.
    served = tmp_path / "served"
    served.mkdir()
    open_store(StoreConfig(url=""), served, dim=384, model="all-MiniLM-L6-v2").close()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT);"
         " fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); time.sleep(60)", str(served / "agentmemd.lock")],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout.readline().strip() == "held"
        result = CliRunner().invoke(cli, ["import-store", str(archive), "--data-dir", str(served)])
        assert result.exit_code == 1 and "already holds a store" in result.output
    finally:
        holder.kill()
        holder.wait()


ARCHIVE_M032 = REPO / "tests" / "data" / "archive_m032.tar.gz"  # written by agentmemd at aeba0bf (schema m032)


def test_an_archive_of_an_older_schema_is_read_then_upgraded(in_process, tmp_path):
    """An archive an older agentmemd wrote (a backup from before an upgrade, or a data dir exported
    before the new daemon opened it) was refused: "read it with the agentmemd that wrote it", even
    when that was this one. It is read into a store of its schema, checked, then upgraded."""
    result = CliRunner().invoke(cli, ["import-store", str(ARCHIVE_M032), "--data-dir", str(tmp_path / "r" / "data")])
    assert result.exit_code == 0, result.output
    assert "every table matches its checksum" in result.output and "upgraded  from m032" in result.output
    restored = in_process(fake_embedder=True, root=tmp_path / "r")
    hits = restored.call("memory.search", {"query": "where does my sister Ana live"})["results"]
    assert hits[0]["content"] == "My sister Ana lives in Lisbon now"
    assert [v["version"] for v in restored.call("memory.history", {"id": hits[0]["id"]})["versions"]] == [1, 2]
    assert restored.call("conversation.search", {"query": "Quillfeather"})["turns"]
    assert [g["text"] for g in restored.call("goal.list", {})["goals"]] == ["Send Ana a card"]
    # Read again by this schema's rules once the daemon runs (m047: a partner named in Spanish).
    fills = (
        "SELECT f.slot FROM slot_fills f JOIN memories m ON m.seq = f.seq WHERE m.content = 'Mi novia se llama Lena'"
    )
    wait_for(lambda: restored.services.store.conn.execute(fills).fetchall() == [("partner",)])
    restored.terminate()
    export_archive(restored.data_dir, tmp_path / "now.tar.gz")
    assert read_archive(tmp_path / "now.tar.gz")[0]["schema"][-1] == known_migrations()[-1]


def test_an_archive_of_a_newer_schema_is_refused_naming_the_version_to_read_it_with(tmp_path):
    with tarfile.open(ARCHIVE_M032, "r:gz") as tar:
        files = {m.name: tar.extractfile(m).read() for m in tar.getmembers()}
    manifest = json.loads(files["manifest.json"])
    manifest.update(schema=[*known_migrations(), "m999_from_the_future"], agentmemd="9.0.0")
    files["manifest.json"] = json.dumps(manifest).encode()
    newer = tmp_path / "newer.tar.gz"
    with tarfile.open(newer, "w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    result = CliRunner().invoke(cli, ["import-store", str(newer), "--data-dir", str(tmp_path / "r")])
    assert result.exit_code == 1 and "agentmemd 9.0.0 with schema m999" in result.output, result.output
    assert "read it with agentmemd 9.0.0 or later" in result.output
    assert not (tmp_path / "r" / "agentmemd.db").exists()


def test_an_archive_cut_short_says_so_and_an_export_is_private_under_any_umask(in_process, tmp_path):
    """A backup cut short (a copy interrupted) was refused with only "Aborted!", as after a Ctrl-C;
    and the archive, every memory and secret in it, was written 0644 under umask 022."""
    import os
    import stat

    d = in_process(fake_embedder=True)
    d.call("memory.add_many", {"items": [{"content": f"Note {i}: the red Canyon bike " * 20, "type": "fact"} for i in range(200)]})  # fmt: skip
    old = os.umask(0o022)
    try:
        export_archive(d.data_dir, tmp_path / "a.tar.gz")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "a.tar.gz").stat().st_mode) == 0o600
    whole = (tmp_path / "a.tar.gz").read_bytes()
    for size in (100, len(whole) // 2):
        (tmp_path / "cut.tar.gz").write_bytes(whole[:size])
        target = tmp_path / f"r{size}"
        result = CliRunner().invoke(cli, ["import-store", str(tmp_path / "cut.tar.gz"), "--data-dir", str(target)])
        assert result.exit_code == 1 and "is cut short" in result.output and "Aborted" not in result.output, (
            result.output
        )
        assert not (target / "agentmemd.db").exists()
