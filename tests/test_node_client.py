"""The Node client (daemon/socket/node, generated from the declarations like the Python one): its
own tests under `node --test` against a real daemon over its socket, and the socket it finds by
default, which must be the one the CLI finds."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import served_daemon

from agentmemd.daemon.cli.typescript import camel
from agentmemd.daemon.socket.methods import METHODS

pytestmark = pytest.mark.process  # the tier (pyproject.toml)

NODE_PACKAGE = Path(__file__).resolve().parents[1] / "daemon" / "socket" / "node"


@pytest.fixture(scope="module")
def node() -> str:
    found = shutil.which("node")
    if not found:
        if os.environ.get("AGENTMEMD_REQUIRE_HOSTS"):
            pytest.fail("no `node` on PATH: install Debian's nodejs for the Node client's tests")
        pytest.skip("no `node` on PATH")
    return found


def test_the_node_clients_own_tests_pass_against_a_real_daemon(node):
    with served_daemon() as daemon:
        done = subprocess.run(
            [node, "--test", "test/"],
            cwd=NODE_PACKAGE,
            env={**os.environ, "AGENTMEMD_SOCKET": str(daemon.socket)},
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout and "# skipped 0" in done.stdout, done.stdout[-2000:]
    declared = len(re.findall(r"(?m)^(?:test|live)\(", (NODE_PACKAGE / "test" / "client.test.js").read_text()))
    assert f"# pass {declared}\n" in done.stdout, done.stdout[-2000:]  # each one ran


def test_every_declared_method_is_a_call_of_the_node_client(node):
    script = "import('./index.js').then(m => console.log(JSON.stringify(Object.getOwnPropertyNames(m.TypedCalls.prototype))))"
    done = subprocess.run([node, "-e", script], cwd=NODE_PACKAGE, capture_output=True, text=True, check=True)
    names = set(json.loads(done.stdout)) - {"constructor"}
    assert names == {camel(d.name) for d in METHODS}


def _python_default(env: dict[str, str]) -> str:
    code = "from agentmemd.daemon.socket.client import default_socket; print(default_socket())"
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout.strip()


def _node_default(node: str, env: dict[str, str]) -> str:
    code = "import('./socket.js').then(m => console.log(m.defaultSocket()))"
    done = subprocess.run([node, "-e", code], cwd=NODE_PACKAGE, env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_the_node_client_finds_the_socket_the_cli_finds(node, tmp_path):
    home = tmp_path / "home"
    runtime = tmp_path / "run"
    (home / ".config").mkdir(parents=True)
    base = {"PATH": os.environ["PATH"], "HOME": str(home), "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    cases: list[tuple[str, dict[str, str], str]] = []

    def check(label: str, env: dict[str, str], expected: str) -> None:
        cases.append((label, env, expected))
        assert _python_default(env) == expected, label
        assert _node_default(node, env) == expected, label

    check("nothing installed", base, str(home / ".agentmemd" / "agentmemd.sock"))
    check("chosen", {**base, "AGENTMEMD_SOCKET": "/x/y.sock"}, "/x/y.sock")
    # As an MCP host's config or a service file passes it: no shell made ~ the home directory.
    check("chosen from home", {**base, "AGENTMEMD_SOCKET": "~/agent/s.sock"}, str(home / "agent" / "s.sock"))
    unit = home / ".config" / "systemd" / "user" / "agentmemd.service"
    unit.parent.mkdir(parents=True)
    unit.write_text("[Unit]\n")
    with_runtime = {**base, "XDG_RUNTIME_DIR": str(runtime)}
    check("a unit, no socket yet", with_runtime, str(runtime / "agentmemd" / "agentmemd.sock"))
    data_socket = home / ".local" / "share" / "agentmemd" / "agentmemd.sock"
    data_socket.parent.mkdir(parents=True)
    data_socket.touch()
    check("the data dir's socket exists", with_runtime, str(data_socket))
    unit.unlink()
    detached = home / ".config" / "agentmemd" / "service.json"
    detached.parent.mkdir(parents=True)
    detached.write_text("{}")
    data_socket.unlink()
    check("a detached service", {**base, "XDG_RUNTIME_DIR": "relative/ignored"}, str(data_socket))
    check(
        "XDG dirs moved",
        {**base, "XDG_CONFIG_HOME": str(tmp_path / "cfg")},
        str(home / ".agentmemd" / "agentmemd.sock"),
    )
    # The socket the service's own file names, whatever this shell's $XDG_RUNTIME_DIR (sudo, su
    # and cron set another or none): the Node client looked only where this shell's would put it.
    served = tmp_path / "service run" / "agentmemd" / "agentmemd.sock"  # a space: a quoted word
    detached.write_text(json.dumps({"argv": ["/usr/bin/agentmemd", "serve", "--socket", str(served)]}))
    check("a detached service's own socket, not there yet", {**base, "XDG_RUNTIME_DIR": str(runtime)}, str(served))
    served.parent.mkdir(parents=True)
    served.touch()
    check("a detached service's own socket", {**base, "XDG_RUNTIME_DIR": str(tmp_path / "other")}, str(served))
    detached.unlink()
    unit.write_text(
        "[Service]\nExecStart=/usr/bin/agentmemd serve --data-dir /d/100%%25 --socket "
        + '"' + str(served) + '"' + "\n"
    )  # fmt: skip
    check("a unit's own socket", base, str(served))


def test_a_turn_is_stored_and_digested_as_the_python_side_does(node):
    from agentmemd.memory.conversation.transcript import as_stored, turn_digest

    samples = ["", "short", "é🙂 mixed 中文", "x" * 90_000, "y" * 90_001, "🙂" * 95_000, "ab\n" * 40_000]
    script = (
        "import('./transcript.js').then(t => { const texts = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        " console.log(JSON.stringify(texts.map(x => [t.asStored(x), t.turnDigest('user', t.asStored(x))]))); })"
    )
    done = subprocess.run(
        [node, "-e", script], cwd=NODE_PACKAGE, input=json.dumps(samples), capture_output=True, text=True, check=True
    )
    got = json.loads(done.stdout)
    assert got == [[as_stored(text), turn_digest("user", as_stored(text))] for text in samples]
