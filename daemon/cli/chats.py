"""`agentmemd import`, `people`, `chats` and `messages`: chat history in, the people in it out.

The import parses the export here, in the command, and sends its messages to the daemon in
batches (``channels.ingest``), one transaction each: a killed import run again resumes after its
last committed batch, and a finished one run again adds nothing.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Any

import click

from agentmemd.daemon.cli import printers as show
from agentmemd.daemon.cli.calls import AUDIENCE, NAMESPACE, call, connected, fail, given, show_result
from agentmemd.memory.channels.formats import DESCRIPTIONS, READERS, read_chat_export
from agentmemd.memory.channels.ingest import batches
from agentmemd.memory.core.chats import Chat, ChatExport
from agentmemd.memory.core.clock import format_time, to_utc, zone_named
from agentmemd.memory.core.errors import MalformedExport

SKIPPED_SHOWN = 20


@click.command("import", epilog="\b\nFormats:\n" + "\n".join(f"  {k:9} {v}" for k, v in DESCRIPTIONS.items()))
@click.argument("format", type=click.Choice(sorted(READERS)))
@click.argument("path", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--dry-run", is_flag=True, help="Parse and count (per chat and person, the date range); store nothing.")
@click.option("--me", help="Which sender is the user the agent serves (a name or the app's id).")
@click.option(
    "--date-order", type=click.Choice(["dmy", "mdy", "ymd"]), help="WhatsApp: the date order (default: inferred)."
)
@click.option("--tz", help="Zone of times the export writes without one (default: [channels] timezone, or local).")
@click.option("--batch-size", type=click.IntRange(1, 5000), default=500, show_default=True, help="Messages per commit.")
@NAMESPACE
def import_chats(
    format: str,
    path: Path,
    dry_run: bool,
    me: str | None,
    date_order: str | None,
    tz: str | None,
    batch_size: int,
    namespace: str | None,
) -> None:
    """Import a chat export: each chat a conversation, split into sessions by time gaps, its
    speakers people. Importing the same file again adds nothing.

    \b
        agentmemd import whatsapp "WhatsApp Chat with Ana.txt" --me Carla --dry-run
        agentmemd import telegram ~/Downloads/Telegram/result.json
        agentmemd import chatgpt ~/Downloads/chatgpt-export.zip
    """
    if tz:
        try:
            zone_named(tz)
        except ValueError as exc:
            fail(f"--tz: {exc}", 2)
    try:
        export = read_chat_export(format, path, date_order=date_order)
    except MalformedExport as exc:
        fail(f"{path}: {exc.message}", 1)
    owner = me or export.owner
    if me and not export.is_sender(me):  # else the user's own messages would be filed under someone else
        shown = export.senders()
        listed = ", ".join(repr(name) for name in shown[:20]) + (
            f" and {len(shown) - 20} more" if len(shown) > 20 else ""
        )
        fail(f"--me {me!r} is no sender of {path}: its senders are {listed}; give one of them as written", 2)
    if dry_run:
        show_result(_dry_run(export, path, tz), show.human_import)
        return
    report = _dry_run(export, path, tz)
    report["dry_run"] = False
    with connected() as client, _Progress(sum(len(c.messages) for c in export.chats)) as progress:
        for chat, summary in zip(export.chats, report["chats"]):
            summary.update(added=0, duplicates=0, sessions=[], people={}, observing=[], retimed=None, remapped=[])
            for batch in batches(chat.messages, max_messages=batch_size):
                done = client.call("channels.ingest", _batch(format, chat, batch, owner, tz, namespace))
                if done["chat"] != chat.chat_id:  # the daemon holds this chat under an earlier id: go on there
                    chat.chat_id, chat.earlier_ids = done["chat"], []
                    summary["chat"] = done["chat"]
                summary["added"] += done["added"]
                summary["duplicates"] += done["duplicates"]
                summary["people"].update(done["people"])
                summary["remapped"] += done.get("remapped") or []
                summary["retimed"] = _add_retimed(summary["retimed"], done.get("retimed"))
                for key in ("sessions", "observing"):
                    summary[key] += [s for s in done[key] if s not in summary[key]]
                progress.advance(len(batch), chat.title)
    report["added"] = sum(c["added"] for c in report["chats"])
    report["duplicates"] = sum(c["duplicates"] for c in report["chats"])
    show_result(report, show.human_import)


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


def _dry_run(export: ChatExport, path: Path, tz: str | None = None) -> dict[str, Any]:
    """Counts per chat and sender, the date range and what was skipped: what an import would send."""
    chats = []
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
    """A tqdm bar on a terminal; plain lines on stderr when piped (a log, a CI job)."""

    def __init__(self, total: int):
        self.total = total
        self.done = 0
        self.bar = None
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
            click.echo(f"imported {self.done}/{self.total} messages ({title})", err=True)

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.close()


@click.command("chats")
@NAMESPACE
def chats_list(namespace: str | None) -> None:
    """Chats imported or received, with their messages and sessions.  `agentmemd chats`"""
    call("chats.list", given(namespace=namespace), printer=show.human_chats)


@click.command("messages")
@click.argument("query")
@click.option("-k", type=int, default=20, show_default=True)
@click.option("--chat", help="Only this chat (its id, as `agentmemd chats` shows it).")
@click.option("--person", help="Only what this person said (an id from `agentmemd people`).")
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


@click.group("people")
def people() -> None:
    """Everyone who spoke in an imported or live chat."""


@people.command("list")
@NAMESPACE
def people_list(namespace: str | None) -> None:
    """People with their message counts.  `agentmemd people list`"""
    call("people.list", given(namespace=namespace), printer=show.human_people)


@people.command("get")
@click.argument("person")
@AUDIENCE
@NAMESPACE
def people_get(person: str, audience: str | None, namespace: str | None) -> None:
    """A person's accounts, chats, activity and the agent's impressions of them.

    \b
        agentmemd people get pe_1a2b3c4d5e6f
    """
    call("people.get", given(person=person, audience=audience, namespace=namespace), printer=show.human_person)


@people.command("merge")
@click.argument("person")
@click.argument("into")
@NAMESPACE
def people_merge(person: str, into: str, namespace: str | None) -> None:
    """PERSON is the same human as INTO (a second account): their accounts and messages move.

    \b
        agentmemd people merge pe_0f9e8d7c6b5a pe_1a2b3c4d5e6f
        agentmemd people merge pe_0f9e8d7c6b5a user      # it was the user all along
    """
    call("people.merge", given(person=person, into=into, namespace=namespace))


COMMANDS = (import_chats, chats_list, messages, people)
