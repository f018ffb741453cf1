"""The public surface an app imports, declared by each module's ``__all__`` (as httpx declares its
own): every declared name is there, every model and error a module defines is declared (they cross
the socket or are raised at an app), and the library example in docs/api.md imports only declared
names (in-process)."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)

DOCS = Path(__file__).resolve().parent.parent / "docs"
PUBLIC = (
    "agentmemd",
    "agentmemd.daemon.frameworks.langgraph_store",
    "agentmemd.daemon.frameworks.openai_agents",
    "agentmemd.daemon.socket.async_client",
    "agentmemd.daemon.services.app",
    "agentmemd.daemon.socket.client",
    "agentmemd.memory.core.config",
    "agentmemd.memory.core.errors",
    "agentmemd.memory.core.models",
    "agentmemd.memory.core.results",
)
# Modules whose every class is public: the params and results that cross the socket, the errors.
EVERY_CLASS = ("agentmemd.memory.core.models", "agentmemd.memory.core.results", "agentmemd.memory.core.errors")


@pytest.mark.parametrize("name", PUBLIC)
def test_every_declared_name_is_there_once(name):
    module = importlib.import_module(name)
    assert len(module.__all__) == len(set(module.__all__)), "a name declared twice"
    assert [n for n in module.__all__ if not hasattr(module, n)] == []


def test_import_agentmemd_gives_the_clients_and_errors_themselves():
    import agentmemd
    from agentmemd.daemon.socket.async_client import AsyncClient
    from agentmemd.daemon.socket.client import Client
    from agentmemd.memory.core.errors import NotFound

    assert (agentmemd.Client, agentmemd.AsyncClient, agentmemd.NotFound) == (Client, AsyncClient, NotFound)
    with pytest.raises(AttributeError, match="no attribute 'Nothing'"):
        agentmemd.Nothing  # noqa: B018


@pytest.mark.parametrize("name", EVERY_CLASS)
def test_every_model_and_error_a_module_defines_is_declared(name):
    module = importlib.import_module(name)
    defined = {n for n, v in vars(module).items() if isinstance(v, type) and v.__module__ == name}
    public = {n for n in defined if not n.startswith("_")}
    assert public - set(module.__all__) == set(), "defined here but not in __all__: declare it, or name it _private"


def test_the_library_example_imports_only_declared_names():
    """docs/api.md's example is what an app copies: it must stay on the declared surface."""
    text = (DOCS / "api.md").read_text(encoding="utf-8")
    imported = []
    for block in re.findall(r"```python\n(.*?)```", text, re.S):
        for node in ast.walk(ast.parse(block)):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("agentmemd"):
                imported += [(node.module, alias.name) for alias in node.names]
    assert imported, "docs/api.md shows no import from agentmemd"
    for module_name, name in imported:
        assert module_name in PUBLIC, f"{module_name} is not a public module"
        assert name in importlib.import_module(module_name).__all__, f"{module_name}.{name} is not declared public"


def test_two_threads_first_calls_read_whole_models():
    """Two threads of an app, each with its own Client, made their first calls together: one got
    "module 'agentmemd.memory.core.models' has no attribute 'AddResult'" (importlib's LazyLoader
    let it read the module half-built on Python 3.11), and its write was lost. In a new
    interpreter, so that the models are not loaded yet; and still not loaded by the import alone."""
    import subprocess
    import sys

    script = """
import sys, threading
from agentmemd.daemon.socket import typed
errors, barrier = [], threading.Barrier(8)
def first_call(i):
    barrier.wait()
    try:
        typed.r.SyncResult if i % 2 else typed.m.AddParams
        typed.m.AddResult, typed.m.PackParams, typed.r.TurnsResult
    except Exception as exc:
        errors.append(repr(exc))
threads = [threading.Thread(target=first_call, args=(i,)) for i in range(8)]
[t.start() for t in threads]
[t.join() for t in threads]
print(errors)
"""
    for _ in range(3):
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0 and done.stdout.strip() == "[]", done.stdout + done.stderr
    imported = (
        "import sys; from agentmemd.daemon.socket import typed; print('agentmemd.memory.core.models' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", imported], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "False", done.stdout + done.stderr  # a hook sending calls by name builds none
