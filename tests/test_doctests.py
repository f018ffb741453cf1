"""Every example in a docstring (a line starting ">>> ") is run, so the examples stay true."""

import doctest
import importlib
from pathlib import Path

import pytest

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("memory", "persona", "cron", "daemon")
MODULES = sorted(
    "agentmemd." + ".".join(path.relative_to(ROOT).with_suffix("").parts)
    for folder in FOLDERS
    for path in (ROOT / folder).rglob("*.py")
    if ">>> " in path.read_text(encoding="utf-8")
)


def test_there_are_examples():
    assert len(MODULES) >= 5


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0
