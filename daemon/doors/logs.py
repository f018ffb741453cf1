"""Structured logging, the one set-up of the daemon and every door (`serve`, `proxy`, `webhooks`,
`dashboard`, `mcp`): one JSON object per line on stderr (journald/launchd friendly).

    {"ts": "2026-11-23T10:00:00.123456Z", "level": "warning", "logger": "agentmemd.proxy",
     "event": "proxy: memory step failed; passing the request through unchanged",
     "error": "RpcCallError: internal error: database is locked (code -32603)"}

Whatever a call passes in ``extra=`` is a key of its line; a warning about a failure carries
``error``: the exception's type and message (:func:`reason`). agentmemd's own loggers log from
the chosen level up; other libraries' (uvicorn, httpx2, the MCP SDK) from warning up, as JSON too.
A Python ``warnings.warn`` is one line as well (logger ``py.warnings``, with its ``category`` and
``source``), never raw text beside the JSON. Every secret in a line (a card number in an error, a
key in a traceback) is masked, as in the dashboard's lists.
"""

from __future__ import annotations

import json
import logging
import sys
import warnings
from datetime import datetime, timezone
from typing import Any

from agentmemd.memory.safety.secrets import mask

LOG_LEVELS = ("debug", "info", "warning", "error")
_RESERVED = set(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "ts": datetime.fromtimestamp(record.created, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": record.getMessage(),
        }
        entry.update({k: v for k, v in record.__dict__.items() if k not in _RESERVED})
        if record.exc_info:
            entry["traceback"] = self.formatException(record.exc_info)
        head = {k: entry.pop(k) for k in ("ts", "level", "logger")}  # ours: nothing to mask
        return json.dumps({**head, **_masked(entry)}, default=str, ensure_ascii=False)


def _masked(value: Any) -> Any:
    """``value`` with every secret in its text masked (a card number in an error, a key in a
    traceback): a log line never holds one (memory/safety/secrets.py)."""
    if isinstance(value, str):
        return mask(value)
    if isinstance(value, dict):
        return {k: _masked(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_masked(v) for v in value]
    return value if value is None or isinstance(value, (bool, int, float)) else mask(str(value))


def reason(exc: BaseException) -> str:
    """What a warning about a failure says went wrong: ``Type: message`` (the type alone if it has none)."""
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


_print_warning = warnings.showwarning  # Python's own: for a warning shown into a file of its caller's


def _log_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """``warnings.showwarning`` under this set-up: the warning as a JSON line (what
    ``logging.captureWarnings`` does, with the category and the place as keys of their own)."""
    if file is not None:
        _print_warning(message, category, filename, lineno, file, line)
        return
    logging.getLogger("py.warnings").warning(
        str(message), extra={"category": category.__name__, "source": f"{filename}:{lineno}"}
    )


def setup_logging(level: str) -> logging.Logger:
    """JSON lines on stderr: the ``agentmemd`` loggers from ``level`` up, every other logger
    (through the root) from warning up. Call it before a door builds its app or server."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("agentmemd")
    logger.handlers.clear()
    logger.addHandler(handler)
    logger.setLevel(level.upper())
    logger.propagate = False
    root = logging.getLogger()
    root.handlers.clear()
    root.addHandler(handler)
    root.setLevel(max(logging.WARNING, logger.level))
    warnings.showwarning = _log_warning
    return logger


def uvicorn_options(level: str) -> dict[str, Any]:
    """``uvicorn.run`` options for a door under this set-up: no logging config of uvicorn's own
    (its lines go through the root's JSON handler), from warning up, and no access log (a proxy
    URL carries its access token, /t/amt_…)."""
    return {"log_config": None, "log_level": level if level == "error" else "warning", "access_log": False}
