"""An OpenAI chat reply asked for with `n` > 1: the app is shown several choices and continues
with one. The first is stored, pending (so neither the Observer nor SyncScore reads it yet), and
the proxy keeps the others' texts; when the app's next request carries another choice where the
first was stored, the first is taken back and the chosen one stored in its place. A first choice
nobody continued from is kept, as any pending turn is after a while.

Which reply a choice belongs to is known by the turn it answered (its digest), so an app that
sends only the newest messages (a sliding window) is matched too. Kept in memory, the newest
``size``; after a proxy restart a continuation with another choice forks the conversation, as a
regenerated reply does.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from agentmemd.memory.conversation.transcript import as_stored, turn_digest


@dataclass(frozen=True)
class StoredFirst:
    """Where a reply's first choice is stored, and the texts of its other choices (as stored)."""

    session: str
    seq: int
    others: frozenset[str]


NEAR_THE_END = 20


class OpenChoices:
    def __init__(self, size: int = 1_000):
        self.size = size
        self._open: OrderedDict[tuple[str, str], StoredFirst] = OrderedDict()
        self._lock = threading.Lock()

    def remember(self, namespace: str, answered: tuple[str, ...], stored: StoredFirst) -> None:
        """``answered``: the turn (role, text) the reply followed."""
        key = (namespace, turn_digest(answered[0], as_stored(answered[1])))
        with self._lock:
            self._open[key] = stored
            self._open.move_to_end(key)
            while len(self._open) > self.size:
                self._open.popitem(last=False)

    def taken_instead(self, namespace: str, turns: list[tuple[str, ...]]) -> StoredFirst | None:
        """The stored first choice a history replaces with another choice of the same reply, if any
        (the newest such place in it); forgotten once found, since the answer is now known."""
        with self._lock:
            if not self._open:
                return None
            recent = turns[-NEAR_THE_END:]  # the next request continues right after the reply
            for before, turn in reversed(list(zip(recent, recent[1:]))):
                key = (namespace, turn_digest(before[0], as_stored(before[1])))
                stored = self._open.get(key)
                if stored is not None and turn[0] == "assistant" and as_stored(turn[1]) in stored.others:
                    del self._open[key]
                    return stored
        return None
