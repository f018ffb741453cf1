"""The secrets a namespace's memories state, known again where they are repeated.

A password someone gave is marked where they gave it ("my bank password is Tortuga$Lenta42"). The
agent's "Noted: Tortuga$Lenta42" holds no word that marks it, yet it is a copy of the secret: stored,
it is marked with the same kind (never packed unless asked for), masked where its words are shown,
and forgotten with the memory it repeats.

    known = KnownSecrets(SecretTables(store))
    known.of("default")           # {"Tortuga$Lenta42": "password", "4111 1111 1111 1111": "card_number"}
"""

from __future__ import annotations

import threading

from agentmemd.memory.safety.secrets import secret_values
from agentmemd.memory.store.secret_tables import SecretTables


class KnownSecrets:
    def __init__(self, tables: SecretTables):
        self.tables = tables
        # namespace -> (its marked memories' count and newest seq, their values): read again when
        # either changes, whoever changed it (another daemon on the same PostgreSQL store too).
        self._kept: dict[str, tuple[tuple[int, int], dict[str, str]]] = {}
        self._lock = threading.Lock()

    def of(self, namespace: str) -> dict[str, str]:
        """value -> kind of every secret the namespace's memories (live or not) state."""
        mark = self.tables.mark(namespace)
        with self._lock:
            kept = self._kept.get(namespace)
        if kept is not None and kept[0] == mark:
            return kept[1]
        found: dict[str, str] = {}
        for content in self.tables.contents(namespace):
            found.update(secret_values(content))
        with self._lock:
            self._kept[namespace] = (mark, found)
        return found
