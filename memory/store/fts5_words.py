"""A text's words exactly as SQLite's FTS5 indexes them: the PostgreSQL store's BM25 indexes them,
and the lexical lookup asks which word forms stem alike.

    text_words, context_words = fts5_words("Ran to the shops", "at noon")   # ['ran', 'to', 'the', 'shop'], ...

Read from FTS5 itself (an in-memory table and its ``fts5vocab`` instance view, one per thread)
rather than a second tokenizer: the same porter stemmer, unicode61 word breaks and diacritics, so a
memory and a query meet on the same terms on both stores and BM25 ranks them alike.
"""

from __future__ import annotations

import threading

import sqlean

_local = threading.local()
TOKENIZER = "porter unicode61 remove_diacritics 2"  # what migrations.create_namespace_fts gives FTS5


def _connection():
    conn = getattr(_local, "conn", None)
    if conn is None:
        conn = _local.conn = sqlean.connect(":memory:", check_same_thread=True)
        conn.execute(f"CREATE VIRTUAL TABLE words USING fts5(text, context, tokenize='{TOKENIZER}')")
        conn.execute("CREATE VIRTUAL TABLE word_instances USING fts5vocab(words, instance)")
    return conn


def fts5_words(text: str, context: str = "") -> tuple[list[str], list[str]]:
    """The terms of ``text`` and of ``context``, each in order, repeats kept."""
    conn = _connection()
    conn.execute("INSERT INTO words (rowid, text, context) VALUES (1, ?, ?)", (text, context or ""))
    try:
        rows = conn.execute("SELECT term, col FROM word_instances ORDER BY col = 'context', offset").fetchall()
    finally:
        conn.execute("DELETE FROM words")
    return [t for t, col in rows if col == "text"], [t for t, col in rows if col == "context"]


def query_terms(words: list[str]) -> list[str]:
    """Each query word as the index holds it (a word FTS5 splits in two gives both)."""
    return [term for word in words for term in fts5_words(word)[0]]
