"""The CLI by noun: `agentmemd memory get ID`, `agentmemd conversation append …`, `agentmemd
persona score …`, as llm and sqlite-utils group theirs. The verbs people type most stay at the
top (`add`, `search`, `pack`, `import`, `serve`, the doors). Each command is defined once, where
it always was (main.py, chats.py); this module only files it under its noun.

A noun run without a subcommand (or with something that is not one) runs its default, so what
worked before still does: `agentmemd persona --history`, `agentmemd conversation SESSION`,
`agentmemd chat`, `agentmemd job`, `agentmemd workspace --sync`. The flat names of the commands
that moved (`agentmemd get ID`, `agentmemd append …`) stay as hidden aliases for scripts.
"""

from __future__ import annotations

import copy
import re

import click


class Noun(click.Group):
    """A group whose first argument, when it names none of its commands, goes to ``default``."""

    def __init__(self, name: str, help: str, default: str | None = None):
        super().__init__(name=name, help=help + (f"\n\nWithout a command: `{default}`." if default else ""))
        self.default = default

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if self.default and not (args and (args[0] in self.commands or args[0] in ("-h", "--help"))):
            args = [self.default, *args]
        return super().parse_args(ctx, args)


# noun -> (what it is, its default command, {its command's name: the command's flat name})
NOUNS: dict[str, tuple[str, str | None, dict[str, str]]] = {
    "memory": (
        "Memories: store, find, correct, share and forget them; packs and why they held what they held.",
        None,
        {
            "add": "add",
            "get": "get",
            "search": "search",
            "update": "update",
            "archive": "archive",
            "restore": "restore",
            "forget": "forget",
            "history": "history",
            "share": "share",
            "reinforce": "reinforce",
            "list": "memories",
            "sweep": "sweep",
            "stats": "stats",
            "pack": "pack",
            "explain": "explain",
            "packs": "packs",
            "consolidated": "consolidated",
        },
    ),  # fmt: skip
    "conversation": (
        "Conversations: turns in, the context for the next model call, the Observer's observations.",
        "status",
        {
            "status": "conversation",
            "append": "append",
            "sync": "sync",
            "context": "context",
            "contexts": "contexts",
            "observe": "observe",
            "list": "conversations",
            "turns": "turns",
            "observations": "observations",
            "messages": "messages",
        },
    ),  # fmt: skip
    "persona": (
        "The agent's persona: its state, SyncScores and hard rules.",
        "show",
        {"show": "persona", "score": "score", "scores": "scores", "rule": "rule"},
    ),
    "chat": (
        "Chats imported or received live, and their messages.",
        "list",
        {"list": "chats", "import": "import", "messages": "messages"},
    ),
    "job": (
        "Scheduled jobs, the daemon's clock and the language-model ledger.",
        "list",
        {"list": "jobs", "run": "run-job", "clock": "clock", "costs": "costs"},
    ),
    "workspace": (
        "The Markdown workspace: its files indexed or skipped, a new one from the template.",
        "status",
        {"status": "workspace", "init": "init"},
    ),
}
# One rule: a noun is singular (`memory`, `conversation`, `chat`, `job`, `person`, `goal`,
# `token`), as git, gh and docker name theirs. The plural of each is kept as a hidden alias of the
# whole group, so a person may type either (`memories` and `conversations` are the flat names of
# `memory list` and `conversation list` instead, as they were).
OTHER_NUMBER = {"goal": "goals", "token": "tokens", "chat": "chats", "job": "jobs", "person": "people"}


def _shown_as(help_text: str | None, shown_as: dict[str, str]) -> str | None:
    """``help_text`` with each `agentmemd FLAT` of a moved command as `agentmemd NOUN NAME`."""
    if not help_text or not shown_as:
        return help_text
    names = "|".join(re.escape(name) for name in sorted(shown_as, key=len, reverse=True))
    pattern = rf"(agentmemd(?: --[\w-]+(?: [^\s`-]\S*)?)*) ({names})(?=[\s`]|$)"
    return re.sub(pattern, lambda m: f"{m.group(1)} {shown_as[m.group(2)]}", help_text)


def _every_command(group: click.Group) -> list[click.Command]:
    out: list[click.Command] = []
    for command in group.commands.values():
        out.append(command)
        if isinstance(command, click.Group):
            out += _every_command(command)
    return out


# The verbs people type most, the doors and the groups that were nouns already: at the top, shown.
TOP_LEVEL = frozenset(
    {"add", "search", "pack", "import", "serve", "init", "health", "mcp", "proxy", "webhooks", "dashboard",
     "person", "token", "bench", "calibrate", "doctor", "service", "hooks"}
)  # fmt: skip


def arrange_by_noun(cli: click.Group) -> None:
    """File every command under its noun; keep the flat names of those that moved, hidden, and
    the other number of some groups' names (`goals`, `person`), hidden too. Every help names a
    moved command as it is shown (`agentmemd memory history ID`, not `agentmemd history ID`)."""
    flat = dict(cli.commands)
    filed: set[str] = set()
    shown_as: dict[str, str] = {}  # a moved command's flat name -> where the help shows it
    for noun, (about, default, members) in NOUNS.items():
        group = Noun(noun, about, default)
        for name, flat_name in members.items():
            group.add_command(flat[flat_name], name)
            if flat_name not in TOP_LEVEL and flat_name not in NOUNS:
                shown_as.setdefault(flat_name, f"{noun} {name}")
            filed.add(flat_name)
        cli.add_command(group, noun)
    for each in _every_command(cli):
        each.help = _shown_as(each.help, shown_as)
    for shown, other in OTHER_NUMBER.items():
        named = cli.commands.get(shown)
        if isinstance(named, click.Group):
            # The whole group, also where a flat command had the name (`chats` listed chats; the
            # group's default does that still, and `chats messages` works too).
            plural = copy.copy(named)
            plural.hidden = True
            cli.add_command(plural, other)
    for name in sorted(filed - TOP_LEVEL - set(NOUNS) - set(OTHER_NUMBER.values())):
        alias = copy.copy(flat[name])
        alias.hidden = True  # `agentmemd get ID` still runs; help shows `agentmemd memory get`
        cli.add_command(alias, name)
