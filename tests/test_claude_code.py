"""agentmemd inside Claude Code through its hooks (daemon/claude_code/): the entries written into a
settings file and taken out again without touching anything else; a real transcript read back
into turns; and the real `claude` (@anthropic-ai/claude-code, installed by `make hosts`) run
headless against a fake Anthropic API, its hooks calling a real daemon: the pack reaches the model
with the prompt, and the session is kept, once, however often it is synced."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import wait_for
from fake_anthropic import FakeAnthropic, message_stream

from agentmemd.daemon.claude_code import settings as claude_settings
from agentmemd.daemon.claude_code.hooks import HookSettings, run_hook, session_name
from agentmemd.daemon.claude_code.transcript import turns_of
from agentmemd.daemon.socket.client import Client

pytestmark = pytest.mark.doors  # the tier (pyproject.toml)

REPO = Path(__file__).resolve().parent.parent
DATA = Path(__file__).parent / "data" / "claude_code"
CLAUDE = REPO / ".hosts" / "node_modules" / ".bin" / "claude"  # `make hosts`
PYTHON = "/opt/venv/bin/python"

THEIRS = {
    "model": "opus",
    "permissions": {"allow": ["Bash(git status)"]},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/guard.sh"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    },
}


def test_install_adds_its_four_hooks_once_and_keeps_every_other_key_and_hook(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(THEIRS, indent=2))
    path.chmod(0o640)
    for _ in range(2):  # again: replaced, not doubled
        change = claude_settings.install(path, PYTHON, ["--budget", "800"])
    assert change.written == ["SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"]
    settings = json.loads(path.read_text())
    assert settings["model"] == "opus" and settings["permissions"] == THEIRS["permissions"]
    assert settings["hooks"]["PreToolUse"] == THEIRS["hooks"]["PreToolUse"]
    ours = [
        h for groups in settings["hooks"].values() for g in groups for h in g["hooks"] if claude_settings.is_ours(h)
    ]
    assert len(ours) == 4
    stop = [h["command"] for g in settings["hooks"]["Stop"] for h in g["hooks"]]
    assert stop == ["notify-send done", "/opt/venv/bin/python -m agentmemd.daemon.claude_code stop --budget 800"]
    assert settings["hooks"]["SessionStart"][0]["matcher"] == "startup|resume|clear|compact"
    assert "matcher" not in settings["hooks"]["UserPromptSubmit"][0]  # takes none: Claude Code ignores one
    assert path.stat().st_mode & 0o777 == 0o640

    removed = claude_settings.uninstall(path)
    assert removed.removed == 4
    assert json.loads(path.read_text()) == THEIRS  # exactly as it was
    assert claude_settings.uninstall(path).removed == 0


def test_a_settings_file_claude_code_could_not_read_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text('{"model": "opus",}')  # a trailing comma: not JSON
    with pytest.raises(claude_settings.SettingsError, match="not valid JSON"):
        claude_settings.install(path, PYTHON, [])
    assert path.read_text() == '{"model": "opus",}'
    created = claude_settings.install(tmp_path / "new" / "settings.json", PYTHON, [])
    assert created.path.stat().st_mode & 0o777 == 0o600
    assert claude_settings.uninstall(tmp_path / "none.json").removed == 0


@pytest.mark.parametrize("value", [{"x": 1}, None, "notify-send"])
def test_an_event_whose_hooks_are_not_a_list_is_refused_naming_it(tmp_path, value):
    path = tmp_path / "settings.json"
    before = json.dumps({"hooks": {"Stop": value}})
    path.write_text(before)
    with pytest.raises(claude_settings.SettingsError, match=r'"hooks.Stop" is not a list'):
        claude_settings.install(path, PYTHON, [])
    assert path.read_text() == before


def test_a_settings_file_that_is_a_link_stays_one_and_an_event_the_user_left_empty_stays(tmp_path):
    dotfiles = tmp_path / "dotfiles" / "claude.json"
    dotfiles.parent.mkdir()
    theirs = {**THEIRS, "hooks": {**THEIRS["hooks"], "PreCompact": []}}  # empty, and not one of ours
    dotfiles.write_text(json.dumps(theirs))
    link = tmp_path / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(dotfiles)
    claude_settings.install(link, PYTHON, [])
    assert link.is_symlink() and "agentmemd" in dotfiles.read_text()
    assert claude_settings.uninstall(link).removed == 4
    assert link.is_symlink() and json.loads(dotfiles.read_text()) == theirs
    assert not list(link.parent.glob(".settings.*")) and not list(dotfiles.parent.glob(".settings.*"))


def test_install_warns_of_agentmemds_hooks_in_another_scope_and_refuses_a_bad_namespace(tmp_path, monkeypatch):
    """Claude Code runs every scope's hooks: a user-scope install and a project's local one would
    give each prompt two packs and keep each session in two namespaces."""
    from click.testing import CliRunner

    from agentmemd.daemon.cli.main import cli

    project = tmp_path / "work project"
    project.mkdir()
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": "", "AGENTMEMD_SOCKET": str(tmp_path / "s.sock")}
    runner = CliRunner()
    monkeypatch.chdir(project)
    first = runner.invoke(cli, ["hooks", "claude-code", "install"], env=env)
    assert first.exit_code == 0 and "note:" not in first.output, first.output
    second = runner.invoke(cli, ["hooks", "claude-code", "install", "--scope", "local", "--namespace", "work"], env=env)
    assert second.exit_code == 0, second.output
    assert "(user scope) has agentmemd's hooks too" in second.output and "uninstall --scope user" in second.output
    bad = runner.invoke(cli, ["hooks", "claude-code", "install", "--namespace", "a b;touch x"], env=env)
    assert bad.exit_code == 2 and "is not a namespace name" in bad.output, bad.output
    assert not (project / ".claude" / "settings.json").exists()


def test_the_scopes_are_where_claude_code_reads_them(tmp_path):
    home = {"HOME": "/home/ana"}
    assert claude_settings.settings_path("user", tmp_path, home) == Path("/home/ana/.claude/settings.json")
    assert claude_settings.settings_path("user", tmp_path, {**home, "CLAUDE_CONFIG_DIR": "/c"}) == Path(
        "/c/settings.json"
    )
    assert claude_settings.settings_path("project", tmp_path, home) == tmp_path / ".claude" / "settings.json"
    assert claude_settings.settings_path("local", tmp_path, home) == tmp_path / ".claude" / "settings.local.json"


def test_a_real_transcript_reads_as_the_prompt_and_the_reply_without_the_tool_work():
    """Claude Code 2.1.332's own file: a prompt, a reply in two blocks around a Bash call and its result."""
    turns = turns_of(DATA / "transcript-2.1.332.jsonl")
    assert turns == [("user", "please USE_TOOL now"), ("assistant", "Running a command.\n\nFAKE-REPLY-2")]
    # The Stop hook's last_assistant_message, when the file lags it, completes the reply once.
    assert turns_of(DATA / "transcript-2.1.332.jsonl", "FAKE-REPLY-2") == turns
    lagging = turns_of(DATA / "transcript-2.1.332.jsonl", "And one more thing.")
    assert lagging[-1] == ("assistant", "Running a command.\n\nFAKE-REPLY-2\n\nAnd one more thing.")


def test_a_compactions_summary_is_no_turn_of_the_persons():
    """Claude Code 2.1.332 after `/compact`: the summary it writes as a user message for the model
    ("This session is being continued from a previous conversation…", isCompactSummary) was stored
    as the person's words, and came back in packs."""
    turns = turns_of(DATA / "transcript-2.1.332-compacted.jsonl")
    assert [r for r, _ in turns] == ["user", "assistant"] * 4
    assert not [t for _, t in turns if "continued from a previous conversation" in t]
    assert turns[-2:] == [("user", "question after compact"), ("assistant", "After compact reply.")]


def test_the_hooks_answer_with_a_pack_and_keep_the_session_once(tmp_path, module_daemon):
    transcript = tmp_path / "session.jsonl"
    transcript.write_text((DATA / "transcript-2.1.332.jsonl").read_text())
    d = module_daemon
    with Client(d.socket) as owner:
        owner.memory_add(content="The user's dog is called Pixel", type="fact", namespace="cc")
        # Said to the agent in a private chat: it never reaches the user's own agent.
        said = {
            "sender": "Ana",
            "sender_id": "2002",
            "ts": 1710234940,
            "line": 1,
            "text": "Between us: my dog is Zorro",
        }
        owner.call(
            "channels.ingest",
            {
                "channel": "telegram",
                "chat_id": "telegram:2002",
                "kind": "private",
                "messages": [said],
                "namespace": "cc",
            },
        )
    settings = HookSettings(d.socket, None, "cc", 400, 30)
    event = {"session_id": "81482c3a-01a5", "transcript_path": str(transcript), "cwd": str(tmp_path)}
    said = run_hook("user-prompt-submit", json.dumps({**event, "prompt": "what is my dog called?"}), settings)
    context = json.loads(said)["hookSpecificOutput"]
    assert context["hookEventName"] == "UserPromptSubmit" and "Pixel" in context["additionalContext"]
    with Client(d.socket) as owner:  # the owner, naming no audience, hears the chat

        def owners_pack() -> str:
            return owner.context_pack(query="is Ana's dog Zorro?", budget_tokens=400, namespace="cc").text

        wait_for(lambda: "Zorro" in owners_pack(), timeout=60)
    for hook, prompt in (("user-prompt-submit", "is Ana's dog Zorro?"), ("session-start", None)):
        said = run_hook(hook, json.dumps({**event, "prompt": prompt or "", "cwd": "/tmp/Zorro"}), settings)
        assert "Zorro" not in said and "Between us" not in said, said
    for hook in ("stop", "session-end", "stop"):
        assert run_hook(hook, json.dumps({**event, "last_assistant_message": "FAKE-REPLY-2"}), settings) == ""
    with Client(d.socket) as owner:
        turns = owner.conversation_turns(session=session_name("81482c3a-01a5"), namespace="cc").turns
    assert [(t.role, t.content) for t in turns] == turns_of(transcript)  # stored once, as said
    with pytest.raises(ValueError, match="session_id"):
        run_hook("stop", "{}", settings)
    with pytest.raises(ValueError, match="is not a file: nothing kept"):  # was silent
        run_hook("stop", json.dumps({**event, "transcript_path": str(tmp_path / "gone.jsonl")}), settings)


@pytest.fixture(scope="module")
def claude() -> Path:
    if not CLAUDE.exists():
        if os.environ.get("AGENTMEMD_REQUIRE_HOSTS"):
            pytest.fail(f"{CLAUDE} is missing: `make hosts` installs Claude Code")
        pytest.skip(f"Claude Code is not installed at {CLAUDE} (`make hosts`)")
    return CLAUDE


def test_the_real_claude_code_gets_the_pack_with_the_prompt_and_keeps_its_session(claude, tmp_path, module_daemon):
    d = module_daemon
    home = tmp_path / "home"
    project = tmp_path / "pottery"
    project.mkdir()
    env = {
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "ANTHROPIC_API_KEY": "sk-ant-test",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
    }
    with FakeAnthropic() as upstream:
        env["ANTHROPIC_BASE_URL"] = upstream.base_url
        with Client(d.socket) as owner:
            owner.memory_add(content="The user's kiln fires at cone 6", type="fact", namespace="cc-real")
        cli = [sys.executable, "-m", "agentmemd.daemon.cli", "--socket", str(d.socket)]
        installed = subprocess.run(
            [*cli, "hooks", "claude-code", "install", "--namespace", "cc-real"], env=env, capture_output=True, text=True
        )
        assert installed.returncode == 0, installed.stderr
        assert str(home / ".claude" / "settings.json") in installed.stdout

        def ask(prompt: str, *extra: str) -> dict:
            upstream.replies.append(message_stream("Cone 6, as you told me."))
            done = subprocess.run(
                [str(claude), "-p", prompt, "--output-format", "json", *extra],
                env=env,
                cwd=project,
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert done.returncode == 0, done.stdout + done.stderr
            return json.loads(done.stdout)

        first = ask("what cone does my kiln fire at?")
        sent = json.dumps(upstream.requests[-1]["body"])
        assert "cone 6" in sent and "MEMORY PACK" in sent  # the hook's pack went with the prompt
        session = session_name(first["session_id"])
        with Client(d.socket) as owner:
            turns = owner.conversation_turns(session=session, namespace="cc-real").turns
            assert [(t.role, t.content) for t in turns] == [
                ("user", "what cone does my kiln fire at?"),
                ("assistant", "Cone 6, as you told me."),
            ]
            ask("and how long does it take?", "--resume", first["session_id"])
            again = owner.conversation_turns(session=session, namespace="cc-real").turns
        assert [t.content for t in again][2:] == ["and how long does it take?", "Cone 6, as you told me."]

        removed = subprocess.run([*cli, "hooks", "claude-code", "uninstall"], env=env, capture_output=True, text=True)
        assert removed.returncode == 0 and "4 of agentmemd's hooks removed" in removed.stdout
        assert "hooks" not in json.loads((home / ".claude" / "settings.json").read_text())


def _forked(parent: Path, fork_id: str, said: list[tuple[str, str]]) -> list[str]:
    """What `claude --resume PARENT --fork-session` writes: lines of its own (a new time), then the
    parent's lines copied under the new session id (their uuids and times kept), then its own turns."""
    lines = [json.dumps({"type": "mode", "sessionId": fork_id}),
             json.dumps({"type": "queue-operation", "timestamp": "2026-11-29T10:30:00.000Z", "sessionId": fork_id})]  # fmt: skip
    for line in parent.read_text().splitlines():
        entry = json.loads(line)
        if "sessionId" in entry:
            entry["sessionId"] = fork_id
        lines.append(json.dumps(entry))
    for n, (role, text) in enumerate(said):
        content = text if role == "user" else [{"type": "text", "text": text}]
        lines.append(json.dumps({"type": role, "uuid": f"f0000000-0000-4000-8000-00000000000{n}", "sessionId": fork_id,
                                 "timestamp": "2026-11-29T10:30:05.000Z", "message": {"role": role, "content": content}}))  # fmt: skip
    return lines


def test_a_forked_session_inherits_its_parents_turns_and_stores_only_its_own(tmp_path, module_daemon):
    """`claude --resume S --fork-session` stored S's turns again under the fork's id (a second copy,
    each episode found twice): the fork is now a branch of S from where it leaves it."""
    from agentmemd.daemon.claude_code.transcript import forked_from

    project = tmp_path / "projects" / "-tmp-kiln"
    project.mkdir(parents=True)
    parent = project / "7626e830-parent.jsonl"
    parent.write_text((DATA / "transcript-2.1.332.jsonl").read_text())
    fork = project / "9f000000-fork.jsonl"
    fork.write_text(
        "\n".join(_forked(parent, "9f000000-fork", [("user", "and what glaze?"), ("assistant", "Celadon.")])) + "\n"
    )
    other = project / "0a000000-other.jsonl"  # another session of the project: no fork of anything
    other.write_text(json.dumps({"type": "user", "uuid": "u-1", "timestamp": "2026-11-29T08:00:00Z",
                                 "message": {"role": "user", "content": "hello"}}) + "\n")  # fmt: skip
    assert forked_from(fork) == "7626e830-parent" and forked_from(parent) is None and forked_from(other) is None
    d = module_daemon
    settings = HookSettings(d.socket, None, "cc-fork", 400, 30)
    for session, path in (("7626e830-parent", parent), ("9f000000-fork", fork), ("9f000000-fork", fork)):
        run_hook(
            "stop",
            json.dumps({"session_id": session, "transcript_path": str(path), "cwd": str(tmp_path)}),
            settings,
        )
    with Client(d.socket) as owner:
        kept = owner.conversation_turns(session=session_name("9f000000-fork"), namespace="cc-fork").turns
        assert [t.content for t in kept][-2:] == ["and what glaze?", "Celadon."]
        assert [t.content for t in kept][:-2] == [text for _, text in turns_of(parent)]
        listed = {s.session: s for s in owner.conversation_list(namespace="cc-fork").sessions}
        stored = sum(s.turns for s in listed.values())
        assert stored == len(turns_of(parent)) + 2, listed  # the shared turns once
        hits = owner.memory_search(query="FAKE-REPLY-2", namespace="cc-fork", k=20).results
        assert len([h for h in hits if "FAKE-REPLY-2" in h.content]) <= 1
