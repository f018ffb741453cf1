"""The `agentmemd` command, in-process with click's CliRunner (against a real daemon where it talks to one)."""

from __future__ import annotations

import json
import re

import click
import pytest
from click.testing import CliRunner

from agentmemd.daemon.cli.main import cli, main

pytestmark = pytest.mark.process  # the tier (pyproject.toml)


def commands(group: click.Group, prefix: str = "") -> dict[str, click.Command]:
    out = {}
    for name, command in group.commands.items():
        out[prefix + name] = command
        if isinstance(command, click.Group):
            out |= commands(command, f"{prefix}{name} ")
    return out


def test_every_command_has_help_with_an_example():
    for name, command in commands(cli).items():
        if isinstance(command, click.Group):
            continue
        assert command.help and "agentmemd " in command.help, f"`agentmemd {name}` has no example in its help"


def visible(group: click.Group, path: tuple[str, ...] = ()) -> dict[str, click.Command]:
    out = {}
    for name, command in group.commands.items():
        if not command.hidden:
            out[" ".join((*path, name))] = command
            if isinstance(command, click.Group):
                out |= visible(command, (*path, name))
    return out


def test_every_example_in_the_help_runs_a_command_the_help_shows():
    """A person copies the examples: each names a visible command (`agentmemd memory history ID`),
    not a hidden alias kept for scripts (`agentmemd history ID`)."""
    shown = visible(cli)
    wrong = []
    for name, command in shown.items():
        for line in (command.help or "").splitlines():
            words = line.split()
            if words[:1] != ["agentmemd"]:
                continue
            words = words[1:]
            while words and words[0].startswith("--"):  # the global options before the command
                words = words[2:] if words[0] in ("--socket", "--token") else words[1:]
            if not any(" ".join(words[:k]) in shown for k in range(len(words), 0, -1)):
                wrong.append(f"{name}: {line.strip()}")
    assert wrong == []


def test_the_docs_and_every_help_name_commands_as_the_help_shows_them():
    """Inline too (`agentmemd memory get ID` in a sentence), and in docs/: a person types what
    they read, and a hidden alias kept for scripts is not what to teach."""
    from pathlib import Path

    shown = visible(cli)
    mentioned = re.compile(r"agentmemd((?: --[\w-]+(?: [^\s`-]\S*)?)*) ([a-z][\w-]*(?: [a-z][\w-]*)?)")
    texts = {f"help of {name}": command.help or "" for name, command in shown.items()}
    docs = Path(__file__).resolve().parent.parent / "docs"
    texts |= {str(p.relative_to(docs)): p.read_text() for p in docs.rglob("*.md")}
    wrong = []
    for where, text in texts.items():
        for found in mentioned.finditer(text):
            words = found.group(2).split()
            if words[0] in cli.commands and not any(" ".join(words[:k]) in shown for k in (2, 1)):
                wrong.append(f"{where}: {found.group(0)}")
    assert wrong == []


def test_each_group_answers_to_the_other_number_too():
    for typed, group in (
        ("goals", "goal"),
        ("tokens", "token"),
        ("chats", "chat"),
        ("jobs", "job"),
        ("people", "person"),
    ):
        alias = cli.commands[typed]
        assert alias.hidden and alias.commands == cli.commands[group].commands
    assert CliRunner().invoke(cli, ["goals", "--help"]).exit_code == 0


def test_a_path_given_with_a_tilde_as_written_is_under_home(tmp_path, monkeypatch):
    """A shell expands ~, but a path given quoted, by a program or by a service file reaches the
    command as written: `agentmemd init '~/agent'` made a folder named "~" where it ran."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["init", "~/agent/workspace", "--config", "~/agent/agentmemd.toml"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "home" / "agent" / "workspace" / "SOUL.md").is_file()
    assert (tmp_path / "home" / "agent" / "agentmemd.toml").is_file()
    assert not (tmp_path / "~").exists()
    every = [p for c in [cli, *commands(cli).values()] for p in c.params if isinstance(p.type, click.Path)]
    assert every and all(type(p.type).__name__ == "HomePath" for p in every)  # every command's path reads ~
    sockets = [p for c in [cli, *commands(cli).values()] for p in c.params if "--socket" in p.opts]
    assert sockets and all(p in every for p in sockets)  # a socket too
    missing = CliRunner().invoke(cli, ["--socket", "~/no-daemon.sock", "health"])
    assert str(tmp_path / "home" / "no-daemon.sock") in missing.output


@pytest.fixture(scope="module")
def served():
    from conftest import served_daemon

    with served_daemon() as d:
        yield d


def run(d, *args: str, stdin: str | None = None):
    return CliRunner().invoke(cli, ["--socket", str(d.socket), *args], input=stdin)


def test_a_round_trip_through_the_daemon(served):
    added = run(served, "add", "Oscar works on the Ofertes project.", "--type", "fact", "--source", "cli")
    assert added.exit_code == 0, added.output
    mid = added.stdout.strip()
    assert "Ofertes" in run(served, "search", "what is Oscar working on").stdout
    assert json.loads(run(served, "--json", "get", mid).stdout)["id"] == mid
    packed = run(served, "pack", "Oscar's project", "--budget", "100")
    assert packed.exit_code == 0 and "MEMORY PACK" in packed.stdout and "pack_id" in packed.stderr
    explained = run(served, "explain", packed.stderr.split("pack_id ")[1].strip())
    assert explained.exit_code == 0 and mid in explained.stdout


def test_search_says_what_moved_a_hit_besides_its_own_match(served):
    """The human output names the signals that moved a hit's similarity (here: the answer to the
    question stored just before it), so "why is this here?" needs no --json."""
    for when, text in (
        ("2023-05-01T10:00:00Z", "Deborah: What's your favourite game to play with your partner?"),
        ("2023-05-01T10:01:00Z", "Jolene: Oh, It Takes Two, no contest! We play it every weekend."),
    ):
        assert run(served, "add", text, "--type", "fact", "--namespace", "moved", "--created", when).exit_code == 0
    out = run(served, "search", "favourite game Jolene plays with her partner", "--namespace", "moved").stdout
    lines = out.splitlines()
    answer = next(i for i, line in enumerate(lines) if "It Takes Two" in line)
    assert "answer=+" in lines[answer + 1] and "match=" in lines[answer + 1], out


def test_memories_listed_by_how_they_feel(served):
    for text in ("I'm terrified of the dentist tomorrow.", "The dentist is on Rue Oberkampf."):
        assert run(served, "add", text, "--type", "fact", "--namespace", "felt").exit_code == 0
    listed = run(served, "memory", "list", "--namespace", "felt", "--emotion", "fear")
    assert listed.exit_code == 0 and "1 memories" in listed.stdout and "terrified" in listed.stdout
    assert " fear]" in listed.stdout
    searched = run(served, "search", "dentist", "--namespace", "felt").stdout
    assert "(fear)" in searched and "affect=" in searched
    refused = run(served, "memory", "list", "--emotion", "smug")
    assert refused.exit_code == 2 and "smug" in refused.output


def test_a_refused_request_exits_1_naming_the_field(served):
    bad = run(served, "search", "   ")
    assert bad.exit_code == 1 and "query" in bad.stderr
    # A bound the params model declares is the option's range too: refused before any call.
    out_of_range = run(served, "pack", "x", "--budget", "0")
    assert out_of_range.exit_code == 2 and "--budget" in out_of_range.stderr and "0<x<=1000000" in out_of_range.stderr
    assert run(served, "rule", "confirm", "seven").exit_code == 1
    assert run(served, "add", "x", "--type", "nonsense").exit_code == 2  # click's usage error names the choices


def test_a_rule_changes_only_when_confirmed(served):
    pending = run(served, "rule", "add", "Never use emoji")  # no terminal: nothing is confirmed
    assert pending.exit_code == 0 and "is pending" in pending.stderr
    assert run(served, "--json", "rule", "list").stdout.count('"pending"') == 1
    confirmed = run(served, "rule", "add", "Never say 'as an AI'", "--yes")
    assert confirmed.exit_code == 0
    rules = json.loads(run(served, "--json", "rule", "list").stdout)["hard_rules"]
    assert "Never say 'as an AI'" in [r["rule"] for r in rules]
    assert "Never use emoji" not in [r["rule"] for r in rules]


def test_the_identity_graph_from_the_cli(served):
    ns = ["--namespace", "cli-identity"]
    added = run(served, "identity", "add", "values", "honesty", "--note", "never lie", *ns)
    assert added.exit_code == 0 and "Nova" not in added.stdout and "values honesty: never lie" in added.stdout
    memory_id = added.stdout.split()[1].rstrip(":")
    run(served, "identity", "add", "is a kind of", "virtue", "--source", "honesty", *ns)
    graph = run(served, "identity", "graph", *ns).stdout
    assert "values: honesty" in graph and "honesty is a kind of virtue  [attributive;" not in graph
    assert "honesty is a kind of virtue  [ontological; memory " in graph
    node = run(served, "identity", "node", "HONESTY", "--hops", "2", *ns)
    assert node.exit_code == 0 and "1 hop: virtue" in node.stdout
    missing = run(served, "identity", "add", "knows", "Bo", "--source", "Nobody", *ns)
    assert missing.exit_code == 1 and "source" in missing.stderr and "no node named 'Nobody'" in missing.stderr
    cycle = run(served, "identity", "add", "is a kind of", "honesty", "--source", "virtue", *ns)
    assert cycle.exit_code == 1 and "ontological cycle" in cycle.stderr
    assert run(served, "identity", "node", "x", "--hops", "9", *ns).exit_code == 2
    removed = run(served, "identity", "remove", memory_id, *ns)
    assert removed.exit_code == 0 and removed.stdout.startswith(f"archived {memory_id}")
    edges = json.loads(run(served, "--json", "identity", "graph", *ns).stdout)["edges"]
    assert [e["text"] for e in edges] == ["honesty is a kind of virtue"]


def test_no_daemon_exits_3():
    gone = CliRunner().invoke(cli, ["--socket", "/tmp/agentmemd-nope.sock", "health"])
    assert gone.exit_code == 3 and "cannot reach agentmemd" in gone.stderr


def test_bench_names_the_missing_extra(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name, *a))
    out = CliRunner().invoke(cli, ["bench", "persona"])
    assert out.exit_code == 2 and "pip install -e '.[bench]'" in out.stderr and "matplotlib" in out.stderr


def test_without_the_benches_bench_and_calibrate_say_where_they_are():
    """The wheel holds no benches: there `agentmemd bench …` names where they live, not 'No such command'."""
    from agentmemd.daemon.cli import main as cli_main

    group = click.Group("agentmemd")
    cli_main.add_bench_commands(group, "agentmemd.daemon.no_benches_here.cli")  # as in the wheel: no package
    for args in (["bench", "pack", "--memories", "10"], ["calibrate", "--labels", "x.json"]):
        out = CliRunner().invoke(group, args)
        assert out.exit_code == 2 and "daemon/bench" in out.stderr and "pip install -e '.[bench]'" in out.stderr
    assert group.commands["bench"].hidden  # help does not list what is not there


def test_main_returns_the_exit_code(capsys):
    assert main(["--version"]) == 0
    assert main(["--socket", "/tmp/agentmemd-nope.sock", "health"]) == 3
    assert main(["no-such-command"]) == 2


def test_the_plain_commands_follow_their_declarations():
    """A method declared with a printer gets its command from the declaration: its arguments are the
    fields named, every other params field is an option with the model's type and default."""
    from agentmemd.daemon.socket.methods import METHODS

    generated = [d for d in METHODS if d.printer is not None]
    assert {d.name for d in generated} >= {"goal.add", "goal.update", "goal.done", "goal.get", "goal.list"}
    for d in generated:
        group = cli
        for name in (d.cli or "").split():
            group = group.commands[name]
        names = [p.name for p in group.params]
        assert names[: len(d.arguments)] == list(d.arguments)
        assert sorted(names) == sorted(d.params.model_fields), d.name


def test_goals_through_the_generated_commands_and_the_method_added_by_declaration(served):
    """goal.get was added as a declaration (with the service's one line): its command came with it."""
    ns = ("--namespace", "cli-goals")
    added = run(served, "--json", "goal", "add", "Ask Laia how the interview went", "--priority", "high", *ns)
    assert added.exit_code == 0, added.output
    goal_id = json.loads(added.stdout)["id"]
    got = json.loads(run(served, "--json", "goal", "get", goal_id, *ns).stdout)
    assert (got["text"], got["priority"], got["status"]) == ("Ask Laia how the interview went", "high", "open")
    noted = run(served, "goal", "update", goal_id, "--note", "booked a call for Friday", *ns)
    assert noted.exit_code == 0 and "booked a call for Friday" in noted.stdout, noted.output
    done = json.loads(run(served, "--json", "goal", "done", goal_id, "--note", "she got the job", *ns).stdout)
    assert done["status"] == "done" and [n["text"] for n in done["notes"]][-1] == "she got the job"
    listed = json.loads(run(served, "--json", "goal", "list", "--status", "all", *ns).stdout)["goals"]
    assert [g["id"] for g in listed] == [goal_id]
    assert json.loads(run(served, "--json", "goal", "list", *ns).stdout)["goals"] == []  # the default: open ones
    # What the model refuses, the command refuses before the daemon is asked (exit 2, click's usage error).
    assert run(served, "goal", "add", "x", "--priority", "urgent", *ns).exit_code == 2
    assert run(served, "goal", "list", "--limit", "501", *ns).exit_code == 2
    gone = run(served, "goal", "get", "g0123456789abcde", *ns)
    assert gone.exit_code == 1 and "g0123456789abcde" in gone.stderr


def test_lists_keep_a_memory_on_one_line_and_search_numbers_its_order(served):
    assert run(served, "add", "Shopping list:\nmilk\neggs", "--type", "fact", "--namespace", "lines").exit_code == 0
    listed = run(served, "memory", "list", "--namespace", "lines").stdout.splitlines()
    assert len(listed) == 2 and listed[1].endswith("Shopping list: ⏎ milk ⏎ eggs"), listed
    run(served, "add", "The user buys eggs at the market on Saturdays", "--type", "fact", "--namespace", "lines")
    found = run(served, "search", "where does the user buy eggs", "--namespace", "lines").stdout.splitlines()
    assert [line.split(".")[0].strip() for line in found[::2]] == ["1", "2"], found  # the order, said as it is
    assert all(line.startswith("    score=") for line in found[1::2])


def test_export_finds_the_running_daemon_s_store(served, tmp_path):
    archive = tmp_path / "memory.tar.gz"
    done = run(served, "export", str(archive))
    assert done.exit_code == 0 and archive.stat().st_size > 0, done.output
    nobody = CliRunner().invoke(cli, ["--socket", str(tmp_path / "none.sock"), "export", str(archive)])
    assert nobody.exit_code == 2 and "no daemon answers" in nobody.output


def test_the_help_explains_types_kinds_and_every_option():
    add = CliRunner().invoke(cli, ["add", "--help"]).output
    assert "preference, what someone likes" in add and "A label to find it by" in add and "Where it came from" in add
    assert "used, the agent used it in a reply" in CliRunner().invoke(cli, ["memory", "reinforce", "--help"]).output
    for name, command in visible(cli).items():
        if name.split()[0] in ("bench", "calibrate"):
            continue  # the developers' benches, not in the wheel
        for option in command.params:
            if isinstance(option, click.Option) and not option.hidden and option.name != "help":
                assert option.help, f"`agentmemd {name}` {option.opts[0]} has no help"


@pytest.mark.parametrize(
    "door", [["webhooks", "--listen"], ["dashboard", "--listen"], ["proxy", "--listen"], ["mcp", "--http"]]
)
def test_a_door_whose_port_is_taken_says_so_before_it_says_where_it_listens(door, tmp_path):
    """It printed its banner (`agentmemd webhooks: http://…`), then failed to bind with exit 3."""
    import socket

    with socket.create_server(("127.0.0.1", 0)) as held:
        port = held.getsockname()[1]
        refused = CliRunner().invoke(cli, ["--socket", str(tmp_path / "none.sock"), *door, f"127.0.0.1:{port}"])
    assert refused.exit_code == 1, refused.output
    assert refused.output == f"agentmemd: {door[1]} 127.0.0.1:{port}: Address already in use\n"


def test_a_history_that_is_no_list_of_turns_is_refused_by_name(tmp_path):
    """`echo '[]' | agentmemd conversation sync chat-1 -` said "turns: Field required"."""
    for given, said in (("[]", "an empty list"), ('{"a": 1}', "a JSON dict"), ("nope", "not JSON")):
        refused = CliRunner().invoke(
            cli, ["--socket", str(tmp_path / "none.sock"), "conversation", "sync", "chat-1", "-"], input=given
        )
        assert refused.exit_code == 2 and f"Invalid value for HISTORY: {said}" in refused.output, refused.output


def test_a_node_only_a_relation_names_says_so_not_memory_none(capsys):
    """`identity node Irene` printed 'first named in memory None' for a name a chat's relation gave."""
    from agentmemd.daemon.cli import printers

    node = {"name": "Irene", "kind": "entity", "description": "", "file": "", "line": 0, "memory_id": None,
            "owner": False, "edges": 1, "key": "irene", "hops": None}  # fmt: skip
    printers.human_identity_node({"node": node, "neighbours": [], "edges": []})
    shown = capsys.readouterr().out
    assert "None" not in shown and "first named in a relation's words" in shown


def test_health_prints_no_none_and_fails_when_the_daemon_cannot_serve(capsys, monkeypatch):
    """`agentmemd health` printed Python's None ('detail  None') and exited 0 with its store away."""
    from agentmemd.daemon.cli import main as cli_main

    answers = {
        "ok": {"status": "ok", "detail": None, "version": "1", "memories": 3, "catching_up": [], "reembedding": None,
               "process": {"pid": 7, "store": "sqlite", "data_dir": "/d", "socket": "/s", "started": "x", "doors": []}},
        "store_unavailable": {"status": "store_unavailable", "detail": "cannot connect", "version": "1",
                              "memories": None, "catching_up": [], "reembedding": None, "process": None},
    }  # fmt: skip

    class Answering:
        def __init__(self, status: str):
            self.status = status

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def call(self, method, params=None):
            return answers[self.status]

    for status, code in (("ok", 0), ("store_unavailable", 1)):
        monkeypatch.setattr(cli_main, "connected", lambda status=status: Answering(status))
        result = CliRunner().invoke(cli_main.cli, ["health"])
        assert result.exit_code == code and "None" not in result.output, result.output
    assert "unknown (the store cannot be asked now)" in result.output and "cannot connect" in result.output


def test_a_data_dir_that_cannot_be_made_or_written_is_one_line_not_a_traceback(tmp_path):
    """A read-only folder (chattr +i) or a path under a file gave a PermissionError's traceback."""
    from agentmemd.daemon.cli.main import cli

    a_file = tmp_path / "notes.txt"
    a_file.write_text("mine")
    result = CliRunner().invoke(
        cli, ["serve", "--data-dir", str(a_file / "data"), "--socket", str(tmp_path / "s.sock")]
    )
    assert result.exit_code == 1, result.output
    assert f"cannot use data dir {a_file / 'data'}: Not a directory" in result.output
    assert "Traceback" not in result.output and a_file.read_text() == "mine"


def test_an_import_whose_daemon_goes_away_says_what_to_do_not_broken_pipe(tmp_path, monkeypatch):
    """SIGTERM to the daemon part way through `agentmemd import` ended the command with
    'agentmemd: [Errno 32] Broken pipe', not saying what was kept or that importing again finishes it."""
    from agentmemd.daemon.cli import chats

    export = tmp_path / "WhatsApp Chat with Ana.txt"
    export.write_text("".join(f"01/01/2024, 08:{i:02d} - {'Ana' if i % 2 else 'Carla'}: msg {i}\n" for i in range(40)))

    class GoneAway:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def call(self, method, params=None):
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(chats, "connected", GoneAway)
    monkeypatch.setattr(chats, "_user_from_earlier_imports", lambda *args: None)
    result = CliRunner().invoke(cli, ["import", "whatsapp", str(export), "--me", "Carla"])
    assert result.exit_code == 3, result.output
    assert (
        "the daemon went away during the import" in result.output and "the same import stores the rest" in result.output
    )


def test_an_ipv6_loopback_listen_address_is_probed_as_ipv6():
    """`--listen '[::1]:PORT'` failed with 'Unknown error -9': the probe asked for an IPv4 socket."""
    import socket

    from agentmemd.daemon.doors.listen import is_loopback, parse_listen, probe_listen

    try:
        with socket.socket(socket.AF_INET6) as free:
            free.bind(("::1", 0))
            port = free.getsockname()[1]
    except OSError:
        pytest.skip("no IPv6 loopback on this machine")
    host, parsed = parse_listen(f"[::1]:{port}")
    assert is_loopback(host) and parsed == port
    probe_listen(host, port)


def test_output_into_a_closed_pipe_ends_with_0_and_a_full_disk_with_one_line(capsys):
    """`agentmemd search ... | head -1` exited 1 with no word (1 says the daemon refused), and
    `agentmemd memory list > /dev/full` ended in a traceback."""
    import io
    import os

    from agentmemd.daemon.cli.main import GuardedOutput

    read, write = os.pipe()
    os.close(read)
    closed = GuardedOutput(io.TextIOWrapper(os.fdopen(write, "wb"), write_through=True))
    with pytest.raises(SystemExit) as ended:
        closed.write("1. m342a  [fact/active]  ...\n" * 1000)
    assert ended.value.code == 0
    if os.path.exists("/dev/full"):
        full = GuardedOutput(open("/dev/full", "w", buffering=1))
        with pytest.raises(SystemExit) as ended:
            full.write("a line\n")
        assert ended.value.code == 1 and "could not be written (No space left on device)" in capsys.readouterr().err


def test_a_socket_path_that_is_a_directory_or_a_file_says_so(tmp_path):
    """`--socket` naming a directory answered "Connection refused", which sent people looking for a daemon."""
    from agentmemd.daemon.socket.client import Client, DaemonUnavailable

    (tmp_path / "a-file").write_text("x")
    for path, said in (
        (tmp_path, "it is a directory, not a socket"),
        (tmp_path / "a-file", "it is a file, not a socket"),
    ):
        with pytest.raises(DaemonUnavailable, match=said):
            Client(path)
    done = CliRunner().invoke(cli, ["--socket", str(tmp_path), "health"])
    assert done.exit_code == 3 and "it is a directory, not a socket" in done.output, done.output


def test_a_priority_that_is_no_number_is_refused_as_such():
    """`priority: NaN` was refused as "less than or equal to 1"."""
    from pydantic import ValidationError

    from agentmemd.memory.core.models import AddParams, UpdateParams

    for model, given in ((AddParams, {"content": "x", "type": "fact"}), (UpdateParams, {"id": "m1", "content": "y"})):
        with pytest.raises(ValidationError, match="finite number"):
            model.model_validate({**given, "priority": float("nan")})
