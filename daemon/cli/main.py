"""The `agentmemd` command: `serve` runs the daemon, `init` makes a workspace, `bench` and
`calibrate` measure; every other command is one call to the daemon's socket.

Human output by default, the raw JSON-RPC result with --json. Exit codes: 0 done, 1 the
daemon refused (the message says why) or could not start, 2 bad usage or config, 3 no daemon.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from importlib import import_module
from importlib.util import find_spec
from pathlib import Path
from typing import Any, Callable

import click

from agentmemd.daemon import __version__
from agentmemd.daemon.cli import chats, doctor, hooks, service
from agentmemd.daemon.cli import printers as show
from agentmemd.daemon.cli.calls import (
    AUDIENCE,
    NAMESPACE,
    Settings,
    bounded,
    call,
    connected,
    daemon_socket,
    fail,
    given,
    listen_address,
    show_result,
)
from agentmemd.daemon.cli.generated import add_generated_commands
from agentmemd.daemon.cli.nouns import arrange_by_noun
from agentmemd.daemon.cli.paths import HomePath
from agentmemd.daemon.dashboard.door import DASHBOARD
from agentmemd.daemon.doors.logs import LOG_LEVELS, setup_logging, uvicorn_options
from agentmemd.daemon.doors.parent import stop_with_parent
from agentmemd.daemon.proxy.door import PROXY
from agentmemd.daemon.socket.client import Client, RpcCallError, default_token
from agentmemd.daemon.webhooks.door import WEBHOOKS
from agentmemd.memory.core import models as m
from agentmemd.memory.core.config import JOB_NAMES, ConfigError, channel_account, load_config
from agentmemd.memory.core.vocabulary import (
    EMOTIONS,
    MEMORY_TYPE_MEANINGS,
    MEMORY_TYPES,
    REINFORCE_EVENT_MEANINGS,
    REINFORCE_EVENTS,
    TIERS,
)
from agentmemd.memory.workspace.template import init_workspace

# The daemon and every door log alike (daemon/doors/logs.py): JSON lines on stderr, from this level up.
LOG_LEVEL = click.option(
    "--log-level",
    type=click.Choice(LOG_LEVELS),
    default=None,
    help="Log from this level up, as JSON lines on stderr (default: info; serve: [server] log_level).",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="agentmemd", message="%(prog)s %(version)s")
@click.option(
    "--socket",
    default=None,
    type=HomePath(),
    help="Daemon socket (default: $AGENTMEMD_SOCKET, else the installed service's, else ~/.agentmemd/agentmemd.sock).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the raw JSON result.")
@click.option(
    "--token",
    default=None,
    help="Act with an access token's namespaces only (default: $AGENTMEMD_TOKEN; none: the owner's access).",
)
@click.pass_context
def cli(ctx: click.Context, socket: str | None, as_json: bool, token: str | None) -> None:
    """Persistent memory daemon for personal AI agents.

    \b
        agentmemd serve --data-dir ~/.agentmemd
        agentmemd add "The user prefers short answers" --type preference
        agentmemd pack "how should I answer?" --budget 200
    """
    if ctx.invoked_subcommand not in SERVERS:  # a server's stdout is its own (MCP over stdio)
        sys.stdout = GuardedOutput(sys.stdout)
    token = token if token is not None else default_token()
    if token is not None and not token.strip():  # "--token ''", a ${TOKEN} that expanded to nothing
        fail(f"{'--token' if ctx.params.get('token') is not None else '$AGENTMEMD_TOKEN'} is empty: give an access "
             "token (amt_...), or leave it out for the owner's access", 2)  # fmt: skip
    ctx.obj = Settings(socket, as_json, token)


# Commands that serve until stopped: their output streams are theirs (MCP speaks JSON-RPC on stdout).
SERVERS = frozenset({"serve", "mcp", "proxy", "dashboard", "webhooks"})


class GuardedOutput:
    """A command's stdout: a reader that closed the pipe (``| head -1``) ends the command quietly
    with 0, and output that cannot be written (a full disk) with one line and 1, not a traceback."""

    def __init__(self, stream):
        self._stream = stream

    def __getattr__(self, name: str):
        return getattr(self._stream, name)

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except OSError as exc:
            self._failed(exc)
            raise

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as exc:
            self._failed(exc)
            raise

    def _failed(self, exc: OSError) -> None:
        # What Python's docs advise for a closed pipe: nothing more is flushed to it at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), self._stream.fileno())
        if isinstance(exc, BrokenPipeError):
            raise SystemExit(0)
        print(
            f"agentmemd: the answer could not be written ({exc.strerror}); what the daemon did stands", file=sys.stderr
        )
        raise SystemExit(1)


# ---- the daemon and the workspace ---------------------------------------------------------


def _tune_threads_for_serving() -> None:
    """Set before torch, numpy or tokenizers load (each reads these once).

    The daemon's CPU work alternates between torch (query embedding, vector scan), numpy (MMR,
    scores), the Rust tokenizer and SQLite on few cores. Worker threads that spin after each
    call starved the next step: a 13 ms query embedding took 30-80 ms inside a pack. Only the
    server does this; a library user keeps their own settings.
    """
    import os

    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


STORE_URL = click.option(
    "--store-url",
    default="",
    help="A PostgreSQL store (postgresql://USER@HOST/DB) instead of the data dir's SQLite; "
    "default $AGENTMEMD_STORE_URL unless --data-dir names a SQLite store (export) or a new one (import-store).",
)


def _store_url(given: str, data_dir: Path | None, *, reading: bool) -> str:
    """--store-url, else $AGENTMEMD_STORE_URL unless a --data-dir names the store: a data dir
    given on the command line that holds a SQLite store is that store (``reading``: export), and
    one given to read an archive into is the new store; an environment left set from a PostgreSQL
    setup must not quietly export (or fill) another store than the one named. A data dir holding
    no store (a PostgreSQL daemon's) leaves the environment's."""
    from agentmemd.memory.core.config import STORE_URL_ENV
    from agentmemd.memory.store.opening import DB_FILE

    if given:
        return given
    if data_dir is not None and (not reading or (data_dir / DB_FILE).is_file()):
        return ""
    return os.environ.get(STORE_URL_ENV, "")


def _data_dir_or_url(data_dir: Path | None, store_url: str) -> Path | None:
    if data_dir is None and not store_url:
        fail(
            "no daemon answers to say where its store is: give --data-dir (a SQLite store) or --store-url (a PostgreSQL one)",
            2,
        )
    return data_dir


@cli.command()
@click.argument("archive", type=HomePath(path_type=Path))
@click.option("--data-dir", type=HomePath(path_type=Path), help="The store's data dir.")
@STORE_URL
def export(archive: Path, data_dir: Path | None, store_url: str) -> None:
    """Write a whole memory as an open archive (manifest + a JSON Lines file a table, gzipped tar).

    The daemons may keep running: the archive is the store as of one moment. With neither
    --data-dir nor --store-url, the store of the daemon that answers on the socket (a SQLite one).

    \b
        agentmemd export memory-2026-11-26.tar.gz
        agentmemd export memory-2026-11-26.tar.gz --data-dir ~/.agentmemd
        agentmemd export memory.tar.gz --store-url postgresql://agent@db.example/agentmemd
    """
    from agentmemd.daemon.services.archive import export_archive

    store_url = _store_url(store_url, data_dir, reading=True)
    if data_dir is None and not store_url:
        data_dir = _running_daemons_data_dir()
    _on_the_store(export_archive, _data_dir_or_url(data_dir, store_url), archive, store_url)


def _running_daemons_data_dir() -> Path | None:
    """The data dir of the daemon on the socket, when it keeps its memory there (None: no daemon
    answers, or its store is PostgreSQL, whose URL holds a password the daemon does not give)."""
    settings: Settings = click.get_current_context().obj
    try:
        with Client(daemon_socket(None, settings), timeout=10, token=settings.token) as client:
            process = client.call("health").get("process") or {}
    except (ConnectionError, OSError, RpcCallError):
        return None
    if process.get("store", "sqlite") != "sqlite":
        fail(f"the daemon's store is {process['store']}: give --store-url (with its password)", 2)
    return Path(process["data_dir"]) if process.get("data_dir") else None


def _on_the_store(work: Callable[..., dict[str, Any]], *args: Any) -> None:
    """Work on a data dir itself, not through a daemon (export, import-store): its summary, or the
    refusal naming the field (exit 1)."""
    from agentmemd.memory.core.errors import InvalidParams, StoreUnavailable

    try:
        summary = work(*args)
    except InvalidParams as exc:
        fail(str(exc), 1)
        return
    except StoreUnavailable as exc:  # the store being made met a full or read-only disk
        fail(exc.message, 1)
        return
    except OSError as exc:  # the disk is full, the file too large for its limit, the folder read-only
        fail(f"cannot write {exc.filename or 'the archive'}: {exc.strerror or exc}; nothing was left behind", 1)
        return
    show_result(summary, show.print_kv)


@cli.command("import-store")
@click.argument("archive", type=HomePath(path_type=Path))
@click.option("--data-dir", type=HomePath(path_type=Path), help="A new data dir to read it into.")
@STORE_URL
def import_store(archive: Path, data_dir: Path | None, store_url: str) -> None:
    """Read an archive written by `agentmemd export` into a new data dir, or an empty PostgreSQL
    database, verified table by table.

    \b
        agentmemd import-store memory-2026-11-26.tar.gz --data-dir ~/.agentmemd-restored
        agentmemd import-store memory.tar.gz --store-url postgresql://agent@db.example/agentmemd
    """
    from agentmemd.daemon.services.archive import import_archive

    store_url = _store_url(store_url, data_dir, reading=False)
    _on_the_store(import_archive, archive, _data_dir_or_url(data_dir, store_url), store_url)


@cli.command()
@click.option("--data-dir", required=True, type=HomePath(path_type=Path), help="Where the database lives.")
@click.option(
    "--socket", "serve_socket", type=HomePath(path_type=Path), help="Socket path (default: DATA_DIR/agentmemd.sock)."
)
@click.option("--config", type=HomePath(path_type=Path), help="TOML config (default: built-in defaults).")
@click.option("--workspace", type=HomePath(path_type=Path), help="Markdown workspace directory.")
@click.option(
    "--store-url",
    default="",
    help="Keep the memory in this PostgreSQL (postgresql://USER@HOST/DB), which other daemons may share "
    "(default: the config's [store] url, else $AGENTMEMD_STORE_URL, else SQLite in the data dir).",
)
@LOG_LEVEL
@click.pass_context
def serve(
    ctx: click.Context,
    data_dir: Path,
    serve_socket: Path | None,
    config: Path | None,
    workspace: Path | None,
    store_url: str,
    log_level: str | None,
) -> None:
    """Run the daemon in the foreground (JSON log lines on stderr; SIGTERM stops it cleanly).

    \b
        agentmemd serve --data-dir ~/.agentmemd --workspace ~/agent
    """
    _tune_threads_for_serving()
    from agentmemd.daemon.host.process import Daemon, StartupError

    try:
        loaded = load_config(config, {"store": {"url": store_url}} if store_url else None)
    except ConfigError as exc:
        fail(str(exc), 2)
    setup_logging(log_level or loaded.server.log_level)
    socket_path = serve_socket or ctx.obj.socket or (data_dir / "agentmemd.sock")
    try:
        daemon = Daemon(loaded, data_dir, Path(socket_path), workspace)
    except ConfigError as exc:  # a door's listen address: no restart mends it (a unit does not retry 2)
        fail(str(exc), 2)
    try:
        asyncio.run(daemon.serve())
    except StartupError as exc:
        fail(str(exc), 1)


@cli.command()
@click.argument("dir", type=HomePath(path_type=Path), default=Path("workspace"), required=False)
@click.option(
    "--config",
    "config_path",
    type=HomePath(path_type=Path),
    help="Config file to write if absent (default: DIR/../agentmemd.toml).",
)
def init(dir: Path, config_path: Path | None) -> None:
    """Create a workspace from the template (never overwriting a file) and a config pointing at it.

    \b
        agentmemd init ~/agent/workspace        # and ~/agent/agentmemd.toml beside it
    """
    created, config_written = init_workspace(dir, config_path)
    click.echo(f"workspace {dir.resolve()}: {len(created)} file(s) created, existing files left alone")
    if config_written:
        click.echo(f"config {config_written} (its [workspace] path points at the workspace)")
        return
    existing = config_path or dir.resolve().parent / "agentmemd.toml"
    try:  # a person's config is left alone: say whether it points here, else `serve --config` misses it
        points_at = load_config(existing).workspace.path
    except ConfigError:
        points_at = None
    if not points_at or Path(points_at).resolve() != dir.resolve():
        click.echo(
            f"config {existing} exists and was left alone; its [workspace] path is "
            f'{points_at or "unset"}, not this workspace: add path = "{dir.resolve()}" under [workspace] there, '
            f"or serve --workspace {dir}"
        )


@cli.command()
@click.option("--sync", is_flag=True, help="Re-index every changed file now.")
def workspace(sync: bool) -> None:
    """Indexed workspace files, and skipped ones with why.

    \b
        agentmemd workspace --sync
    """
    call("workspace.sync" if sync else "workspace.status", printer=show.human_workspace)


@cli.command()
def health() -> None:
    """Is the daemon up?  Exits 1 when it cannot serve (its model failed, its store is away).  `agentmemd health`"""
    with connected() as client:
        result = client.call("health")
    show_result(result, show.human_health)
    if result["status"] in ("model_failed", "store_unavailable"):
        raise SystemExit(1)


@cli.command()
@NAMESPACE
def stats(namespace: str | None) -> None:
    """Counts by type, tier and namespace; the daemon's memory by part.  `agentmemd stats --namespace default`"""
    call("stats", given(namespace=namespace))


# ---- memories -------------------------------------------------------------------------------


@cli.command()
@click.argument("content")
@click.option(
    "--type",
    "mtype",
    required=True,
    type=click.Choice(MEMORY_TYPES),
    help="What it is: " + "; ".join(f"{t}, {meaning}" for t, meaning in MEMORY_TYPE_MEANINGS.items()) + ".",
)
@click.option(
    "--priority", type=bounded(m.AddParams, "priority"), help="How much it matters, 0-1 (default: its type's floor)."
)
@NAMESPACE
@click.option("--source", help="Where it came from, shown with it and searchable: a file, an app, a person.")
@click.option("--created", help="ISO-8601 time the remembered thing happened.")
@click.option("--tag", "tags", multiple=True, help="A label to find it by (repeat for more).")
@click.option("--context", help="Text indexed with the memory but not stored as it (e.g. the previous turn).")
def add(
    content: str,
    mtype: str,
    priority: float | None,
    namespace: str | None,
    source: str | None,
    created: str | None,
    tags: tuple[str, ...],
    context: str | None,
) -> None:
    """Store a memory; prints its id (and, on stderr, a duplicate it is or similar memories).

    \b
        agentmemd add "The user prefers short answers" --type preference
    """
    call(
        "memory.add",
        given(
            content=content,
            type=mtype,
            context=context,
            priority=priority,
            namespace=namespace,
            source=source,
            created=created,
            tags=list(tags) or None,
        ),
        printer=show.human_add,
    )


@cli.command()
@click.argument("query")
@click.option("-k", "k", type=bounded(m.SearchParams, "k"), default=10, show_default=True, help="How many hits.")
@NAMESPACE
@click.option(
    "--type",
    "types",
    multiple=True,
    type=click.Choice(MEMORY_TYPES),
    help="Only memories of this type (repeat for more).",
)
@click.option("--include-archived", is_flag=True, help="Deep search: the Cold tier and the archive too.")
@AUDIENCE
def search(
    query: str, k: int, namespace: str | None, types: tuple[str, ...], include_archived: bool, audience: str | None
) -> None:
    """Scored hybrid search.

    \b
        agentmemd search "where does the user live?" -k 5
    """
    call(
        "memory.search",
        given(
            query=query,
            k=k,
            namespace=namespace,
            types=list(types) or None,
            include_archived=include_archived,
            audience=audience,
        ),
        printer=show.human_search,
    )


@cli.command()
@click.argument("query")
@click.option(
    "--budget",
    "budget_tokens",
    type=bounded(m.PackParams, "budget_tokens"),
    required=True,
    help="The most tokens the pack may take (no default: it is what the model call has room for).",
)
@AUDIENCE
@NAMESPACE
def pack(query: str, budget_tokens: int, namespace: str | None, audience: str | None) -> None:
    """Build a Memory Pack within a token budget.

    \b
        agentmemd pack "how should I answer?" --budget 200
    """
    call(
        "context.pack",
        given(query=query, budget_tokens=budget_tokens, namespace=namespace, audience=audience),
        printer=show.human_pack,
    )


@cli.command()
@click.argument("id")
@NAMESPACE
def get(id: str, namespace: str | None) -> None:
    """Show one memory (live, superseded or archived).  `agentmemd get m1a2b3...`"""
    call("memory.get", given(id=id, namespace=namespace))


@cli.command(
    help="Record an access to a memory: the more it is used, the more slowly it fades. EVENT is what "
    "happened, each adding its [reinforcement] amount to the access count: "
    + "; ".join(f"{e}, {meaning}" for e, meaning in REINFORCE_EVENT_MEANINGS.items())
    + ".\n\n\b\n    agentmemd memory reinforce m1a2b3... used"
)
@click.argument("id")
@click.argument("event", type=click.Choice(REINFORCE_EVENTS))
@NAMESPACE
def reinforce(id: str, event: str, namespace: str | None) -> None:
    call("memory.reinforce", given(id=id, event=event, namespace=namespace))


@cli.command()
@click.argument("id")
@click.argument("content")
@click.option("--correction", is_flag=True, help="It was wrong (a typo, a misheard name): keep its date.")
@NAMESPACE
def update(id: str, content: str, correction: bool, namespace: str | None) -> None:
    """Write a new version of a memory: the fact changed (dated now), or with --correction it was wrong.

    \b
        agentmemd memory update m1a2b3... "Lives in Porto now"
        agentmemd memory update m1a2b3... "Her sister is called Inês" --correction
    """
    call("memory.update", given(id=id, content=content, correction=correction or None, namespace=namespace))


@cli.command()
@click.argument("id")
@NAMESPACE
def archive(id: str, namespace: str | None) -> None:
    """Move a memory to the archive.  `agentmemd memory archive m1a2b3...`"""
    call("memory.archive", given(id=id, namespace=namespace))


@cli.command()
@click.argument("id")
@NAMESPACE
def restore(id: str, namespace: str | None) -> None:
    """Bring an archived memory back to the live table.  `agentmemd restore m1a2b3...`"""
    call("memory.restore", given(id=id, namespace=namespace))


@cli.command()
@click.argument("id")
@NAMESPACE
@click.option("--yes", is_flag=True, help="Forget it now; without --yes, only say what would go.")
def forget(id: str, namespace: str | None, yes: bool) -> None:
    """Forget a memory for good, with every copy of its words: every version, its index entries,
    history and the logged packs that hold its text; the conversation turns it was made from
    become tombstones, and what the daemon derived from them goes too (episodes, observations,
    consolidated memories, impressions, its lines in the daemon's workspace sections). Without
    --yes, says what would go and what stays, and changes nothing.

    \b
        agentmemd forget m1a2b3...          # what would go
        agentmemd forget m1a2b3... --yes    # gone
    """
    call("memory.forget", given(id=id, namespace=namespace, confirm=yes), printer=show.human_forget)


@cli.command()
@click.option("--namespace", default=None, help="Only this namespace (default: every one).")
@click.option("--type", "mtype", type=click.Choice(MEMORY_TYPES), help="Only memories of this type.")
@click.option("--tier", type=click.Choice(TIERS), help="Only memories in this tier (how far they have faded).")
@click.option("--source", help="Text the source contains, e.g. USER.md or conversation:")
@click.option("--contains", help="Text the memory contains, accents and case aside ('lucia' finds 'Lucía').")
@click.option("--from", "created_from", help="Created on or after this date (YYYY-MM-DD).")
@click.option("--to", "created_to", help="Created on or before this date (YYYY-MM-DD).")
@click.option("--emotion", type=click.Choice(EMOTIONS), help="Only memories that feel this (read from their words).")
@click.option("--secrets", is_flag=True, help="Only memories holding a secret (card numbers, keys, IDs…), to review.")
@click.option(
    "--person",
    help="Only what this person said: a name they go by (accents and case aside), 'user', or an id "
    "from `agentmemd person list`.",
)
@click.option(
    "--limit", type=bounded(m.MemoryListParams, "limit"), default=50, show_default=True, help="How many, newest first."
)
@click.option(
    "--offset",
    type=bounded(m.MemoryListParams, "offset"),
    default=0,
    show_default=True,
    help="Skip this many first (the next page).",
)
def memories(
    namespace: str | None,
    mtype: str | None,
    tier: str | None,
    source: str | None,
    contains: str | None,
    created_from: str | None,
    created_to: str | None,
    emotion: str | None,
    secrets: bool,
    person: str | None,
    limit: int,
    offset: int,
) -> None:
    """List memories, newest first, filtered, any secret in them masked (`agentmemd get ID` shows
    one whole).  `agentmemd memories --type preference --tier active`, `agentmemd memories --secrets`,
    `agentmemd memories --person Lucía`"""
    params = given(
        namespace=namespace,
        type=mtype,
        tier=tier,
        source=source,
        contains=contains,
        created_from=created_from,
        created_to=created_to,
        emotion=emotion,
        secrets=secrets or None,
        person=person,
        limit=limit,
        offset=offset,
    )
    call("memory.list", params, printer=show.human_memories)


@cli.command()
@click.argument("id")
@NAMESPACE
def history(id: str, namespace: str | None) -> None:
    """A memory's versions, what happened to it, its retention and where it came from.

    \b
        agentmemd history m1a2b3...
    """
    call("memory.history", given(id=id, namespace=namespace), printer=show.human_memory_history)


@cli.command()
@click.option("--namespace", default=None, help="Only this namespace (default: every one).")
@click.option(
    "--limit",
    type=bounded(m.PacksListParams, "limit"),
    default=20,
    show_default=True,
    help="How many packs, newest first.",
)
def packs(namespace: str | None, limit: int) -> None:
    """The newest logged packs (explain one with `agentmemd explain PACK_ID`).  `agentmemd packs`"""
    call("packs.list", given(namespace=namespace, limit=limit), printer=show.human_packs)


@cli.command()
@click.argument("pack_id")
@NAMESPACE
def explain(pack_id: str, namespace: str | None) -> None:
    """Show how a pack was chosen: every candidate, its signals, MMR rank, chosen or not.

    \b
        agentmemd explain p9f8e7...
    """
    call("context.explain", given(pack_id=pack_id, namespace=namespace), printer=show.human_explain)


@cli.command()
@click.argument("id")
@click.argument("audience")
@NAMESPACE
def share(id: str, audience: str, namespace: str | None) -> None:
    """Set who may hear a memory: shared (anyone), user (the user's own), private:CHAT or group:CHAT.

    \b
        agentmemd share m1a2b3... shared
    """
    call("memory.share", given(id=id, audience=audience, namespace=namespace))


@cli.command()
def sweep() -> None:
    """Archive memories that decayed below the Cold tier.  `agentmemd sweep`"""
    call("memory.sweep")


@cli.command()
def costs() -> None:
    """Language-model calls, tokens and cost (the ledger), and response-cache hits.  `agentmemd costs`"""
    call("costs", printer=show.human_costs)


# ---- conversations ----------------------------------------------------------------------------


@cli.command()
@click.argument("session")
@click.argument("role", type=click.Choice(("user", "assistant", "tool")))
@click.argument("content")
@NAMESPACE
@click.option("--speaker", help="Display name, e.g. the user's name.")
@click.option("--ts", help="ISO-8601 time it was said (default: now).")
def append(session: str, role: str, content: str, namespace: str | None, speaker: str | None, ts: str | None) -> None:
    """Store one conversation turn (the Observer runs in the background when due).

    \b
        agentmemd append chat-1 user "I moved to Porto last week" --speaker Ana
    """
    call(
        "conversation.append",
        given(session=session, role=role, content=content, namespace=namespace, speaker=speaker, ts=ts),
    )


@cli.command()
@click.argument("session")
@click.argument("history", type=click.File("r", encoding="utf-8"))
@NAMESPACE
def sync(session: str, history, namespace: str | None) -> None:
    """Store what an app's history (a JSON list of {role, content}, oldest first, the whole or its
    latest turns; - for stdin) adds to the session, matched by content: a history that leaves it
    partway continues in a branch (the answer names it).

    \b
        echo '[{"role": "user", "content": "hi"}]' | agentmemd sync chat-1 -
    """
    try:
        turns = json.load(history)
    except json.JSONDecodeError as exc:
        raise click.BadParameter(f"not JSON: {exc}", param_hint="HISTORY") from None
    if not isinstance(turns, list) or not turns:  # an empty list read as no turns given at all
        shown = "an empty list" if turns == [] else f"a JSON {type(turns).__name__}"
        raise click.BadParameter(f"{shown}: give a JSON list of one or more {{role, content}}", param_hint="HISTORY")
    call("conversation.sync", given(session=session, turns=turns, namespace=namespace))


@cli.command()
@click.argument("session")
@click.option(
    "--budget",
    "budget_tokens",
    type=bounded(m.ContextParams, "budget_tokens"),
    help="The context's tokens (default: [conversation] context_budget_tokens).",
)
@click.option(
    "--anchors-as",
    type=click.Choice(("system", "user")),
    help="Persona anchors as system messages (default) or inside user turns.",
)
@NAMESPACE
def context(session: str, budget_tokens: int | None, anchors_as: str | None, namespace: str | None) -> None:
    """The context for the next model call: stable prefix, recent turns, Memory Pack.

    \b
        agentmemd context chat-1 --budget 8000
    """
    call(
        "conversation.context",
        given(session=session, namespace=namespace, budget_tokens=budget_tokens, anchors_as=anchors_as),
        printer=show.human_context,
    )


@cli.command()
@click.argument("session")
@click.option("--when-due", is_flag=True, help="Only what the thresholds call for (default: every turn).")
@click.option("--reflect", is_flag=True, help="Also run the Reflector now (default: only when due).")
@NAMESPACE
def observe(session: str, when_due: bool, reflect: bool, namespace: str | None) -> None:
    """Run the Observer and Reflector on a conversation now and wait for them.

    \b
        agentmemd observe chat-1 --reflect
    """
    call(
        "conversation.observe",
        given(session=session, namespace=namespace, force=not when_due, reflect=reflect),
    )


@cli.command()
@NAMESPACE
@click.option(
    "--limit",
    type=bounded(m.ConversationListParams, "limit"),
    default=50,
    show_default=True,
    help="How many conversations, newest first.",
)
@click.option(
    "--offset",
    type=bounded(m.ConversationListParams, "offset"),
    default=0,
    show_default=True,
    help="Skip this many first (the next page).",
)
def conversations(namespace: str | None, limit: int, offset: int) -> None:
    """A namespace's conversations, the latest active first.  `agentmemd conversations`"""
    call("conversation.list", given(namespace=namespace, limit=limit, offset=offset), printer=show.human_sessions)


@cli.command()
@click.argument("session")
@NAMESPACE
@click.option(
    "--limit", type=bounded(m.TurnsParams, "limit"), default=50, show_default=True, help="How many turns, newest last."
)
@click.option(
    "--offset",
    type=bounded(m.TurnsParams, "offset"),
    default=0,
    show_default=True,
    help="Turns to skip, counted from the newest.",
)
def turns(session: str, namespace: str | None, limit: int, offset: int) -> None:
    """A page of a conversation's turns, oldest first.  `agentmemd turns SESSION --limit 20`"""
    params = given(session=session, namespace=namespace, limit=limit, offset=offset)
    call("conversation.turns", params, printer=show.human_turn_page)


@cli.command()
@click.argument("session")
@NAMESPACE
@click.option(
    "--limit",
    type=bounded(m.ContextsParams, "limit"),
    default=1,
    show_default=True,
    help="How many of the newest contexts.",
)
def contexts(session: str, namespace: str | None, limit: int) -> None:
    """What the newest context builds gave the agent: the stable prefix, then the messages.

    \b
        agentmemd contexts SESSION
    """
    call("conversation.contexts", given(session=session, namespace=namespace, limit=limit), printer=show.human_contexts)


@cli.command()
@click.option("--session", help="Only this conversation's (default: every conversation's).")
@NAMESPACE
@click.option("--all", "include_replaced", is_flag=True, help="Also merged, superseded and dropped ones.")
def observations(session: str | None, namespace: str | None, include_replaced: bool) -> None:
    """Observations, oldest first, with their source turns.  `agentmemd observations --session chat-1`"""
    call(
        "observations.list",
        given(session=session, namespace=namespace, include_replaced=include_replaced or None),
        printer=show.human_observations,
    )


@cli.command()
@click.argument("session")
@NAMESPACE
def conversation(session: str, namespace: str | None) -> None:
    """A conversation's turns, tokens and Observer/Reflector runs.  `agentmemd conversation chat-1`"""
    call("conversation.status", given(session=session, namespace=namespace), printer=show.human_conversation)


# ---- jobs and the clock ------------------------------------------------------------------------


@cli.command()
def jobs() -> None:
    """Scheduled jobs: cron, next run, last run and result.  `agentmemd job list`"""
    call("jobs.list", printer=show.human_jobs)


@cli.command("run-job", help=f"Run one scheduled job now ({', '.join(JOB_NAMES)}).  `agentmemd job run consolidate`")
@click.argument("name", type=click.Choice(JOB_NAMES), metavar="NAME")
def run_job(name: str) -> None:
    call("jobs.run", {"name": name}, printer=show.human_run)


@cli.command()
@NAMESPACE
@click.option(
    "--level", type=click.IntRange(1, 3), help="Only this level of the tree: 1 patterns, 2 principles, 3 insights."
)
def consolidated(namespace: str | None, level: int | None) -> None:
    """Consolidated memories (patterns, principles, insights) and their sources.  `agentmemd consolidated --level 2`"""
    call("consolidation.list", given(namespace=namespace, level=level), printer=show.human_consolidated)


@cli.command()
@click.option("--advance-hours", type=float, help="Move a manual clock forward; the jobs that came due run.")
def clock(advance_hours: float | None) -> None:
    """Show, or advance a manual, clock.  `agentmemd clock --advance-hours 24`"""
    if advance_hours is None:
        call("clock.now")
    else:
        call("clock.advance", {"hours": advance_hours})


# ---- persona ------------------------------------------------------------------------------------


@cli.command()
@NAMESPACE
@click.option("--history", is_flag=True, help="Every version, why it changed and its evidence.")
def persona(namespace: str | None, history: bool) -> None:
    """The agent's PersonaState: traits as adjectives, voice, stance, rules, record.  `agentmemd persona`"""
    if history:
        call("persona.history", given(namespace=namespace), printer=show.human_history)
    else:
        call("persona.get", given(namespace=namespace), printer=show.human_persona)


@cli.command()
@click.argument("response")
@click.option("--session", help="Count it in this session's EWMA; judge it against its last turns and pack.")
@click.option("--context", help="Text the response was given (memories, notes) to judge groundedness against.")
@click.option("--pack-id", help="The Memory Pack the response was given.")
@NAMESPACE
def score(response: str, session: str | None, context: str | None, pack_id: str | None, namespace: str | None) -> None:
    """SyncScore one response against the persona (five dimensions, EWMA, action).

    \b
        agentmemd score "Sure, Thursday at 3 works." --session chat-1
    """
    call(
        "persona.score",
        given(response=response, session=session, context=context, pack_id=pack_id, namespace=namespace),
        printer=show.human_score,
    )


@cli.command()
@click.option("--session", help="Only this conversation's (default: every conversation's).")
@NAMESPACE
@click.option(
    "--limit",
    type=bounded(m.PersonaScoresParams, "limit"),
    default=100,
    show_default=True,
    help="How many scores, newest last.",
)
def scores(session: str | None, namespace: str | None, limit: int) -> None:
    """SyncScore history of a session (or a namespace), oldest first.  `agentmemd scores --session chat-1`"""
    call("persona.scores", given(session=session, namespace=namespace, limit=limit), printer=show.human_scores)


@cli.command()
@click.argument("action", type=click.Choice(("add", "remove", "confirm", "reject", "list")))
@click.argument("text", required=False)
@NAMESPACE
@click.option("--yes", is_flag=True, help="Confirm the proposal without asking.")
def rule(action: str, text: str | None, namespace: str | None, yes: bool) -> None:
    """Hard rules: propose adding or removing one (then confirm it), confirm, reject, list.

    A rule never changes unconfirmed: `add` and `remove` ask y/N (or take --yes).

    \b
        agentmemd rule add "Never use emoji"
        agentmemd rule confirm rp_3f9a0c6d2b1e4f5a6b7c8d9e
    """
    if action == "list":
        call("persona.rules.list", given(namespace=namespace, status="all"), printer=show.human_rules)
        return
    if not text:
        fail(f"rule {action} needs {'an id' if action in ('confirm', 'reject') else 'the rule text'}", 1)
    if action in ("confirm", "reject"):
        call(f"persona.rules.{action}", given(id=text, namespace=namespace))
        return
    with connected() as client:
        proposal = client.call("persona.rules.propose", given(namespace=namespace, action=action, rule=text))
        confirmed = yes or (
            sys.stdin.isatty()
            and click.confirm(
                f"{action} the hard rule {proposal['rule']!r} for namespace {namespace or 'default'}?", default=False
            )
        )
        if confirmed:
            show_result(
                client.call("persona.rules.confirm", given(id=proposal["id"], namespace=namespace)), show.print_kv
            )
            return
    click.echo(
        f"proposal {proposal['id']} is pending; confirm it with `agentmemd rule confirm {proposal['id']}`", err=True
    )
    show_result(proposal, show.print_kv)


# ---- identity graph ------------------------------------------------------------------------------


@cli.group()
def identity() -> None:
    """The identity graph: who the agent is and whom it serves, as nodes and typed relations.

    Written in SOUL.md, IDENTITY.md and USER.md as `- values [[honesty]]: never lie`, or added here.
    """


@identity.command("graph")
@NAMESPACE
def identity_graph(namespace: str | None) -> None:
    """Every node and relation, where each is written, and the lines left out.  `agentmemd identity graph`"""
    call("identity.graph", given(namespace=namespace), printer=show.human_identity_graph)


@identity.command("node")
@click.argument("name")
@click.option(
    "--hops",
    type=bounded(m.IdentityNodeParams, "hops"),
    default=1,
    show_default=True,
    help="How many edges away its neighbours may be.",
)
@NAMESPACE
def identity_node(name: str, hops: int, namespace: str | None) -> None:
    """One node, its neighbours and the relations among them.  `agentmemd identity node "Fernwood Labs"`"""
    call("identity.node", given(name=name, hops=hops, namespace=namespace), printer=show.human_identity_node)


@identity.command("add")
@click.argument("relation")
@click.argument("target")
@click.option("--source", help="A node the graph has (default: the agent, or the user with --about user).")
@click.option("--note", help="What makes it specific: a reason, a date, a number.")
@click.option(
    "--about",
    type=click.Choice(("agent", "user")),
    default="agent",
    show_default=True,
    help="Whose identity the node is of.",
)
@NAMESPACE
def identity_add(
    relation: str, target: str, source: str | None, note: str | None, about: str, namespace: str | None
) -> None:
    """Add a relation (stored as a persona or relational memory).

    \b
        agentmemd identity add values honesty --note "never lie to spare feelings"
        agentmemd identity add "is the sister of" "the user" --source Laia --about user
    """
    params = given(relation=relation, target=target, source=source, note=note, about=about, namespace=namespace)
    call("identity.edge.add", params, printer=lambda r: print(f"added {r['id']}: {r['edge']['text']}"))


@identity.command("remove")
@click.argument("memory_id")
@NAMESPACE
def identity_remove(memory_id: str, namespace: str | None) -> None:
    """Archive a relation added with `identity add` (memory restore brings it back).  `agentmemd identity remove ID`"""
    call(
        "identity.edge.remove",
        given(id=memory_id, namespace=namespace),
        printer=lambda r: print(f"archived {r['id']}: {r['removed']['text']}"),
    )


# ---- goals ---------------------------------------------------------------------------------------


@cli.group()
def goal() -> None:
    """Goals: what the agent is working towards or means to do; due and relevant ones are in every pack."""


# ---- doors -------------------------------------------------------------------------------------


@cli.command()
@click.option(
    "--socket",
    "mcp_socket",
    type=HomePath(),
    help="The daemon's socket (default: the global --socket, $AGENTMEMD_SOCKET, the service's, ~/.agentmemd).",
)
@click.option(
    "--token", "mcp_token", help="Over stdio: act with this access token's namespaces (default: the owner's)."
)
@click.option(
    "--http", "listen", metavar="HOST:PORT", help="Serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio."
)
@click.option("--allow-remote", is_flag=True, help="Let --http bind an address other than loopback.")
@click.option("--timeout", type=float, default=60.0, show_default=True, help="Seconds to wait for the daemon per call.")
@LOG_LEVEL
@click.pass_context
def mcp(
    ctx: click.Context,
    mcp_socket: str | None,
    mcp_token: str | None,
    listen: str | None,
    allow_remote: bool,
    timeout: float,
    log_level: str | None,
) -> None:
    """The MCP server: memory tools, resources and a persona prompt for MCP hosts.

    Over stdio (what Claude Desktop and Claude Code launch) nothing but MCP goes to stdout.
    Over HTTP every request needs `Authorization: Bearer <token>` (`agentmemd token create`).

    \b
        agentmemd mcp --socket ~/.agentmemd/agentmemd.sock
        agentmemd mcp --http 127.0.0.1:8789
    """
    from agentmemd.daemon.mcp.server import build_server

    setup_logging(log_level or "info")  # before the MCP SDK's own set-up, which then leaves it be
    settings: Settings = ctx.obj
    socket_path = daemon_socket(mcp_socket, settings)
    token = mcp_token if mcp_token is not None else settings.token
    if token is not None and not token.strip():  # confines to nothing: never the owner's access instead
        fail("mcp --token is empty: give an access token (amt_...), or leave it out for the owner's access", 2)
    if listen is None:
        build_server(socket_path, token, timeout).run("stdio")
        return
    from agentmemd.daemon.mcp.http import serve_http

    host, port = listen_address("--http", listen, allow_remote, " (tokens are still checked)")
    if mcp_token:
        fail("--token is for stdio; over HTTP each caller sends its own bearer token", 2)
    click.echo(f"agentmemd mcp: http://{host}:{port}/mcp (bearer token required)", err=True)
    server = build_server(socket_path, None, timeout, per_caller=True)
    stop_with_parent()
    serve_http(server, socket_path, host, port, **uvicorn_options(log_level or "info"))


@cli.command()
@click.option(
    "--listen", default=PROXY.default_listen, show_default=True, metavar="HOST:PORT", help="Where apps connect."
)
@click.option(
    "--upstream", default="https://api.anthropic.com", show_default=True, help="The Messages API it forwards to."
)
@click.option(
    "--openai-upstream",
    default="https://api.openai.com",
    show_default=True,
    help="Where /v1/chat/completions goes (an OpenAI-compatible server; a base ending in /v1 works too).",
)
@click.option(
    "--socket",
    "proxy_socket",
    type=HomePath(),
    help="The daemon's socket (default: the global --socket, $AGENTMEMD_SOCKET).",
)
@click.option(
    "--mode",
    type=click.Choice(("augment", "compact")),
    default="augment",
    show_default=True,
    help="augment: the app's messages pass unchanged, memory is added. compact: past the budget, older turns "
    "are replaced by the observation log.",
)
@click.option(
    "--budget",
    "budget_tokens",
    type=int,
    help="Context budget in tokens (default: [conversation] context_budget_tokens).",
)
@click.option("--allow-remote", is_flag=True, help="Let --listen bind an address other than loopback.")
@click.option(
    "--memory-timeout",
    type=click.FloatRange(min=0, min_open=True),
    metavar="SECONDS",
    help="Time budget of the memory step (connect, sync, context); past it the request goes upstream unchanged "
    "and a warning is logged (default: [proxy] memory_timeout_seconds, 2).",
)
@click.option("--config", type=HomePath(path_type=Path), help="TOML config (default: built-in defaults).")
@LOG_LEVEL
@click.pass_context
def proxy(
    ctx: click.Context,
    listen: str,
    upstream: str,
    openai_upstream: str,
    proxy_socket: str | None,
    mode: str,
    budget_tokens: int | None,
    allow_remote: bool,
    memory_timeout: float | None,
    config: Path | None,
    log_level: str | None,
) -> None:
    """An Anthropic Messages (and OpenAI chat completions) proxy that gives an app memory and persona.

    Point the app at it, with an access token in the base URL; nothing else changes:

    \b
        agentmemd token create my-app --namespace default
        agentmemd proxy --listen 127.0.0.1:8788 --upstream https://api.anthropic.com
        ANTHROPIC_BASE_URL=http://127.0.0.1:8788/t/amt_… python my_app.py
    """
    import uvicorn

    from agentmemd.daemon.proxy.app import ProxySettings, build_proxy_app

    try:
        loaded = load_config(config)
    except ConfigError as exc:
        fail(str(exc), 2)
    # The file's [proxy] keys stand where no flag was given: a flag wins over the file.
    flagged = {name for name in ("listen", "upstream", "openai_upstream") if _flag_given(ctx, name)}
    if "listen" not in flagged and loaded.proxy.listen:
        listen, allow_remote = loaded.proxy.listen, allow_remote or loaded.proxy.allow_remote
    upstream = upstream if "upstream" in flagged else loaded.proxy.upstream
    openai_upstream = openai_upstream if "openai_upstream" in flagged else loaded.proxy.openai_upstream
    host, port = listen_address("--listen", listen, allow_remote)
    setup_logging(log_level or "info")
    settings = ProxySettings(
        socket_path=daemon_socket(proxy_socket, ctx.obj),
        upstream=upstream,
        openai_upstream=openai_upstream,
        mode=mode,  # type: ignore[arg-type]
        budget_tokens=budget_tokens,
        memory_timeout=memory_timeout or loaded.proxy.memory_timeout_seconds,
    )
    click.echo(f"agentmemd proxy: http://{host}:{port} -> {upstream} ({mode})", err=True)
    app = build_proxy_app(settings, host)
    stop_with_parent()
    uvicorn.run(app, host=host.strip("[]"), port=port, **uvicorn_options(log_level or "info"))


def _flag_given(ctx: click.Context, name: str) -> bool:
    """Whether the command line (or its environment) set this option, not its default."""
    return ctx.get_parameter_source(name) not in (None, click.core.ParameterSource.DEFAULT)


@cli.command()
@click.option(
    "--listen", default=WEBHOOKS.default_listen, show_default=True, help="HOST:PORT (loopback unless --allow-remote)."
)
@click.option(
    "--socket",
    "--daemon-socket",
    "hook_socket",
    default=None,
    type=HomePath(),
    help="The daemon's socket (default: the global --socket, $AGENTMEMD_SOCKET; --daemon-socket: its older name).",
)
@NAMESPACE
@click.option(
    "--me",
    "owners",
    multiple=True,
    metavar="CHANNEL:ACCOUNT",
    help="An account that is the user the agent serves, e.g. telegram:user123 or slack:U01ANA (repeat).",
)
@click.option("--allow-remote", is_flag=True, help="Allow a non-loopback --listen (every request is still checked).")
@LOG_LEVEL
@click.pass_context
def webhooks(
    ctx: click.Context,
    listen: str,
    hook_socket: str | None,
    namespace: str | None,
    owners: tuple[str, ...],
    allow_remote: bool,
    log_level: str | None,
) -> None:
    """Receive chats' messages live: Telegram bot updates, Slack events, and a generic JSON shape.

    Secrets come from the environment: AGENTMEMD_TELEGRAM_SECRET (setWebhook's secret_token) and
    AGENTMEMD_SLACK_SIGNING_SECRET (the Slack app's signing secret); a route without one answers 404.

    \b
        AGENTMEMD_TELEGRAM_SECRET=s3cret agentmemd webhooks --listen 127.0.0.1:8790 --me telegram:user123
        curl -X POST https://api.telegram.org/bot$BOT/setWebhook \\
             -d url=https://my-tunnel.example/telegram -d secret_token=s3cret
    """
    import os

    import uvicorn

    from agentmemd.daemon.webhooks.app import WebhookSettings, build_webhook_app

    host, port = listen_address("--listen", listen, allow_remote)
    try:
        owners = tuple(channel_account(o) for o in owners)
    except ValueError as exc:
        fail(f"--me: {exc}", 2)
    setup_logging(log_level or "info")
    settings = WebhookSettings(
        socket_path=daemon_socket(hook_socket, ctx.obj),
        namespace=namespace,
        token=ctx.obj.token,
        telegram_secret=os.environ.get("AGENTMEMD_TELEGRAM_SECRET") or None,
        slack_signing_secret=os.environ.get("AGENTMEMD_SLACK_SIGNING_SECRET") or None,
        owners=owners,
    )
    routes = ["/messages"] + [
        r for r, on in (("/telegram", settings.telegram_secret), ("/slack", settings.slack_signing_secret)) if on
    ]
    click.echo(f"agentmemd webhooks: http://{host}:{port} ({', '.join(routes)})", err=True)
    stop_with_parent()
    uvicorn.run(build_webhook_app(settings), host=host.strip("[]"), port=port, **uvicorn_options(log_level or "info"))


@cli.command()
@click.option(
    "--listen", default=DASHBOARD.default_listen, show_default=True, help="HOST:PORT (loopback unless --allow-remote)."
)
@click.option(
    "--socket",
    "--daemon-socket",
    "dash_socket",
    default=None,
    type=HomePath(),
    help="The daemon's socket (default: the global --socket, $AGENTMEMD_SOCKET; --daemon-socket: its older name).",
)
@click.option(
    "--data-dir",
    type=HomePath(path_type=Path),
    help="Where dashboard.token is kept (default: the socket's folder, the daemon's data dir by default).",
)
@click.option("--new-token", is_flag=True, help="Replace the token (old links and sessions stop working).")
@click.option("--allow-remote", is_flag=True, help="Allow a non-loopback --listen (the token is still required).")
@click.option(
    "--host-name",
    "host_names",
    multiple=True,
    help="Another name browsers reach it by (repeat), e.g. the machine's name with --allow-remote; other Host "
    "headers are refused (DNS rebinding).",
)
@LOG_LEVEL
@click.pass_context
def dashboard(
    ctx: click.Context,
    listen: str,
    dash_socket: str | None,
    data_dir: Path | None,
    new_token: bool,
    allow_remote: bool,
    host_names: tuple[str, ...],
    log_level: str | None,
) -> None:
    """A web dashboard: browse, correct and forget memories, see why a pack holds what it holds.

    It prints a link with its token (also in DATA_DIR/dashboard.token, mode 0600); open it once,
    and a session cookie keeps you in:

    \b
        agentmemd dashboard --listen 127.0.0.1:8791
        # agentmemd dashboard: http://127.0.0.1:8791/?token=…
    """
    import uvicorn

    from agentmemd.daemon.dashboard.access import load_token
    from agentmemd.daemon.dashboard.app import DashboardSettings, link_host
    from agentmemd.daemon.dashboard.routes import build_dashboard_app

    host, port = listen_address("--listen", listen, allow_remote)
    setup_logging(log_level or "info")
    socket_path = daemon_socket(dash_socket, ctx.obj)
    token = load_token(data_dir or socket_path.parent, new=new_token)
    settings = DashboardSettings(socket_path=socket_path, token=token, host=host, port=port, extra_hosts=host_names)
    click.echo(f"agentmemd dashboard: http://{link_host(settings)}:{port}/?token={token}", err=True)
    app = build_dashboard_app(settings)
    stop_with_parent()
    uvicorn.run(app, host=host.strip("[]"), port=port, **uvicorn_options(log_level or "info"))


# ---- access tokens ------------------------------------------------------------------------------


@cli.group()
def token() -> None:
    """Access tokens for doors that serve someone else: each reaches only its namespaces.

    The socket itself is the owner's (mode 0600) and needs no token.
    """


@token.command("create")
@click.argument("name")
@click.option(
    "--namespace", "namespaces", multiple=True, help="A namespace it may use (repeat; the first is its default)."
)
@click.option("--all", "every", is_flag=True, help="Every namespace: as strong as the socket itself.")
@click.option(
    "--hears",
    metavar="AUDIENCE",
    help="Only what this conversation's audience may hear (a chat's, e.g. private:telegram:1002, or user): "
    "its calls are then search, pack, person get and chat messages, for that audience.",
)
def token_create(name: str, namespaces: tuple[str, ...], every: bool, hears: str | None) -> None:
    """Create a token; its secret is printed once and only its SHA-256 is kept.

    \b
        agentmemd token create alice-mcp --namespace alice
        agentmemd token create leo-bot --namespace default --hears private:telegram:1002
    """
    if every == bool(namespaces):
        fail("token create needs --namespace NS (repeatable) or --all, not both", 2)
    params = {"name": name, "namespaces": None if every else list(namespaces)}
    call("access.tokens.create", params | ({"hears": hears} if hears else {}))


@token.command("list")
def token_list() -> None:
    """Access tokens with their namespaces (never their secrets).  `agentmemd token list`"""
    call("access.tokens.list", printer=show.human_tokens)


@token.command("revoke")
@click.argument("name")
def token_revoke(name: str) -> None:
    """Revoke a token: its next auth fails.  `agentmemd token revoke alice-mcp`"""
    call("access.tokens.revoke", {"name": name})


# ---- the benches' commands: present where the benches are ------------------------------------------

# The benches (daemon/bench) are not in the agentmemd wheel: a clone installed with the `bench`
# extra has them, and they add `bench` and `calibrate` here. The CLI names them only as a string,
# so nothing of the product imports them.
BENCH_COMMANDS = "agentmemd.daemon.bench.cli"


def _without_benches(name: str) -> click.Command:
    """`bench` or `calibrate` where the benches are not installed: says where they are."""

    @click.command(name, hidden=True, context_settings={"ignore_unknown_options": True, "help_option_names": []})
    @click.argument("args", nargs=-1, type=click.UNPROCESSED)
    def missing(args: tuple[str, ...]) -> None:
        fail(
            f"`agentmemd {name}` is not in the agentmemd package: the benchmarks live in agentmemd's "
            "repository (daemon/bench); from a clone: pip install -e '.[bench]'",
            2,
        )

    return missing


def add_bench_commands(group: click.Group, module: str = BENCH_COMMANDS) -> None:
    try:
        present = find_spec(module) is not None
    except ModuleNotFoundError:  # no daemon/bench at all, as in the wheel
        present = False
    if present:
        import_module(module).register(group)
        return
    for name in ("bench", "calibrate"):
        group.add_command(_without_benches(name))


for _command in chats.COMMANDS:
    cli.add_command(_command)
cli.add_command(doctor.doctor)
cli.add_command(service.service)
cli.add_command(hooks.hooks)
add_generated_commands(cli)
add_bench_commands(cli)
arrange_by_noun(cli)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns its exit code (the console script and `python -m agentmemd.daemon.cli`)."""
    try:
        cli.main(args=argv, prog_name="agentmemd")
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
