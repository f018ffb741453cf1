"""Test harness: real `agentmemd serve` processes on real sockets, temp data dirs."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest
from inprocess import HashEmbedder, InProcessDaemon

from agentmemd.daemon.socket.client import Client

REPO = Path(__file__).resolve().parent.parent
LOCOMO = REPO.parent / "shared" / "bench" / "locomo" / "locomo10.json"
EPOCH = "2024-01-01T00:00:00Z"
# Scheduled jobs off: the shared daemon's tests move its clock and sweep by hand.
NO_JOBS = {"timezone": "UTC", "decay_sweep": "", "consolidate": "", "daily_log": "", "goals_due": ""}


def _toml(value) -> str:
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }"
    return json.dumps(value)


def write_config(path: Path, overrides: dict) -> Path:
    lines = []
    for section, values in overrides.items():
        lines.append(f"[{section}]")
        lines += [f"{k} = {_toml(v)}" for k, v in values.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


class DaemonProcess:
    """One `agentmemd serve` subprocess. Sockets live in a short /tmp dir (108-byte limit)."""

    def __init__(self, root: Path, config: dict | None = None):
        self.root = root
        self.data_dir = root / "data"
        self.socket = root / "s.sock"
        self.config_path = write_config(root / "agentmemd.toml", config or {})
        self.log_path = root / "daemon.log"
        self.proc: subprocess.Popen | None = None

    def command(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            "agentmemd.daemon.cli",
            "serve",
            "--data-dir",
            str(self.data_dir),
            "--socket",
            str(self.socket),
            "--config",
            str(self.config_path),
        ]

    def start(self, timeout: float = 90.0, *, caught_up: bool = True) -> "DaemonProcess":
        """Start and wait until ``health`` answers (and, with ``caught_up``, until the start-up
        catch-up of the workspace and the jobs is done, as most tests expect)."""
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
        self._log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(self.command(), stdout=self._log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"daemon exited with {self.proc.returncode}:\n{self.log()}")
            try:
                with Client(self.socket, timeout=5) as c:
                    health = c.call("health")
                    if health["status"] == "ok" and not (caught_up and health["catching_up"]):
                        return self
                    time.sleep(0.05)
            except (ConnectionError, OSError):
                time.sleep(0.1)
        raise RuntimeError(f"daemon did not come up:\n{self.log()}")

    def client(self) -> Client:
        return Client(self.socket)

    def call(self, method: str, params: dict | None = None):
        with self.client() as c:
            return c.call(method, params)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def terminate(self, sig: int = signal.SIGTERM, timeout: float = 30.0) -> int:
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        code = self.proc.wait(timeout)
        self._log.close()
        return code

    def kill9(self) -> None:
        self.terminate(signal.SIGKILL)


def template_workspace(path: Path) -> Path:
    """A workspace made from workspace_template at ``path`` (its Markdown only), as `agentmemd init` lays it out."""
    shutil.copytree(
        REPO / "workspace_template", path, ignore=shutil.ignore_patterns("__init__.py", "*.toml", "__pycache__")
    )
    return path


@contextmanager
def served_daemon(config: dict | None = None) -> Iterator[DaemonProcess]:
    """A real daemon process for a module's tests (its own temp dir, jobs off), stopped after."""
    root = Path(tempfile.mkdtemp(prefix="amd", dir="/tmp"))
    d = DaemonProcess(root, {"jobs": NO_JOBS, **(config or {})}).start()
    try:
        yield d
    finally:
        # A module's daemon may be finishing its tests' background work (Observer runs, scoring)
        # when it is stopped: on a loaded machine that took over 30 s. How fast it stops is
        # tested elsewhere (test_lifecycle.py); here it only has to stop.
        try:
            d.terminate(timeout=300)
        except subprocess.TimeoutExpired:
            d.kill9()
        shutil.rmtree(root, ignore_errors=True)


class InNamespace:
    """A daemon shared by a module's tests, seen from one namespace of its own: every call to a
    method that takes a namespace names this one unless it names another, and tokens made for it
    default to it. A test on it sees none of the other tests' memories, conversations or packs, and
    the module starts one daemon instead of one a test (each start loads torch and the model)."""

    def __init__(self, daemon: DaemonProcess, namespace: str):
        from agentmemd.daemon.socket.methods import METHODS

        self.daemon, self.namespace = daemon, namespace
        self.socket, self.data_dir = daemon.socket, daemon.data_dir
        self._takes_namespace = {d.name for d in METHODS if "namespace" in d.params.model_fields}

    def call(self, method: str, params: dict | None = None):
        params = dict(params or {})
        if method in self._takes_namespace:
            params.setdefault("namespace", self.namespace)
        return self.daemon.call(method, params)

    def token(self, *namespaces: str, name: str = "app") -> str:
        """A token for ``namespaces`` (this one first, so it is the token's default: what a proxied
        call without a namespace header uses)."""
        scope = [self.namespace, *(n for n in namespaces if n != self.namespace)]
        return self.call("access.tokens.create", {"name": f"{name}-{self.namespace}", "namespaces": scope})["secret"]

    def client(self) -> Client:
        return self.daemon.client()

    def log(self) -> str:
        return self.daemon.log()


@pytest.fixture(scope="module")
def module_daemon() -> Iterator[DaemonProcess]:
    """One real daemon for the module's tests (use ``in_namespace`` to keep them apart)."""
    with served_daemon() as d:
        yield d


@pytest.fixture
def in_namespace(module_daemon, ns) -> InNamespace:
    return InNamespace(module_daemon, ns)


def wait_for(predicate, timeout: float = 30.0, step: float = 0.05):
    """The one wait helper: poll until ``predicate()`` is truthy and return it, or fail after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"not true within {timeout} s")
        time.sleep(step)


@pytest.fixture
def short_tmp():
    path = Path(tempfile.mkdtemp(prefix="amd", dir="/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def spawn(short_tmp):
    started: list[DaemonProcess] = []

    def _spawn(config: dict | None = None, root: Path | None = None, start: bool = True) -> DaemonProcess:
        # Real-time jobs off unless a test asks for them: a 03:30 consolidation must not land mid-test.
        config = {"jobs": NO_JOBS, **(config or {})}
        d = DaemonProcess(root or short_tmp, config)
        started.append(d)
        return d.start() if start else d

    yield _spawn
    for d in started:
        if d.proc and d.proc.poll() is None:
            d.terminate(signal.SIGKILL)


@pytest.fixture(scope="session")
def daemon(request):
    """One shared in-process daemon with a manual clock; each test isolates itself with its own
    namespace. Tests of the socket itself override this with a real process (test_protocol)."""
    root = Path(tempfile.mkdtemp(prefix="amd", dir="/tmp"))
    config = {"clock": {"start": EPOCH}, "jobs": NO_JOBS}
    if ON_POSTGRES:  # a database of its own, not the first test's that asks for it
        config["store"] = {"url": request.getfixturevalue("postgres_databases")()}
    d = InProcessDaemon(root, config)
    yield d
    d.terminate()
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def in_process(short_tmp):
    """A factory of in-process daemons (Services + Dispatcher, no process, no socket) on temp dirs."""
    started: list[InProcessDaemon] = []

    def _make(
        config: dict | None = None,
        *,
        fake_embedder: bool = False,
        root: Path | None = None,
        workspace: Path | None = None,
    ) -> InProcessDaemon:
        config = {"jobs": NO_JOBS, **(config or {})}
        d = InProcessDaemon(
            root or short_tmp / f"ip{len(started)}",
            config,
            embedder=HashEmbedder() if fake_embedder else None,
            workspace=workspace,
        )
        started.append(d)
        return d

    yield _make
    for d in started:
        d.terminate()


@pytest.fixture
def ns() -> str:
    return "t-" + uuid.uuid4().hex[:10]


@pytest.fixture(scope="session")
def small_conversation() -> dict:
    """A 38-turn, three-session conversation written for these tests (tests/data), in LoCoMo's format:
    the invariants run on it whether or not ../shared is there."""
    return json.loads((REPO / "tests" / "data" / "conversation.json").read_text())[0]


@pytest.fixture(scope="session")
def locomo():
    if not LOCOMO.exists():
        # The measuring tests need ../shared/bench; the invariants also run on tests/data. A clone
        # with nothing beside it must still pass, so these skip, saying where the data was looked for.
        pytest.skip(f"LoCoMo data not found at {LOCOMO}: this test measures on ../shared/bench")
    return json.loads(LOCOMO.read_text())


from agentmemd.daemon.bench.benchmarks import (  # noqa: E402,F401  (one loader, shared with the bench)
    evidence_ids,
    free_port,
    locomo_date,
    locomo_turns,
    start_listener,
    turn_contexts,
)

TIERS = ("inprocess", "process", "doors", "browser", "postgres")


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A real PostgreSQL with pgvector for this session (tests/postgres_server.py); a short path, as
    its socket lives in its data dir."""
    from postgres_server import postgres_server

    root = Path(tempfile.mkdtemp(prefix="amdpg", dir="/tmp"))
    try:
        with postgres_server(root / "pg") as url:
            yield url
    finally:
        shutil.rmtree(root, ignore_errors=True)


# AGENTMEMD_TEST_STORE=postgres runs the tests on the PostgreSQL store: each test gets a new
# database (a copy of one the schema was made in), named to its daemons by $AGENTMEMD_STORE_URL.
ON_POSTGRES = os.environ.get("AGENTMEMD_TEST_STORE") == "postgres"


@pytest.fixture(scope="session")
def postgres_databases(postgres_url) -> Iterator:
    """A factory of new, empty agentmemd databases on the session's PostgreSQL: their URLs."""
    import psycopg

    from agentmemd.memory.store.postgres.store import PostgresStore

    def url_of(name: str) -> str:
        return postgres_url.replace("/postgres?", f"/{name}?")

    with psycopg.connect(postgres_url, autocommit=True) as admin:
        admin.execute("CREATE DATABASE agentmemd_template")
        PostgresStore(url_of("agentmemd_template"), dim=384, model="all-MiniLM-L6-v2").close()
        made = iter(range(1, 1_000_000))

        def new_database() -> str:
            name = f"agentmemd_{next(made)}"
            admin.execute(f"CREATE DATABASE {name} TEMPLATE agentmemd_template")
            return url_of(name)

        yield new_database


@pytest.fixture(autouse=True)
def store_on_postgres(request, monkeypatch):
    """On the PostgreSQL run, each test's daemons (in process or not) share a new database."""
    if ON_POSTGRES:
        monkeypatch.setenv("AGENTMEMD_STORE_URL", request.getfixturevalue("postgres_databases")())


def pytest_collection_modifyitems(config, items):
    if ON_POSTGRES:
        for item in items:
            if item.get_closest_marker("sqlite_file"):
                item.add_marker(pytest.mark.skip(reason="about the SQLite file itself"))
    _one_tier_each(items)


def _one_tier_each(items):
    """Each test module names exactly one tier (``pytestmark = pytest.mark.<tier>``), so a new test
    file says what it starts and `make test-fast` (the inprocess tier) stays fast."""
    wrong = {}
    for item in items:
        tiers = {mark.name for mark in item.iter_markers() if mark.name in TIERS}
        if len(tiers) != 1:
            wrong[item.module.__name__] = sorted(tiers)
    if wrong:
        named = ", ".join(f"{module} {tiers or 'none'}" for module, tiers in sorted(wrong.items()))
        raise pytest.UsageError(f"each test module names one tier of {TIERS} (pytestmark): {named}")
