"""Markdown workspace files -> memory items (seed 002, 3.2).

A file is split by its heading structure (markdown-it-py gives every block its line
range): each top-level bullet or numbered item is one item (nested bullets belong to
it), each paragraph, code block or table outside a list is one item. HTML comments
are guidance, not memories; the sections the daemon owns (between
``<!-- agentmemd:begin -->`` and ``<!-- agentmemd:end -->``) are never indexed, so
the daemon's own writes never come back as user input.

The memory type follows the file (``default_type``); a person overrides it per item
with a comment on the line before the item or inside it,
``<!-- type: relational priority: 0.9 -->``, or with a hashtag in the item,
``#persona`` ``#relational`` ``#preference`` ``#procedural`` ``#fact``.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import PurePosixPath

from markdown_it import MarkdownIt

from agentmemd.memory.core.errors import WorkspaceError
from agentmemd.memory.core.vocabulary import MEMORY_TYPES

OWNED_BEGIN = "<!-- agentmemd:begin -->"
OWNED_END = "<!-- agentmemd:end -->"
TYPES = MEMORY_TYPES

_ANNOTATION = re.compile(r"<!--\s*((?:(?:type|priority|audience)\s*:\s*[\w.]+\s*)+)-->", re.IGNORECASE)
_ANNOTATION_FIELD = re.compile(r"(type|priority|audience)\s*:\s*([\w.]+)", re.IGNORECASE)
# What an item's audience annotation may say (memory/core/disclosure.py): anyone, or the user only.
AUDIENCES = {"shared": "shared", "shareable": "shared", "private": "user", "user": "user"}
_HASHTAG = re.compile(r"(?<![\w#])#(" + "|".join(TYPES) + r")\b", re.IGNORECASE)
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_DAILY_LOG = re.compile(r"^memory/(\d{4}-\d{2}-\d{2})\.md$")
_RELATIONAL_HEADINGS = re.compile(
    r"\b(people|person|relationships?|family|friends?|contacts?|colleagues?|team)\b", re.I
)
_PREFERENCE_HEADINGS = re.compile(r"\b(preferences?|likes?|dislikes?|prefers?|style|habits?)\b", re.I)


class AnnotationError(WorkspaceError, ValueError):
    """An override comment names an unknown type or a priority outside 0..1."""


@dataclass(frozen=True)
class MarkdownItem:
    path: str  # relative to the workspace root, POSIX separators
    heading_path: tuple[str, ...]
    content: str
    line_start: int  # 1-based, inclusive
    line_end: int
    type: str
    priority: float | None
    created: datetime | None
    audience: str = "shared"  # who may hear it: the file's default unless annotated

    @property
    def key(self) -> str:
        """Stable identity: file + heading path + content (+ the type/priority/audience a person gave it)."""
        raw = "\0".join([self.path, " > ".join(self.heading_path), self.content, self.type, str(self.priority)])
        if self.audience != default_audience(self.path):
            raw += "\0" + self.audience
        return hashlib.sha256(raw.encode()).hexdigest()[:32]

    @property
    def anchor(self) -> str:
        """Identity without the file: what a renamed or moved item is matched by."""
        raw = "\0".join([" > ".join(self.heading_path), self.content])
        return hashlib.sha256(raw.encode()).hexdigest()[:32]

    @property
    def source(self) -> str:
        heading = " > ".join(self.heading_path)
        lines = f"L{self.line_start}" if self.line_start == self.line_end else f"L{self.line_start}-{self.line_end}"
        return f"{self.path}#{heading} {lines}" if heading else f"{self.path} {lines}"


def default_audience(path: str) -> str:
    """MEMORY.md, USER.md and the daily logs (memory/YYYY-MM-DD.md, where the daemon writes what
    it learned, which a person may keep) are the user's own; the persona files and knowledge are shared."""
    own = PurePosixPath(path).name.upper() in ("MEMORY.MD", "USER.MD") or _DAILY_LOG.match(path)
    return "user" if own else "shared"


def default_type(path: str, heading_path: tuple[str, ...]) -> str:
    name = PurePosixPath(path).name.upper()
    headings = " ".join(heading_path)
    if name in ("SOUL.MD", "IDENTITY.MD"):
        return "persona"
    if name == "USER.MD":
        return "relational" if _RELATIONAL_HEADINGS.search(headings) else "preference"
    if name == "MEMORY.MD":
        return "preference" if _PREFERENCE_HEADINGS.search(headings) else "fact"
    if name == "TOOLS.MD":
        return "procedural"
    return "fact"  # memory/topics, memory/knowledge, daily logs, anything else


def log_date(path: str) -> datetime | None:
    """memory/YYYY-MM-DD.md is a daily log: its items happened that day."""
    m = _DAILY_LOG.match(path)
    if not m:
        return None
    try:
        return datetime.strptime(m.group(1), "%Y-%m-%d").replace(tzinfo=timezone.utc)
    except ValueError:
        return None


def _annotation(text: str) -> dict[str, str]:
    fields: dict[str, str] = {}
    for body in _ANNOTATION.findall(text):
        for key, value in _ANNOTATION_FIELD.findall(body):
            fields[key.lower()] = value
    return fields


def _apply(fields: dict[str, str], mtype: str, priority: float | None, where: str) -> tuple[str, float | None]:
    if "type" in fields:
        mtype = fields["type"].lower()
        if mtype not in TYPES:
            raise AnnotationError(f"{where}: unknown type {fields['type']!r} (one of {', '.join(TYPES)})")
    if "priority" in fields:
        try:
            priority = float(fields["priority"])
        except ValueError:
            raise AnnotationError(f"{where}: priority {fields['priority']!r} is not a number") from None
        if not 0.0 <= priority <= 1.0:
            raise AnnotationError(f"{where}: priority {priority} is outside 0..1")
    return mtype, priority


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def owned_spans(lines: list[str]) -> tuple[list[tuple[int, int]], int | None]:
    """The daemon's sections, as (begin, end) line indexes of their markers, and the index of a
    begin marker left without its end (None: none). A marker inside a person's fenced code block
    is their text (a note showing the format), not a section."""
    spans: list[tuple[int, int]] = []
    begin: int | None = None
    fence: str | None = None
    for i, line in enumerate(lines):
        found = _FENCE.match(line) if begin is None else None
        if found:
            mark = found.group(1)
            if fence is None:
                fence = mark
            elif mark[0] == fence[0] and len(mark) >= len(fence) and line.strip() == mark:
                fence = None  # the closing fence: the same character, at least as many, nothing else
            continue
        if fence is not None:
            continue
        said = line.strip()
        if begin is None and said == OWNED_BEGIN:
            begin = i
        elif begin is not None and said == OWNED_END:
            spans.append((begin, i))
            begin = None
    return spans, begin


def blank_owned_sections(text: str) -> str:
    """Replace the daemon-owned sections with empty lines (line numbers stay right). A begin marker
    without its end blanks nothing: what follows it is the person's (parse_markdown_bounded says so)."""
    lines = text.split("\n")
    for begin, end in owned_spans(lines)[0]:
        lines[begin : end + 1] = [""] * (end + 1 - begin)
    return "\n".join(lines)


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table")


def parse_markdown(path: str, text: str) -> list[MarkdownItem]:
    """Items of one file, in document order. Raises AnnotationError on a bad override."""
    return _parse_lines(path, _lines(text))


def _lines(text: str) -> list[str]:
    """The file's lines, its owned sections blank; a byte order mark (some Windows editors write
    one) is not text: left in, it made the first heading a paragraph, and so a memory."""
    return blank_owned_sections(text.removeprefix("\ufeff")).split("\n")


@dataclass(frozen=True)
class BoundedParse:
    items: list[MarkdownItem]
    cut_at_line: int | None  # the first item left out (1-based), when the file had more than allowed
    problems: list[str] = field(default_factory=list)  # what a person should fix (an unclosed fence)


def parse_markdown_bounded(path: str, text: str, max_items: int, *, first_window: int | None = None) -> BoundedParse:
    """The first ``max_items`` items of a file, without parsing all of a huge one.

    A 1 MB file of 200,000 one-word bullets took markdown-it 17 s and 1.5 GB before any cut.
    So a growing prefix of lines is parsed instead, until it holds more than ``max_items``
    items. The prefix's last item may be changed by the cut (an open fence, a setext
    underline), but the items kept all end before another item that lies wholly inside it,
    so they parse as in the whole file. Cost: at most about twice one parse of what is read.
    """
    lines = _lines(text)
    window = first_window or max(4 * max_items, 1024)  # lines in the first prefix parsed
    while window < len(lines):
        items = [it for it in _parse_lines(path, lines[:window]) if it.line_end < window]
        if len(items) > max_items:
            return BoundedParse(items[:max_items], items[max_items].line_start)
        window *= 4
    problems: list[str] = []
    items = _parse_lines(path, lines, problems)
    if len(items) > max_items:
        return BoundedParse(items[:max_items], items[max_items].line_start, problems)
    return BoundedParse(items, None, problems)


def _parse_lines(path: str, lines: list[str], problems: list[str] | None = None) -> list[MarkdownItem]:
    """The items of these lines; what a person should fix is added to ``problems`` when given."""
    tokens = _parser().parse("\n".join(lines))
    if problems is not None:
        problems += [
            f"line {start + 1}: a code fence ({markup}) is never closed, so everything after it is one code block"
            for start, markup in _unclosed_fences(tokens, lines)
        ]
        unended = owned_spans(lines)[1]
        if unended is not None:
            problems.append(
                f"line {unended + 1}: {OWNED_BEGIN} without {OWNED_END}: what follows is indexed as yours, and "
                "agentmemd writes nothing here until the end marker is restored or the begin marker deleted"
            )
    created = log_date(path)
    headings: list[tuple[int, str]] = []
    pending: dict[str, str] = {}
    items: list[MarkdownItem] = []
    depth = 0  # >0 inside a list item or table: its inner blocks belong to it
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.type == "heading_open":
            level = int(tok.tag[1:])
            title = " ".join(_COMMENT.sub("", tokens[i + 1].content).split())
            headings = [(lv, t) for lv, t in headings if lv < level] + [(level, title)]
            pending = {}
            i += 3
            continue
        if tok.type == "html_block":
            if depth == 0:
                pending = {**pending, **_annotation(tok.content)}
            i += 1
            continue
        block_start = tok.type in ("list_item_open", "table_open") and depth == 0
        simple_block = depth == 0 and tok.type in ("paragraph_open", "fence", "code_block")
        if tok.type in ("list_item_open", "table_open"):
            depth += 1
        elif tok.type in ("list_item_close", "table_close"):
            depth -= 1
        if not (block_start or simple_block) or tok.map is None:
            i += 1
            continue
        start, end = tok.map
        while end > start + 1 and not lines[end - 1].strip():
            end -= 1
        raw = "\n".join(lines[start:end])
        body = _item_text(raw, tok.type)
        fields = {**pending, **_annotation(raw)}
        pending = {}
        heading_path = tuple(t for _, t in headings)
        where = f"{path}:{start + 1}"
        mtype, priority = _apply(fields, default_type(path, heading_path), None, where)
        audience = default_audience(path)
        if "audience" in fields:
            audience = AUDIENCES.get(fields["audience"].lower(), "")
            if not audience:
                raise AnnotationError(f"{where}: unknown audience {fields['audience']!r} (shared or private)")
        tag = _HASHTAG.search(body)
        if tag:
            mtype = tag.group(1).lower()
            body = " ".join(_HASHTAG.sub("", body).split())
        if body:
            items.append(MarkdownItem(path, heading_path, body, start + 1, end, mtype, priority, created, audience))
        i += 1
    return items


def _unclosed_fences(tokens, lines: list[str]) -> list[tuple[int, str]]:
    """(line index, markup) of each fence that runs to the end of the file without its closing line."""
    out = []
    for tok in tokens:
        if tok.type != "fence" or tok.map is None or any(line.strip() for line in lines[tok.map[1] :]):
            continue  # something comes after it: it was closed
        start, end = tok.map
        body = [line.strip() for line in lines[start + 1 : end]]
        closing = next((line for line in reversed(body) if line), "")
        if end - start < 2 or not (closing.startswith(tok.markup) and set(closing) <= set(tok.markup[0])):
            out.append((start, tok.markup))
    return out


_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?")


def _item_text(raw: str, kind: str) -> str:
    """The item's words: markers, comments and line breaks removed (code keeps its lines)."""
    raw = _COMMENT.sub("", raw)
    if kind in ("fence", "code_block"):
        return raw.strip()
    parts = [_BULLET.sub("", line).strip() for line in raw.split("\n")]
    return " ".join(p for p in parts if p)
