"""Scoped access: who may use which namespaces, enforced here for every door.

The socket is the owner's (mode 0600, one user), so a connection starts with every namespace
and the single-user setup needs no configuration. A door that serves someone else (an MCP host,
a proxy, a chat channel) presents that caller's token once per connection (`auth`); from then
on every request of the connection is admitted, or refused, against the token's namespaces:

    access = AccessService(store, clock)
    created = access.create(TokenCreateParams(name="alice-mcp", namespaces=["alice"]))
    scope = access.authenticate(AuthParams(token=created["secret"]))
    access.admit(scope, "memory.search", SearchParams(query="coffee"))   # namespace -> "alice"
    access.admit(scope, "memory.search", SearchParams(query="x", namespace="bob"))  # Forbidden

A token may also hear one audience only (``hears``: a chat's, or the user's own): a door serving
one person of a household reads what that person's conversation may hear, and nothing else. Its
calls are the open methods and those whose ``audience`` names a listener (memory.search,
context.pack, people.get, conversation.search), run for its audience; every other method reads or
changes what other audiences hear (a memory by id, the persona, the identity graph, a transcript),
and is refused.

A scoped request that names no namespace goes to the token's first namespace. Methods that act
on every namespace at once (sweep, jobs, costs, the clock) stay the owner's. A failed `auth`
leaves the connection with no access at all, so a door that ignores the error fails closed.

Each admitted call of a token is noted (``note_use``: when, by which door, which method) in memory,
and written down at most every USE_WRITE_SECONDS per token and at shutdown (``write_uses``, on the
store thread): a door busy with a token costs one small UPDATE a minute, not one per request.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any, Callable

from pydantic import BaseModel

from agentmemd.memory.core.clock import Clock, format_time
from agentmemd.memory.core.disclosure import Listener
from agentmemd.memory.core.errors import Conflict, Forbidden, NotFound
from agentmemd.memory.core.models import AddManyParams, AuthParams, TokenCreateParams, TokenNameParams
from agentmemd.memory.store.access_tables import AccessTables
from agentmemd.memory.store.database import Store

TOKEN_PREFIX = "amt_"

# Methods any connection may call, whatever its scope: they reveal nothing about any namespace's content.
OPEN_METHODS = frozenset({"health", "clock.now", "auth"})
# Methods about the Markdown workspace: allowed to a token that reaches the workspace's namespace.
WORKSPACE_METHODS = frozenset({"workspace.status", "workspace.read"})
# How often a token's last use is written down at most (it is noted in memory on every call).
USE_WRITE_SECONDS = 60.0


# The methods a token that hears one audience may call, beside the open ones (listens() is the rule;
# this names them in its refusal and the docs, and tests/test_access.py checks the two agree).
LISTENING_METHODS = ("memory.search", "context.pack", "people.get", "conversation.search")


@lru_cache(maxsize=None)
def listens(params: type[BaseModel]) -> bool:
    """Whether ``params`` has an ``audience`` that names the listener a call is for (disclosure.py's
    Listener): such a call reads only what that audience may hear."""
    field = params.model_fields.get("audience")
    return field is not None and field.annotation == (Listener | None)


def owner_only(method: str, params: type[BaseModel]) -> bool:
    """Whether only the owner's socket may call ``method``. Safe by default: a method whose params
    name no namespace acts on all of them (sweep, jobs, costs, the clock, token admin)."""
    if method in OPEN_METHODS or method in WORKSPACE_METHODS or issubclass(params, AddManyParams):
        return False
    return "namespace" not in params.model_fields


@dataclass(frozen=True)
class Scope:
    """What one connection may reach. ``namespaces`` None: every namespace (the owner)."""

    name: str
    namespaces: tuple[str, ...] | None
    by_token: bool = True  # False: the owner's socket, or a connection whose auth failed
    hears: str | None = None  # the one audience it may hear; None: every one

    @property
    def everything(self) -> bool:
        return self.namespaces is None

    def reaches(self, namespace: str) -> bool:
        return self.namespaces is None or namespace in self.namespaces

    def describe(self) -> dict[str, Any]:
        return {
            "token": self.name,
            "namespaces": None if self.namespaces is None else list(self.namespaces),
            "default_namespace": self.namespaces[0] if self.namespaces else None,
            "hears": self.hears,
        }


OWNER = Scope("owner", None, by_token=False)
# After a failed auth: nothing but the open methods until a valid token is presented.
NO_ACCESS = Scope("none", (), by_token=False)


def _sha256(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class AccessService:
    def __init__(
        self,
        store: Store,
        clock: Clock,
        workspace_namespace: str = "default",
        require_audience: Callable[..., None] | None = None,
    ):
        """``require_audience``: Memories.require_audience, which refuses an audience no chat of the
        token's namespaces has (a mistyped one left a token with nothing to hear)."""
        self.tables = AccessTables(store)
        self.require_audience = require_audience
        self.clock = clock
        self.workspace_namespace = workspace_namespace
        # Each token's latest call not yet written (name -> at, door, method), and when each token's
        # uses were last written (time.monotonic: how often to write is about the machine's time).
        self._uses: dict[str, tuple[datetime, str, str]] = {}
        self._written: dict[str, float] = {}
        self._uses_lock = threading.Lock()  # noted on the event loop, written and read on the store thread
        self._revoked: set[str] = set()  # tokens revoked while this daemon ran: their open connections too

    # ---- tokens --------------------------------------------------------------------------

    def create(self, p: TokenCreateParams) -> dict[str, Any]:
        """A new token; its secret is returned once and only its SHA-256 is kept."""
        if self.tables.exists(p.name):
            raise Conflict(f"a token named {p.name!r} already exists (revoked ones keep their name)")
        if p.hears is not None and self.require_audience is not None:
            self.require_audience(
                p.hears,
                p.namespaces,
                "hears",
                " (a chat is known once its first message is stored: `agentmemd chat list`)",
            )
        secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
        created = format_time(self.clock.now())
        self.tables.add(p.name, _sha256(secret), p.namespaces, created, p.hears)
        return {
            "name": p.name,
            "namespaces": p.namespaces,
            "created": created,
            "revoked": None,
            "hears": p.hears,
            "secret": secret,
        }

    def list(self) -> dict[str, Any]:
        """Every token, with its last use: the noted one where it is newer than the written one."""
        with self._uses_lock:
            noted = dict(self._uses)
        tokens = self.tables.all()
        for token in tokens:
            if token["name"] in noted:
                at, door, method = noted[token["name"]]
                token.update(last_used=format_time(at), last_door=door, last_method=method)
        return {"tokens": tokens}

    def revoke(self, p: TokenNameParams) -> dict[str, Any]:
        """Revoke a token: new `auth` calls with it fail, and so does every later call on a
        connection of this daemon that authenticated with it (a door keeps connections open
        across requests: the proxy's pool). Another daemon on a shared PostgreSQL refuses new
        `auth` calls at once; its open connections, at their next `auth`."""
        if not self.tables.revoke(p.name, format_time(self.clock.now())):
            raise NotFound(f"no live token named {p.name!r}")
        self._revoked.add(p.name)
        return next(t for t in self.tables.all() if t["name"] == p.name)

    def authenticate(self, p: AuthParams) -> Scope:
        # Looked up by the secret's hash: an index walk's timing says nothing about the secret.
        row = self.tables.live_by_hash(_sha256(p.token))
        if row is None:
            raise Forbidden("auth failed: unknown or revoked token; this connection now has no access")
        namespaces = row["namespaces"]
        return Scope(row["name"], None if namespaces is None else tuple(namespaces), hears=row["hears"])

    # ---- last use ------------------------------------------------------------------------------

    def note_use(self, scope: Scope, door: str, method: str) -> bool:
        """Note that ``scope``'s token was just admitted to ``method`` through ``door``. True when
        its uses have not been written for USE_WRITE_SECONDS: the caller then runs ``write_uses``
        on the store thread. Costs a lock and a dict write."""
        now = time.monotonic()
        with self._uses_lock:
            self._uses[scope.name] = (self.clock.now(), door, method)
            last = self._written.get(scope.name)
            due = last is None or now - last >= USE_WRITE_SECONDS
            if due:
                self._written[scope.name] = now
        return due

    def write_uses(self) -> int:
        """Write every noted use down, in one transaction (the store thread); how many tokens."""
        with self._uses_lock:
            noted, self._uses = self._uses, {}
        if noted:
            with self.tables.store.transaction():
                self.tables.note_uses([(name, format_time(at), door, m) for name, (at, door, m) in noted.items()])
        return len(noted)

    # ---- admission -------------------------------------------------------------------------

    def admit(self, scope: Scope, method: str, params: BaseModel) -> BaseModel:
        """The params to run ``method`` with for this scope, or Forbidden. Changes nothing but
        an omitted namespace, which becomes the scope's first."""
        if scope.everything or method in OPEN_METHODS:
            return params
        if scope.by_token and scope.name in self._revoked:
            raise Forbidden(f"{method}: token {scope.name!r} was revoked; this connection now has no access")
        if not scope.namespaces:
            raise Forbidden(f"{method}: this connection has no access (its auth failed); call auth with a valid token")
        if scope.hears is not None:  # first: the workspace's files are the user's own, no chat's
            params = self._heard(scope, method, params)
        if method in WORKSPACE_METHODS:
            self._require(scope, method, self.workspace_namespace)
            return params
        if owner_only(method, type(params)):
            raise Forbidden(f"{method} acts on every namespace; token {scope.name!r} may not call it")
        if isinstance(params, AddManyParams):
            items = [self._namespaced(scope, method, item) for item in params.items]
            return params.model_copy(update={"items": items})
        return self._namespaced(scope, method, params)

    @staticmethod
    def _heard(scope: Scope, method: str, params: BaseModel) -> BaseModel:
        """The params of a token that hears one audience: run for that audience, or Forbidden."""
        if method in WORKSPACE_METHODS or not listens(type(params)):
            raise Forbidden(
                f"{method}: token {scope.name!r} hears only {scope.hears!r}, and {method} reads or changes what "
                f"other audiences hear; it may call {', '.join(LISTENING_METHODS)}",
                {"hears": scope.hears},
            )
        given = getattr(params, "audience", None)
        if given is not None and given != scope.hears:
            raise Forbidden(
                f"{method}: token {scope.name!r} hears only {scope.hears!r}, not {given!r}", {"hears": scope.hears}
            )
        return params.model_copy(update={"audience": scope.hears})

    def _namespaced(self, scope: Scope, method: str, params: BaseModel) -> BaseModel:
        namespace = getattr(params, "namespace", None) if "namespace" in params.model_fields_set else None
        if namespace is None:  # a token's first namespace (check() refused a connection with none)
            return params.model_copy(update={"namespace": (scope.namespaces or ("default",))[0]})
        self._require(scope, method, namespace)
        return params

    @staticmethod
    def _require(scope: Scope, method: str, namespace: str) -> None:
        if not scope.reaches(namespace):
            raise Forbidden(f"{method}: token {scope.name!r} may not use namespace {namespace!r}")
