"""`agentmemd import`, `people`, `chats` and `messages`: chat history in, the people in it out.

The import parses the export here, in the command, and sends its messages to the daemon in
batches (``channels.ingest``), one transaction each: a killed import run again resumes after its
last committed batch, and a finished one run again adds nothing.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import click

from agentmemd.daemon.cli import printers as show
from agentmemd.daemon.cli.calls import AUDIENCE, NAMESPACE, bounded, call, connected, fail, given, show_result
from agentmemd.daemon.cli.paths import HomePath
from agentmemd.daemon.socket.client import Client, RpcCallError, default_socket
from agentmemd.memory.channels.formats import AUTO, FORMATS, read_chat_export, recognise
from agentmemd.memory.channels.ingest import batches
from agentmemd.memory.channels.whatsapp import DateOrder
from agentmemd.memory.core.chats import Chat, ChatExport
from agentmemd.memory.core.clock import format_time, to_utc, zone_named
from agentmemd.memory.core.errors import MalformedExport
from agentmemd.memory.core.models import INGEST_DELETED_MAX as DELETED_PER_CALL
from agentmemd.memory.core.models import PENDING_SESSIONS_MAX, TurnSearchParams
from agentmemd.memory.core.text import fold

SKIPPED_SHOWN = 20
POLL_SECONDS = 0.5  # how often an import asks whether its messages are searchable yet
STUCK_SECONDS = 3.0  # an episode worker idle this long with turns left has stopped: a failed batch waits
PLAIN_LINE_SECONDS = 5.0  # piped, a line about indexing at most this often


@click.command(
    "import",
    epilog="\b\nFormats:\n"
    + "\n".join(f"  {f.name:9} {f.description}" for f in FORMATS)
    + f"\n  {AUTO:9} the one of these the file is recognised as",
)
@click.argument("format", type=click.Choice([*(f.name for f in FORMATS), AUTO]))
@click.argument("path", type=HomePath(path_type=Path, dir_okay=False))
@click.option("--dry-run", is_flag=True, help="Parse and count (per chat and person, the date range); store nothing.")
@click.option("--me", help="Which sender is the user the agent serves (a name or the app's id).")
@click.option(
    "--date-order", type=click.Choice(["dmy", "mdy", "ymd"]), help="WhatsApp: the date order (default: inferred)."
)
@click.option("--tz", help="Zone of times the export writes without one (default: [channels] timezone, or local).")
@click.option("--batch-size", type=click.IntRange(1, 5000), default=500, show_default=True, help="Messages per commit.")
@click.option("--no-wait", is_flag=True, help="Return once stored; the messages become searchable in the background.")
@click.option(
    "--wait-timeout",
    type=click.FloatRange(0, min_open=True),
    default=1800,
    show_default=True,
    metavar="SECONDS",
    help="Longest wait for the messages to become searchable; past it, exit 4 (they stay stored).",
)
@NAMESPACE
def import_chats(
    format: str,
    path: Path,
    dry_run: bool,
    me: str | None,
    date_order: DateOrder | None,
    tz: str | None,
    batch_size: int,
    no_wait: bool,
    wait_timeout: float,
    namespace: str | None,
) -> None:
    """Import a chat export: each chat a conversation, split into sessions by time gaps, its
    speakers people. Importing the same file again adds nothing. It returns once the messages
    are searchable (memory.search, packs); exit 4 when they are stored but not yet searchable.

    \b
        agentmemd import whatsapp "WhatsApp Chat with Ana.txt" --me Carla --dry-run
        agentmemd import telegram ~/Downloads/Telegram/result.json
        agentmemd import chatgpt ~/Downloads/chatgpt-export.zip
        agentmemd import auto ~/Downloads/slack-export.zip
    """
    if tz:
        try:
            zone_named(tz)
        except ValueError as exc:
            fail(f"--tz: {exc}", 2)
    try:
        if format == AUTO:
            format = recognise(path)
        export = read_chat_export(format, path, date_order=date_order)
    except MalformedExport as exc:  # its message names the file (or the zip member) already, or not
        said = exc.message if exc.message.startswith(path.name) else f"{path}: {exc.message}"
        fail(f"{said}{_looks_like(path, format)}", 1)
    if me and not export.is_sender(me):  # "lucia perez" for the sender "Lucía Pérez": the one it folds to
        same = [name for name in export.senders() if fold(name) == fold(me)]
        me = same[0] if len(same) == 1 else me
    owner = me or export.owner
    if me and not export.is_sender(me):  # else the user's own messages would be filed under someone else
        shown = export.senders()
        listed = ", ".join(repr(name) for name in shown[:20]) + (
            f" and {len(shown) - 20} more" if len(shown) > 20 else ""
        )
        fail(f"--me {me!r} is no sender of {path}: its senders are {listed}; give one of them as written", 2)
    found_user = None if owner else _user_from_earlier_imports(format, export, namespace)
    owner = owner or found_user
    if dry_run:
        report = _dry_run(export, path, tz)
        _say_who_the_user_is(report, export, me, found_user)
        params_of = lambda chat, batch: {**_batch(format, chat, batch, owner, tz, namespace), "dry_run": True}  # noqa: E731
        _count_new(export, report, params_of, batch_size)
        show_result(report, show.human_import)
        return
    report = _dry_run(export, path, tz)
    report["dry_run"] = False
    _say_who_the_user_is(report, export, me, found_user)
    try:
        with connected() as client, _Progress(sum(len(c.messages) for c in export.chats)) as progress:
            params_of = lambda chat, batch: _batch(format, chat, batch, owner, tz, namespace)  # noqa: E731
            _store(client, export, report, progress, params_of, batch_size)
            sessions = [s for c in report["chats"] for s in c["sessions"]]
            stuck = _wait_until_searchable(
                client, sessions, namespace, None if no_wait else wait_timeout, report, progress
            )
    except ConnectionError as exc:  # the daemon stopped or was restarted part way (a broken pipe, a reset)
        fail(
            f"the daemon went away during the import ({exc}): what it had acknowledged is stored; once it is "
            "back, the same import stores the rest, once, and makes the rest searchable",
            3,
        )
    show_result(report, show.human_import)
    if stuck:
        fail(stuck, 4)


def _user_from_earlier_imports(format: str, export: ChatExport, namespace: str | None) -> str | None:
    """The sender an earlier import (or the owner) made the user on this channel, when the export
    has one: the user is one person across imports without --me each time. None: no daemon, or
    no such sender."""
    settings = click.get_current_context().obj
    try:
        with Client(settings.socket or default_socket(), token=settings.token) as client:
            accounts = client.call("people.get", given(person="user", namespace=namespace)).get("accounts", [])
    except (ConnectionError, TimeoutError, RpcCallError):
        return None
    known = {a["account"] for a in accounts if a["channel"] == format} | {
        a["name"] for a in accounts if a["channel"] == format
    }
    return next((sender for sender in export.senders() if sender in known), None)


def _say_who_the_user_is(report: dict[str, Any], export: ChatExport, me: str | None, found: str | None) -> None:
    """A note on who the user is when --me was not given: found from an earlier import, or nobody
    (every sender someone else), never silently."""
    if me or export.owner:
        return
    if found:
        report["notes"] = [*report["notes"], f"the user is {found!r}, as in an earlier import (--me to say another)"]
        return
    senders = ", ".join(repr(s) for s in export.senders()[:10])
    report["notes"] = [
        *report["notes"],
        f"no --me: none of the senders is the user, every one is stored as another person; if you are one of "
        f"them ({senders}), import again with --me NAME and their messages become yours",
    ]


def _count_new(export: ChatExport, report: dict[str, Any], params_of, batch_size: int) -> None:
    """Ask the daemon which of the export's messages it holds already (a later export of a chat
    imported before), storing nothing: each chat's ``new`` and ``stored``. No daemon, or one that
    refuses: ``new`` stays unknown (None) and the report says why."""
    settings = click.get_current_context().obj
    try:
        with Client(settings.socket or default_socket(), token=settings.token) as client:
            for chat, summary in zip(export.chats, report["chats"]):
                summary["new"] = summary["stored"] = 0
                for batch in batches(chat.messages, max_messages=batch_size):
                    done = client.call("channels.ingest", params_of(chat, batch))
                    summary["new"] += done["added"]
                    summary["stored"] += done["duplicates"]
                    _said_zone(report, done)
    except (ConnectionError, TimeoutError, RpcCallError) as exc:
        for summary in report["chats"]:
            summary["new"] = summary["stored"] = None
        report["notes"] = [*report["notes"], f"which messages are new is not known: {exc}"]


def _store(
    client, export: ChatExport, report: dict[str, Any], progress: "_Progress", params_of, batch_size: int
) -> None:
    """Every chat's messages to the daemon, a batch a commit; what each chat added, in ``report``.
    ``params_of(chat, batch)``: the batch's channels.ingest params."""
    for chat, summary in zip(export.chats, report["chats"]):
        summary.update(
            added=0, duplicates=0, forgotten=0, edited=0, deleted=0, sessions=[], people={}, observing=[],
            retimed=None, remapped=[],
        )  # fmt: skip
        sliced = list(batches(chat.messages, max_messages=batch_size))
        for number, batch in enumerate(sliced, start=1):
            params = params_of(chat, batch)
            if number == len(sliced) and chat.deleted:  # once every message is stored
                params["deleted"] = chat.deleted[:DELETED_PER_CALL]
                for start in range(DELETED_PER_CALL, len(chat.deleted), DELETED_PER_CALL):  # the batch again adds 0
                    more = {**params, "deleted": chat.deleted[start : start + DELETED_PER_CALL]}
                    summary["deleted"] += client.call("channels.ingest", more).get("deleted", 0)
            done = client.call("channels.ingest", params)
            _said_zone(report, done)
            if done["chat"] != chat.chat_id:  # the daemon holds this chat under an earlier id: go on there
                chat.chat_id, chat.earlier_ids = done["chat"], []
                summary["chat"] = done["chat"]
            summary["added"] += done["added"]
            summary["duplicates"] += done["duplicates"]
            summary["forgotten"] += done.get("forgotten", 0)
            summary["edited"] += done.get("edited", 0)
            summary["deleted"] += done.get("deleted", 0)
            summary["people"].update(done["people"])
            summary["heard_by_user"] = done.get("heard_by_user")
            summary["remapped"] += done.get("remapped") or []
            summary["retimed"] = _add_retimed(summary["retimed"], done.get("retimed"))
            for key in ("sessions", "observing"):
                summary[key] += [s for s in done[key] if s not in summary[key]]
            progress.advance(len(batch), chat.title)
    unheard = [c["title"] for c in report["chats"] if c.get("heard_by_user") is False]
    if unheard:  # else "why does my agent know nothing of Ana?" (docs/chats.md, who may hear what)
        named = ", ".join(unheard[:5]) + (f" and {len(unheard) - 5} more" if len(unheard) > 5 else "")
        report["notes"] = [
            *report["notes"],
            f"{named}: private, heard in their own chat only, not by your own conversations (MCP, the "
            f'proxy); [channels] private_reaches_user = ["{export.format}"] lets them reach yours',
        ]
    report["added"] = sum(c["added"] for c in report["chats"])
    report["duplicates"] = sum(c["duplicates"] for c in report["chats"])
    report["forgotten"] = sum(c["forgotten"] for c in report["chats"])
    report["edited"] = sum(c["edited"] for c in report["chats"])
    report["deleted"] = sum(c["deleted"] for c in report["chats"])


def _wait_until_searchable(
    client, sessions: list[str], namespace: str | None, timeout: float | None, report: dict, progress: _Progress
) -> str | None:
    """Ask the daemon (channels.pending) until the import's messages are searchable, their episodes
    stored; with ``timeout`` None (--no-wait) only once. Their state goes in ``report``; returned:
    why the wait ended before they were searchable (a worker that stopped, the timeout), or None."""
    if not sessions:  # nothing stored
        report.update(searchable=True, not_yet_searchable=0, indexing_s=0.0)
        return None
    params = given(sessions=sessions if len(sessions) <= PENDING_SESSIONS_MAX else None, namespace=namespace)
    started, stopped_since = time.monotonic(), None
    while True:
        state = client.call("channels.pending", params)
        waited = time.monotonic() - started
        pending = state["pending"]
        report.update(searchable=pending == 0, not_yet_searchable=pending, indexing_s=round(waited, 1))
        if not state["episodes"]:
            click.echo(
                "episodes are off ([conversation] episodes): `agentmemd chat messages` finds what was said", err=True
            )
        if timeout is None:
            if pending:
                click.echo(f"stored; {pending} messages become searchable in the background", err=True)
            return None
        progress.still_to_index(pending)
        if pending == 0:
            progress.searchable(waited)
            return None
        if state["indexing"]:
            stopped_since = None
        elif stopped_since is None:
            stopped_since = time.monotonic()
        elif time.monotonic() - stopped_since >= STUCK_SECONDS:
            detail = client.call("health").get("detail") or "the daemon's log says why"
            return (
                f"{pending} messages are stored but not searchable: the daemon's episode worker stopped ({detail}); "
                "it tries again when the daemon starts or new messages arrive"
            )
        if waited >= timeout:
            return (
                f"{pending} messages are stored but not yet searchable after {timeout:g} s (--wait-timeout); "
                "the daemon goes on indexing them in the background"
            )
        time.sleep(min(POLL_SECONDS, max(timeout - waited, 0.01)))


def _add_retimed(total: dict | None, more: dict | None) -> dict | None:
    if not more:
        return total
    return {**more, "messages": more["messages"] + (total["messages"] if total else 0)}


def _batch(format: str, chat: Chat, batch: list, owner: str | None, tz: str | None, namespace: str | None) -> dict:
    return given(
        channel=format,
        chat_id=chat.chat_id,
        earlier_ids=chat.earlier_ids or None,
        title=chat.title,
        kind=chat.kind,
        messages=[m.model_dump(mode="json", exclude_defaults=True) for m in batch],
        owner=owner,
        tz=tz,
        namespace=namespace,
    )


def _assumed_zone(export: ChatExport, tz: str | None) -> str | None:
    """The zone naive times are read in, said before they are stored (None: the export gives zones)."""
    if not any(m.ts.tzinfo is None for c in export.chats for m in c.messages):
        return None
    if tz:
        return f"{tz} (--tz)"
    from tzlocal import get_localzone_name

    return f"the daemon's [channels] timezone (unset: this machine's, {get_localzone_name()}); --tz to choose"


def _looks_like(path: Path, named: str) -> str:
    """A hint when an export named as one format looks like another ("import discord" of a Slack zip)."""
    try:
        found = recognise(path)
    except (MalformedExport, OSError):
        return ""
    return f" (it looks like a {found} export: agentmemd import {found} {path})" if found != named else ""


def _said_zone(report: dict[str, Any], done: dict[str, Any]) -> None:
    """The zone the daemon read naive times in, by name, once it has said it (before, the report
    could only say "the daemon's [channels] timezone" and guessed this machine's)."""
    if report.get("zone") and "(--tz)" not in report["zone"] and done.get("zone"):
        report["zone"] = f"{done['zone']} (the daemon's [channels] timezone; --tz to choose another)"


def _dry_run(export: ChatExport, path: Path, tz: str | None = None) -> dict[str, Any]:
    """Counts per chat and sender, the date range and what was skipped: what an import would send."""
    chats: list[dict[str, Any]] = []
    for chat in export.chats:
        stamps = sorted((m.ts for m in chat.messages), key=to_utc)
        chats.append(
            {
                "chat": chat.chat_id,
                "title": chat.title,
                "kind": chat.kind,
                "messages": len(chat.messages),
                "senders": dict(Counter(m.sender for m in chat.messages).most_common()),
                "first": _stamp(stamps[0]) if stamps else None,
                "last": _stamp(stamps[-1]) if stamps else None,
                "skipped": [s.model_dump() for s in chat.skipped],
            }
        )
    firsts = [c["first"] for c in chats if c["first"]]
    return {
        "format": export.format,
        "path": str(path),
        "dry_run": True,
        "notes": export.notes,
        "zone": _assumed_zone(export, tz),
        "owner": export.owner,
        "messages": sum(c["messages"] for c in chats),
        "skipped": sum(len(c["skipped"]) for c in chats),
        "first": min(firsts) if firsts else None,
        "last": max(c["last"] for c in chats if c["last"]) if firsts else None,
        "chats": chats,
    }


def _stamp(ts) -> str:
    """An aware time as stored (UTC); a naive one as the export wrote it (its zone is --tz's)."""
    return format_time(ts) if ts.tzinfo else ts.isoformat(timespec="seconds")


class _Progress:
    """A tqdm bar on a terminal; plain lines on stderr when piped (a log, a CI job): the messages
    stored, then those still to index before a search finds them."""

    def __init__(self, total: int):
        self.total = total
        self.done = 0
        self.bar = None
        self.to_index = 0  # the most messages seen waiting for their episodes (the indexing bar's total)
        self.line_at = 0.0  # when the last plain line about indexing was written
        if sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit="msg", desc="importing", file=sys.stderr)

    def __enter__(self) -> "_Progress":
        return self

    def advance(self, count: int, title: str) -> None:
        self.done += count
        if self.bar is not None:
            self.bar.set_postfix_str(title[:30], refresh=False)
            self.bar.update(count)
        else:
            # Read and handed to the daemon: how many were new the report says at the end.
            click.echo(f"went through {self.done}/{self.total} messages ({title})", err=True)

    def still_to_index(self, pending: int) -> None:
        """``pending`` messages are not searchable yet: counted down on a bar, or a line now and then."""
        grew = pending > self.to_index  # the first count, or live messages of the namespace joined it
        self.to_index = max(self.to_index, pending)
        if self.bar is not None:
            if self.bar.desc == "importing" and pending:
                from tqdm import tqdm

                self.bar.close()
                self.bar = tqdm(total=pending, unit="msg", desc="indexing for search", file=sys.stderr)
            elif grew:
                self.bar.total = self.to_index
            self.bar.n = self.to_index - pending
            self.bar.refresh()
        elif pending and (grew or time.monotonic() - self.line_at >= PLAIN_LINE_SECONDS):
            self.line_at = time.monotonic()
            click.echo(f"indexing for search: {pending} of {self.to_index} messages to go", err=True)

    def searchable(self, seconds: float) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        click.echo(f"searchable: every imported message ({seconds:.1f} s after the last was stored)", err=True)

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.close()


@click.command("chats")
@NAMESPACE
def chats_list(namespace: str | None) -> None:
    """Chats imported or received, with their messages and sessions.  `agentmemd chat list`"""
    call("chats.list", given(namespace=namespace), printer=show.human_chats)


@click.command("messages")
@click.argument("query")
@click.option("-k", type=bounded(TurnSearchParams, "k"), default=20, show_default=True, help="How many messages.")
@click.option("--chat", help="Only this chat (its id, as `agentmemd chat list` shows it).")
@click.option("--person", help="Only what this person said: an id from `agentmemd person list`, or a name they go by.")
@click.option("--session", help="Only this session.")
@AUDIENCE
@NAMESPACE
def messages(
    query: str,
    k: int,
    chat: str | None,
    person: str | None,
    session: str | None,
    audience: str | None,
    namespace: str | None,
):
    """Search the raw messages and turns by their words, with chat, speaker and time.

    \b
        agentmemd messages "ramen friday" --chat slack:G01MP
    """
    call(
        "conversation.search",
        given(query=query, k=k, chat=chat, person=person, session=session, audience=audience, namespace=namespace),
        printer=show.human_turns,
    )


@click.group("person")
def people() -> None:
    """Everyone who spoke in an imported or live chat (`agentmemd person list`)."""


@people.command("list")
@NAMESPACE
def people_list(namespace: str | None) -> None:
    """People with their message counts.  `agentmemd person list`"""
    call("people.list", given(namespace=namespace), printer=show.human_people)


@people.command("get")
@click.argument("person")
@AUDIENCE
@NAMESPACE
def people_get(person: str, audience: str | None, namespace: str | None) -> None:
    """A person's accounts, chats, activity and the agent's impressions of them.

    \b
        agentmemd person get pe_1a2b3c4d5e6f
        agentmemd person get "Lucía"          # by a name they go by, accents and case aside
    """
    call("people.get", given(person=person, audience=audience, namespace=namespace), printer=show.human_person)


@people.command("merge")
@click.argument("person")
@click.argument("into")
@click.option("--dry-run", is_flag=True, help="Say what would move (or why it is refused); change nothing.")
@NAMESPACE
def people_merge(person: str, into: str, dry_run: bool, namespace: str | None) -> None:
    """PERSON is the same human as INTO (a second account): their accounts and messages move.

    \b
        agentmemd person merge pe_0f9e8d7c6b5a pe_1a2b3c4d5e6f --dry-run
        agentmemd person merge pe_0f9e8d7c6b5a pe_1a2b3c4d5e6f
        agentmemd person merge pe_0f9e8d7c6b5a user      # it was the user all along
    """
    call("people.merge", given(person=person, into=into, namespace=namespace, dry_run=dry_run or None))


COMMANDS = (import_chats, chats_list, messages, people)
