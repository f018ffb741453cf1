"""The consolidation tree as a retrieval structure (seed 002, 5.5).

Its nodes are memories tagged ``consolidated`` and ``level<N>``; the memories under a node are its
leaves (consolidation_nodes). A query reaches the levels its kind calls for (query_kind.py), and a
node found is evidence only of the leaves whose words it states: the local summariser quotes
them, a model's summary restates them in its own words and so states none that can be checked.
"""

from __future__ import annotations

import json
import re
from typing import Any

QUOTE_PROBE = 60  # characters of a leaf that a node must carry word for word to state it


def tree_level(row: dict[str, Any]) -> int:
    """0 for a memory, N for a consolidated node of level N (from its tags)."""
    tags = row["tags"]
    if not tags or "consolidated" not in tags:  # on the stored JSON text too: most rows are not nodes
        return 0
    if not isinstance(tags, list):
        tags = json.loads(tags)
    if "consolidated" not in tags:
        return 0
    return next((int(t[5:]) for t in tags if re.fullmatch(r"level\d", t)), 0)


def stated_leaves(node_content: str, leaves: list[tuple[str, str]]) -> list[str]:
    """Ids of the (id, content) leaves whose opening words the node's text carries verbatim."""
    return [leaf_id for leaf_id, content in leaves if content and content[:QUOTE_PROBE].strip() in node_content]
