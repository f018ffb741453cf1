"""The store's SQL is written for SQLite; this rewrites a statement for PostgreSQL.

    to_postgres(sql, catalog, with_params=True)   # cached per (sql, with_params)

The store's statements are few and fixed, so the rewrite is a handful of rules, not a parser:
placeholders (``?`` and ``:name`` become psycopg's ``%s`` and ``%(name)s``), ``INSERT OR IGNORE``
and ``INSERT OR REPLACE`` (an ``ON CONFLICT`` on the table's key), ``LIMIT -1`` (``LIMIT ALL``),
``LIKE`` (SQLite's is case-blind for ASCII: ``ILIKE``), ``CROSS JOIN ... ON`` (a plain join), ``json_group_array`` (``json_agg``) and
``SELECT *`` of a table that carries a ``rowid`` column only because PostgreSQL has none of its
own. What SQLite has as functions and PostgreSQL lacks (``julianday``, ``instr``) the schema adds
as SQL functions (schema.py), so the statements keep them. Quoted strings are left as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

# A single-quoted string ('' inside it is a quote), a double-quoted name, or a run of anything else.
_PIECES = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|[^'\"]+")
_NAMED = re.compile(r"(?<![:\w]):([A-Za-z_]\w*)")
_INSERT_OR = re.compile(r"^\s*INSERT\s+OR\s+(IGNORE|REPLACE)\s+INTO\s+", re.IGNORECASE)
_INSERT_INTO = re.compile(r"INSERT\s+INTO\s+\"?(\w+)\"?\s*\(([^)]*)\)", re.IGNORECASE)
_LIMIT_ALL = re.compile(r"\bLIMIT\s+-1\b", re.IGNORECASE)
_LIKE = re.compile(r"\bLIKE\b", re.IGNORECASE)
_SELECT_STAR = re.compile(r"\bSELECT\s+\*\s+FROM\s+\"?(\w+)\"?", re.IGNORECASE)
# SQLite's CROSS JOIN ... ON fixes the join order; PostgreSQL's CROSS JOIN takes no ON.
_CROSS_JOIN_ON = re.compile(r"\bCROSS\s+JOIN(\s+\w+(?:\s+(?!ON\b)\w+)?\s+ON)\b", re.IGNORECASE)
_RETURNING = re.compile(r"\bRETURNING\b", re.IGNORECASE)


@dataclass(frozen=True)
class Catalog:
    """What a rewrite needs to know of the schema: each table's key and, for the tables given a
    ``rowid`` column, the columns a ``SELECT *`` names instead."""

    keys: dict[str, tuple[str, ...]] = field(default_factory=dict)
    identities: dict[str, str] = field(default_factory=dict)  # table -> its generated integer key
    rowid_tables: dict[str, tuple[str, ...]] = field(default_factory=dict)  # table -> its columns but rowid

    def __hash__(self) -> int:  # one catalog per store: hashed by identity for the cache
        return id(self)

    def __eq__(self, other: object) -> bool:
        return self is other


def _code(piece: str) -> bool:
    return not piece.startswith(("'", '"'))


def _conflict_clause(sql: str, mode: str, catalog: Catalog) -> str:
    if mode == "IGNORE":
        return " ON CONFLICT DO NOTHING"
    insert = _INSERT_INTO.search(sql)
    if insert is None:
        raise ValueError(f"INSERT OR REPLACE without a column list: {sql[:80]}")
    table, columns = insert.group(1), [c.strip().strip('"') for c in insert.group(2).split(",")]
    key = catalog.keys.get(table)
    if not key:
        raise ValueError(f"INSERT OR REPLACE into {table}, which has no key")
    others = [c for c in columns if c not in key]
    if not others:
        return f" ON CONFLICT ({', '.join(key)}) DO NOTHING"
    updates = ", ".join(f"{c} = EXCLUDED.{c}" for c in others)
    return f" ON CONFLICT ({', '.join(key)}) DO UPDATE SET {updates}"


# A pattern with no letter in it ('%?'): case cannot matter, and LIKE is cheaper than ILIKE.
_CASE_BLIND_NEEDLESS = re.compile(r"ILIKE\s+('[^'A-Za-z]*')")
_BLOB_LITERAL = re.compile(r"\b[xX]'([0-9a-fA-F]*)'")


@lru_cache(maxsize=4096)
def to_postgres(sql: str, catalog: Catalog, with_params: bool = True) -> str:
    """``sql`` as PostgreSQL takes it (see the module). ``with_params``: psycopg will interpolate
    parameters, so a literal ``%`` is written ``%%``."""
    sql = _BLOB_LITERAL.sub(r"'\\x\1'::bytea", sql)
    mode = None
    found = _INSERT_OR.match(sql)
    if found:
        mode = found.group(1).upper()
        sql = sql[: found.start()] + "INSERT INTO " + sql[found.end() :]
    pieces = []
    for piece in _PIECES.findall(sql):
        if with_params:
            piece = piece.replace("%", "%%")
        if _code(piece):
            if with_params:
                piece = _NAMED.sub(r"%(\1)s", piece.replace("?", "%s"))
            piece = _LIMIT_ALL.sub("LIMIT ALL", piece)
            piece = _LIKE.sub("ILIKE", piece)
            piece = _CROSS_JOIN_ON.sub(r"JOIN\1", piece)
            piece = piece.replace("json_group_array(", "json_agg(")
            piece = _SELECT_STAR.sub(lambda m: _star(m, catalog), piece)
        pieces.append(piece)
    out = _CASE_BLIND_NEEDLESS.sub(r"LIKE \1", "".join(pieces)).rstrip().rstrip(";")
    if mode:
        clause = _conflict_clause(out, mode, catalog)
        returning = _RETURNING.search(out)
        out = out[: returning.start()] + clause + " " + out[returning.start() :] if returning else out + clause
    return out


def _star(match: re.Match, catalog: Catalog) -> str:
    columns = catalog.rowid_tables.get(match.group(1))
    if columns is None:
        return match.group(0)
    return f"SELECT {', '.join(columns)} FROM {match.group(1)}"
