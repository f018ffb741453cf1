"""One name for each concept (docs/development.md, Names): the names retired for another stay out
of the product and its docs, and what the table of names points at exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.inprocess

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = ("daemon", "memory", "persona", "cron")
# A retired name, and the name that replaced it.
RETIRED = {
    r"\bMemoryBrowser\b": "MemoryAudit (the browser is Chromium)",
    r"\bbrowsing\.py\b": "audit.py",
    r"(?<!_)\bpacking\.py\b": "pack_fitting.py (packs.py builds the pack)",
    r"\bdaemon[/.]service\b": "daemon/system_service (daemon/services is the services layer)",
    r"\bDOOR_NAMES\b": "DOORS, the declared doors",
}


def _texts():
    for folder in PRODUCT:
        for path in (ROOT / folder).rglob("*.py"):
            if "__pycache__" not in path.parts:
                yield path, path.read_text(encoding="utf-8")
    for path in (ROOT / "docs").rglob("*.md"):
        yield path, path.read_text(encoding="utf-8")
    yield ROOT / "pyproject.toml", (ROOT / "pyproject.toml").read_text(encoding="utf-8")


def test_no_retired_name_is_left_in_the_product_or_its_docs():
    found = [
        f"{path.relative_to(ROOT)}: {match.group(0)!r}, now {now}"
        for path, text in _texts()
        for pattern, now in RETIRED.items()
        for match in re.finditer(pattern, text)
    ]
    assert found == []


def test_every_file_and_folder_the_table_of_names_points_at_exists():
    text = (ROOT / "docs" / "development.md").read_text(encoding="utf-8")
    table = text[text.index("## Names") :]
    named = set(re.findall(r"`((?:daemon|memory|persona|cron)/[\w/]+(?:\.py)?)`", table))
    named |= {f"memory/retrieval/{name}" for name in re.findall(r"`(\w+\.py)`", table)}
    assert named and [n for n in sorted(named) if not (ROOT / n).exists()] == []
