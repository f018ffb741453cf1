"""A conversation's transcript as content: turn digests, running chains, and the stored form of a turn.

An app resends its whole history (or a window of it) with every model call. To keep exactly what
the app sent, turn for turn, the daemon matches an incoming history against what it stored by
content, never by count:

    digest(turn)   = sha256(role, text as stored)
    chain(turn i)  = sha256(chain(turn i-1), digest(turn i)), from a seed of the namespace and the
                     conversation family (the session name an app gave, or none)

A stored turn whose chain equals the incoming history's chain at position i holds the same first
i + 1 turns, so the longest such match says where a history leaves what is stored: nothing new (a
retry), an extension (append), or a divergence (a regenerate, an edit, another chat that opens
alike), which becomes a branch of its own. Pure functions: the proxy computes the same digests
for the turns it sends as digests only.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass
from typing import Callable

from agentmemd.memory.core.sessions import session_key, session_name

# A turn is stored whole up to this many characters (the socket's Content bound is 100,000); a
# longer one keeps its start and a mark saying how long it was and its checksum, the same way
# every time, so its digest matches when the app sends it again.
MAX_TURN_CHARS = 90_000
_KEEP_CHARS = MAX_TURN_CHARS - 200


def as_stored(text: str) -> str:
    """``text`` as a turn is stored: whole, or its first characters and a mark when it is too long.

    >>> as_stored("short") == "short"
    True
    >>> long = as_stored("x" * 200_000)
    >>> len(long) <= MAX_TURN_CHARS and "200,000 characters" in long
    True
    """
    if len(text) <= MAX_TURN_CHARS:
        return text
    checksum = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return (
        f"{text[:_KEEP_CHARS]}\n[… agentmemd kept the first {_KEEP_CHARS:,} of {len(text):,} characters; "
        f"sha256 {checksum}]"
    )


def turn_digest(role: str, text: str) -> str:
    """The digest of one turn as stored (``text`` already through ``as_stored``)."""
    return hashlib.sha256(f"{role}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()[:32]


def chain_seed(namespace: str, family: str) -> str:
    """Where a conversation's chain starts: its namespace and family ("" for an unnamed one), so
    two namespaces or two named conversations never share a chain."""
    return hashlib.sha256(f"{namespace}\0{family}".encode("utf-8", "surrogatepass")).hexdigest()[:32]


def chain_next(previous: str, digest: str) -> str:
    return hashlib.sha256(f"{previous}\0{digest}".encode()).hexdigest()[:32]


def chains(seed: str, digests: list[str]) -> list[str]:
    """The running chain after each digest."""
    out, current = [], seed
    for digest in digests:
        current = chain_next(current, digest)
        out.append(current)
    return out


# ---- matching a history against what is stored ---------------------------------------------------

# Without a session name, a history that does not start where a stored one starts joins it only
# when its first turns are the stored conversation's last ones, this many at least.
MIN_WINDOW_OVERLAP = 2


@dataclass(frozen=True)
class IncomingTurn:
    """One turn of an app's history: its text (None when the door sent only the digest)."""

    role: str
    text: str | None
    digest: str
    speaker: str | None = None  # who said it, where the app names people (OpenAI's `name`)


@dataclass
class Placement:
    """Where a history goes: the branch that ends where the history's known part ends, and the
    turns to append to it (the history's positions ``new_from`` on)."""

    session: str
    new_from: int
    forked_from: str | None = None
    created: bool = False
    end_seq: int | None = None  # the stored turn the history's known part ends at (None: none of it is known)


class NeedText(Exception):
    """The history's new turns include some sent only as digests: the door must send their text."""

    def __init__(self, positions: list[int]):
        super().__init__(f"the text of turns {positions[:10]} is needed")
        self.positions = positions


class TranscriptMatcher:
    """Finds where an incoming history stands against the stored transcripts, and makes the
    branch it needs. Runs on the store thread (reads and writes SQLite)."""

    def __init__(self, tables, now: Callable[[], str]):
        self.tables = tables
        self.now = now

    def place(
        self, namespace: str, name: str | None, turns: list[IncomingTurn], forked_from: str | None = None
    ) -> Placement:
        if name and forked_from and forked_from != name:
            forked = self._named_fork(namespace, name, turns, forked_from)
            if forked is not None:
                return forked
        family = self._family(name) if name else ""
        if name:
            if self.tables.branch(name) is None and self.tables.namespace_of(name) is not None:
                self._new_branch(name, namespace, family, None, None)  # stored before branches existed
            self._ensure_chains(name, namespace, family)
        seed = chain_seed(namespace, family)
        running = chains(seed, [t.digest for t in turns])
        found = self.tables.by_chain(namespace, running)
        matched = max((i for i, c in enumerate(running) if c in found), default=-1)
        if matched >= 0:
            session, seq = found[running[matched]]
            return self._at(namespace, family, session, seq, matched + 1, len(turns))
        window = self._window(namespace, family, turns, min_overlap=1 if name else MIN_WINDOW_OVERLAP)
        if window is not None:
            return window
        if name:
            branches = self.tables.family(namespace, family)
            if branches:  # the header wins: a history that overlaps nothing still belongs to it
                return Placement(branches[-1], 0)
            self._new_branch(name, namespace, family, None, None)
            return Placement(name, 0, created=True)
        session = session_key(namespace, "chat-" + uuid.uuid4().hex[:16])
        self._new_branch(session, namespace, "", None, None)
        return Placement(session, 0, created=True)

    def _named_fork(self, namespace: str, name: str, turns: list[IncomingTurn], parent: str) -> Placement | None:
        """A new session ``name`` a host forked from ``parent`` (a copy of its history under a new
        id): a branch of the parent's family from where the history leaves it, so the turns they
        share are stored once. None: ``name`` is known already, or the history shares nothing with
        the parent's family (then it is a conversation of its own)."""
        if self.tables.branch(name) is not None or self.tables.namespace_of(name) is not None:
            return None
        if self.tables.branch(parent) is None and self.tables.namespace_of(parent) is None:
            return None
        family = self._family(parent)
        self._ensure_chains(parent, namespace, family)
        running = chains(chain_seed(namespace, family), [t.digest for t in turns])
        found = self.tables.by_chain(namespace, running)
        matched = max((i for i, c in enumerate(running) if c in found), default=-1)
        if matched < 0:
            return None
        session, seq = found[running[matched]]
        self._new_branch(name, namespace, family, session, seq)
        return Placement(name, matched + 1, forked_from=session, created=True, end_seq=seq)

    def _family(self, name: str) -> str:
        branch = self.tables.branch(name)
        return branch["family"] if branch else name

    def _at(self, namespace: str, family: str, session: str, seq: int, new_from: int, total: int) -> Placement:
        """The history's first ``new_from`` turns end at turn ``seq`` of ``session``: the branch that
        ends there (the session, when it is its newest turn; a fork of it, otherwise)."""
        later = self.tables.own_turns(session, seq)
        if not later or new_from >= total:
            # Its end, or nothing new (a resend, a regenerate before its reply, a reply already
            # stored by the next request): no branch is made until there is a turn to put in it.
            return Placement(session, new_from, end_seq=seq)
        for fork in self.tables.forks_at(session, seq):
            if not self.tables.own_turns(fork):  # an empty fork made for this point already
                return Placement(fork, new_from, forked_from=session, end_seq=seq)
        fork = self._fork_name(namespace, family)
        self._new_branch(fork, namespace, family, session, seq)
        return Placement(fork, new_from, forked_from=session, created=True, end_seq=seq)

    def _window(self, namespace: str, family: str, turns: list[IncomingTurn], min_overlap: int) -> Placement | None:
        """A sliding window: the history's first turns are a stored conversation's latest ones."""
        if not turns:
            return None
        best: tuple[int, str, int] | None = None  # (overlap, session, seq of its last matched turn)
        for session, seq in self.tables.by_digest(namespace, turns[0].digest):
            branch = self.tables.branch(session)
            if (branch["family"] if branch else session) != family:
                continue
            stored = [(seq, turns[0].digest)] + [(t["seq"], t["digest"]) for t in self.tables.own_turns(session, seq)]
            overlap = 0
            while overlap < min(len(turns), len(stored)) and turns[overlap].digest == stored[overlap][1]:
                overlap += 1
            if best is None or overlap > best[0]:
                best = (overlap, session, stored[overlap - 1][0])
        if best is None or best[0] < min(min_overlap, len(turns)):
            return None
        overlap, session, seq = best
        return self._at(namespace, family, session, seq, overlap, len(turns))

    def _fork_name(self, namespace: str, family: str) -> str:
        """A branch's key: ``NAME@2``, ``NAME@3``… of a named conversation (``family`` is its key)."""
        if not family:
            return session_key(namespace, "chat-" + uuid.uuid4().hex[:16])
        name = session_name(family)[:110]
        taken = set(self.tables.family(namespace, family))
        n = len(taken) + 1
        while session_key(namespace, f"{name}@{n}") in taken or self.tables.namespace_of(
            session_key(namespace, f"{name}@{n}")
        ):
            n += 1
        return session_key(namespace, f"{name}@{n}")

    def _new_branch(self, session: str, namespace: str, family: str, parent: str | None, fork_seq: int | None):
        self.tables.add_branch(
            {
                "session": session,
                "namespace": namespace,
                "family": family,
                "parent": parent,
                "fork_seq": fork_seq,
                "created": self.now(),
            }
        )

    def _ensure_chains(self, name: str, namespace: str, family: str) -> None:
        """A named session stored before turns had chains gets them (its own and its branches')."""
        sessions = list(dict.fromkeys([name, *self.tables.family(namespace, family)]))
        if self.tables.namespace_of(name) is None or not self.tables.lacks_chains(sessions):
            return
        for session in sessions:
            rows = self.tables.transcript(session)
            if all(r["chain"] for r in rows):
                continue
            current, updates = chain_seed(namespace, family), []
            for row in rows:
                digest = row["digest"] or turn_digest(row["role"], row["content"])
                current = chain_next(current, digest)
                if row["session"] == session and row["chain"] != current:
                    updates.append((digest, current, row["seq"]))
            self.tables.set_chains(updates)

    def head_chain(self, session: str, namespace: str) -> str:
        """The chain after the session's newest turn (its seed when it has none)."""
        newest = self.tables.newest_chain(session)
        if newest is not None and newest[1]:
            return newest[1]
        branch = self.tables.branch(session)
        family = branch["family"] if branch else session
        current = chain_seed(namespace, family)
        for row in self.tables.transcript(session) if newest is not None else []:
            current = chain_next(current, row["digest"] or turn_digest(row["role"], row["content"]))
        return current
