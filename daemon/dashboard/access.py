"""Who may use the dashboard: the person holding its token.

- The token is random, kept in ``<data dir>/dashboard.token`` (mode 0600, made once and reused,
  so a bookmarked link keeps working; ``--new-token`` replaces it) and printed at start as a link.
- Opening the link (``/?token=…``) starts a session: a signed cookie (Starlette's
  SessionMiddleware, itsdangerous), HttpOnly and SameSite=Strict, then a redirect that drops the
  token from the address bar. A script may send ``Authorization: Bearer <token>`` instead.
- A script may also send an access token (``agentmemd token create``, ``amt_…``) as the Bearer:
  the request then acts with that token, so the daemon admits each of its calls against the
  token's namespaces (a scoped view: the People, Chats, Memories... of those namespaces alone).
- Every change (POST) carries the session's CSRF token (a hidden form field, or the
  ``X-CSRF-Token`` header htmx sends), and its ``Origin`` (or ``Referer``) must be the dashboard's own.
- ``Host`` must be a name the dashboard answers to (TrustedHostMiddleware): a DNS-rebinding page
  on another name is refused.
- Without the token or a session: 401, and nothing runs.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path
from urllib.parse import urlsplit

from starlette.requests import Request

from agentmemd.daemon.services.access import TOKEN_PREFIX

TOKEN_FILE = "dashboard.token"
SESSION_COOKIE = "agentmemd_dashboard"


def session_cookie(port: int) -> str:
    """The session cookie's name for the dashboard on ``port``: a browser keeps one cookie jar for a
    host whatever the port, so two dashboards on one machine (two daemons) each need their own name,
    or signing in to one would sign the other out."""
    return f"{SESSION_COOKIE}_{port}"


CSRF_FIELD = "csrf_token"
CSRF_HEADER = "x-csrf-token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def load_token(data_dir: Path, *, new: bool = False) -> str:
    """The dashboard's token from ``data_dir`` (made, mode 0600, when missing or ``new``)."""
    path = Path(data_dir) / TOKEN_FILE
    if not new and path.exists():
        token = path.read_text(encoding="utf-8").strip()
        if len(token) >= 32:
            os.chmod(path, 0o600)
            return token
    Path(data_dir).mkdir(parents=True, exist_ok=True, mode=0o700)
    token = secrets.token_urlsafe(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(token + "\n")
    os.chmod(path, 0o600)  # an existing file keeps its mode through O_CREAT
    return token


def session_secret(token: str) -> str:
    """The key that signs session cookies, derived from the token: sessions survive a restart and
    end when the token is replaced."""
    return hmac.new(token.encode(), b"agentmemd dashboard session", hashlib.sha256).hexdigest()


class Gate:
    """The checks every request passes (the app's middleware calls ``refusal``)."""

    def __init__(self, token: str, origins: set[str]):
        self.token = token
        self.origins = origins  # scheme://host:port the dashboard is served at

    def token_matches(self, candidate: str | None) -> bool:
        return candidate is not None and hmac.compare_digest(candidate.encode(), self.token.encode())

    def bearer(self, request: Request) -> bool:
        return self.token_matches(self._bearer_value(request))

    def access_token(self, request: Request) -> str | None:
        """The Bearer value when it has an access token's form (the daemon checks it), else None."""
        value = self._bearer_value(request)
        return value if value is not None and value.startswith(TOKEN_PREFIX) else None

    @staticmethod
    def _bearer_value(request: Request) -> str | None:
        header = request.headers.get("authorization", "")
        return header[7:].strip() if header.lower().startswith("bearer ") else None

    @staticmethod
    def in_session(request: Request) -> bool:
        return request.session.get("auth") is True

    def start_session(self, request: Request) -> None:
        request.session.clear()
        request.session.update({"auth": True, "csrf": secrets.token_urlsafe(24)})

    def same_origin(self, request: Request) -> bool:
        origin = request.headers.get("origin")
        if origin is None:  # some browsers leave Origin off a same-origin POST: the Referer says it
            referer = request.headers.get("referer")
            if referer is None:
                return False
            parts = urlsplit(referer)
            origin = f"{parts.scheme}://{parts.netloc}"
        return origin in self.origins

    @staticmethod
    def csrf_matches(request: Request, sent: str | None) -> bool:
        expected = request.session.get("csrf")
        return (
            isinstance(expected, str)
            and bool(expected)
            and sent is not None
            and hmac.compare_digest(sent.encode(), expected.encode())
        )
