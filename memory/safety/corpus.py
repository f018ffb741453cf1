"""The injection corpus beside the rules: attacks the neutraliser must catch, and wrapper break-outs.

Read by tests/test_injection.py and ``agentmemd bench injection``.
"""

from __future__ import annotations

import re
from pathlib import Path

CORPUS_FILE = Path(__file__).with_name("injection_corpus.txt")
_ESCAPE = re.compile(r"\\(n|t|u[0-9a-fA-F]{4})")


def decode(raw: str) -> str:
    r"""A corpus line with its escapes decoded: ``\n``, ``\t``, ``\u200b``."""
    return _ESCAPE.sub(lambda m: {"n": "\n", "t": "\t"}.get(m.group(1)) or chr(int(m.group(1)[1:], 16)), raw)


def load_corpus(path: Path = CORPUS_FILE) -> dict[str, list[str]]:
    """Sections of the corpus by name ("instructions", "break-out"), each a list of attacks."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for raw in path.read_text(encoding="utf-8").splitlines():
        if raw.startswith("@@ "):
            current = sections.setdefault(raw[3:].strip(), [])
        elif current is not None and raw:
            current.append(decode(raw))
    return sections
