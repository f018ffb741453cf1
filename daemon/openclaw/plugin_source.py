"""The plugin's constants, generated from the Python side (cog in plugin/index.js; `make lint`
checks them): the pack's markers it takes out of a kept turn, and the path prefix of a memory
that is not a workspace file."""

from __future__ import annotations

import json

from agentmemd.memory.retrieval.pack_fitting import PACK_FOOTER, PACK_HEADER

MEMORY_PATH_PREFIX = "agentmemd:"


def constants() -> str:
    return "\n".join(
        [
            f"const PACK_HEADER = {json.dumps(PACK_HEADER, ensure_ascii=False)};",
            f"const PACK_FOOTER = {json.dumps(PACK_FOOTER)};",
            f"const MEMORY_PATH_PREFIX = {json.dumps(MEMORY_PATH_PREFIX)};",
            "",
        ]
    )
