"""The Markdown workspace as a source of truth: files -> memories, kept in step.

``WorkspaceIndexer.sync(paths)`` re-reads the given files (present or gone) and makes
the store match them, in one transaction:

1. an item whose identity (file + heading path + content) is unchanged keeps its
   memory, access counts and decay state; only its provenance (line numbers) follows;
2. an item that vanished from one file and appears unchanged in another (a rename or
   a move) keeps its memory too;
3. within a file, a vanished item and a new one that look alike (same section, word
   overlap, or the only change in their section) are an edit: the new text becomes
   a new version of the old memory (``memory.update``: supersession, not a duplicate);
4. what is left is new (added) or deleted (archived: recoverable, never lost).

``catch_up()`` compares every file's SHA-256 with the one recorded at its last
indexing, so edits made while the daemon was down are picked up at start. Binary,
non-UTF-8 and oversized files are skipped with a reason and keep their old items.
"""

from __future__ import annotations

import codecs
import hashlib
import logging
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from agentmemd.memory.core.clock import format_time
from agentmemd.memory.core.models import AddParams, UpdateParams
from agentmemd.memory.core.text import words
from agentmemd.memory.core.threads import run_here
from agentmemd.memory.store.lineage_tables import LineageTables
from agentmemd.memory.workspace.markdown import (
    AnnotationError,
    BoundedParse,
    MarkdownItem,
    parse_markdown_bounded,
)
from agentmemd.memory.workspace.owned_files import FileOwner

log = logging.getLogger("agentmemd.workspace")

EDIT_MIN_OVERLAP = 0.3  # word-set Jaccard above which a vanished and a new item are one edited item


@dataclass
class SyncReport:
    added: int = 0
    updated: int = 0
    archived: int = 0
    moved: int = 0
    unchanged: int = 0
    files: int = 0
    skipped: dict[str, str] = field(default_factory=dict)
    # What the owners of owned files wrote, by their report key (GOALS.md: "goals" added, changed, dropped)
    owned: dict[str, dict[str, int]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        keys = ("files", "added", "updated", "archived", "moved", "unchanged", "skipped")
        return {**{k: getattr(self, k) for k in keys}, **self.owned}


@dataclass
class _FileRead:
    sha256: str | None
    size: int
    text: str | None = None
    reason: str | None = None  # why the file was skipped
    note: str | None = None  # indexed, but not whole (its items were cut)


def _words(text: str) -> set[str]:
    return set(words(text))


def _overlap(a: str, b: str) -> float:
    wa, wb = _words(a), _words(b)
    return len(wa & wb) / len(wa | wb) if wa | wb else 0.0


@dataclass
class _Prepared:
    """A sync's work done off the store thread: files read and parsed, new items embedded."""

    parsed: dict[str, list[MarkdownItem]] = field(default_factory=dict)
    reads: dict[str, _FileRead] = field(default_factory=dict)
    gone: list[str] = field(default_factory=list)
    vectors: dict[str, np.ndarray] = field(default_factory=dict)  # item key -> embedding
    owned: dict[str, Any] = field(default_factory=dict)  # an owned file's path -> its owner's read (None: gone)


class WorkspaceIndexer:
    """Keeps the store in step with the Markdown workspace.

    A sync reads, parses and embeds on the calling thread, then hands one short transaction
    to ``run_on_store`` (the daemon's store thread; a direct call as a library), so a big
    edit never holds up other requests while the model runs."""

    def __init__(
        self,
        service,
        root: Path,
        *,
        namespace: str = "default",
        max_file_bytes: int = 1 << 20,
        max_items_per_file: int = 2000,
        batch_files: int = 32,
        run_on_store=None,
    ):
        self.service = service
        self.store = service.store
        self.root = Path(root).resolve()
        self.namespace = namespace
        self.max_file_bytes = max_file_bytes
        self.max_items_per_file = max_items_per_file
        self.batch_files = batch_files
        self.run_on_store = run_on_store or run_here
        self._vectors: dict[str, np.ndarray] = {}  # the sync being committed
        self._bad_names: set[str] = set()  # files skipped because their names are not UTF-8 (logged once)
        # Called after a sync that changed something (the identity graph is read again then, not on
        # the next request): set by the services that keep what is read from the files.
        self.on_synced: Callable[[], None] | None = None
        # Files whose items are another part's records (GOALS.md's goals), by path: ``own``.
        self.owners: dict[str, FileOwner] = {}

    def own(self, owner: FileOwner) -> None:
        """Hand ``owner.path``'s items to ``owner`` instead of storing them as memories."""
        self.owners[owner.path] = owner

    # ---- files ---------------------------------------------------------------

    def relative(self, path: str | Path) -> str | None:
        """The workspace-relative POSIX path of a Markdown file we index, else None."""
        p = Path(path)
        try:
            rel = (p if p.is_absolute() else self.root / p).resolve().relative_to(self.root)
        except (ValueError, OSError):
            return None
        if rel.suffix.lower() != ".md" or any(part.startswith(".") for part in rel.parts):
            return None
        name = rel.as_posix()
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:  # a name that is not UTF-8 (surrogate-escaped bytes) cannot be stored
            shown = os.fsencode(name).decode("utf-8", "backslashreplace")
            if shown not in self._bad_names:
                self._bad_names.add(shown)
                log.warning("workspace file skipped", extra={"path": shown, "reason": "its name is not UTF-8"})
            return None
        return name

    def markdown_files(self) -> list[str]:
        found = (self.relative(p) for p in self.root.rglob("*") if p.is_file())
        return sorted(p for p in found if p)

    def read_text(self, rel: str) -> str | None:
        """A workspace Markdown file's text, for a door to show read-only. None unless ``rel`` is
        a file this indexer would index, inside the root (a link out of it is not), readable,
        UTF-8 and within ``max_file_bytes``; the reason is the file's ``skipped`` reason."""
        if self.relative(rel) != rel:
            return None
        read = self._read(rel)
        return None if read is None or read.text is None else read.text

    def _read(self, rel: str) -> _FileRead | None:
        path = self.root / rel
        try:
            if not path.is_file():
                return None
            size = path.stat().st_size
            if size > self.max_file_bytes:
                return _FileRead(None, size, reason=f"larger than max_file_bytes ({size} > {self.max_file_bytes})")
            data = path.read_bytes()
        except OSError as exc:
            return _FileRead(None, 0, reason=f"unreadable: {exc.strerror or exc}")
        sha = hashlib.sha256(data).hexdigest()
        if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            return _FileRead(sha, len(data), reason="UTF-16 text: save it as UTF-8 to have it indexed")
        if b"\0" in data:
            return _FileRead(sha, len(data), reason="binary (contains NUL bytes)")
        try:
            return _FileRead(sha, len(data), text=data.decode("utf-8"))
        except UnicodeDecodeError as exc:
            return _FileRead(sha, len(data), reason=f"not UTF-8 (byte {exc.start})")

    # ---- sync ----------------------------------------------------------------

    def catch_up(self) -> SyncReport:
        """Index every file whose content changed since it was last indexed, and drop gone ones."""
        present = self.markdown_files()
        known = self.run_on_store(self.store.workspace_files)
        gone = [p for p in known if p not in set(present)]
        # sync() reads each file once and passes over those whose SHA-256 is as recorded.
        return self.sync(present + gone, recheck_skipped=False)

    def sync(self, paths: list[str], *, recheck_skipped: bool = True) -> SyncReport:
        """Make the store match these files. A file whose bytes are as last recorded is passed
        over; with ``recheck_skipped`` one recorded as skipped is looked at again (and its
        reason reported) even so. Files go in batches of ``batch_files``, each prepared off the
        store thread and committed in one short transaction, so requests are answered between."""
        report = SyncReport()
        ordered = sorted(set(paths))
        # Files that are gone go with every batch: an item moved from one into a file of a later
        # batch is matched there (a move, not an archive and an add); they are archived at the end.
        missing = [p for p in ordered if not os.path.lexists(self.root / p)]
        gone = set(missing)
        present = [p for p in ordered if p not in gone]
        batches = [present[i : i + self.batch_files] for i in range(0, len(present), self.batch_files)] or [[]]
        for number, batch in enumerate(batches, 1):
            final = number == len(batches)
            prepared = self._prepare(batch + missing, recheck_skipped, report)
            if not prepared.parsed and not prepared.gone and not prepared.reads:
                continue
            self.run_on_store(lambda prepared=prepared, final=final: self._commit(prepared, report, final))
            report.files += len(prepared.parsed) + (len(prepared.gone) if final else 0)
        if report.added or report.updated or report.archived or report.moved or report.skipped:
            log.info("workspace synced", extra=report.as_dict())
        if self.on_synced is not None and (report.added or report.updated or report.archived or report.moved):
            try:
                self.on_synced()
            except Exception:  # the sync itself is done and committed; a request reads it later anyway
                log.exception("after the workspace sync")
        return report

    def _bounded(self, rel: str, parse: BoundedParse, read: _FileRead) -> list[MarkdownItem]:
        """The file's items; a cut at ``max_items_per_file`` or a problem a person should fix (an
        unclosed code fence) is logged and kept as the file's reason."""
        notes = list(parse.problems)
        if parse.cut_at_line is not None:
            notes.append(
                f"cut at max_items_per_file: the first {self.max_items_per_file} items indexed, the rest "
                f"from line {parse.cut_at_line} on not read (split the file, or raise [workspace] max_items_per_file)"
            )
        if notes:
            read.note = "; ".join(notes)
            log.warning("workspace file indexed with a problem", extra={"path": rel, "reason": read.note})
        return parse.items

    def _prepare(self, paths: list[str], recheck_skipped: bool, report: SyncReport) -> _Prepared:
        """Read, parse and embed (no transaction; store reads hop to the store thread)."""
        known = self.run_on_store(self.store.workspace_files)
        out = _Prepared()
        parsed, reads, gone = out.parsed, out.reads, out.gone
        for rel in paths:
            read = self._read(rel)
            if read is None:
                gone.append(rel)
                continue
            reads[rel] = read
            record = known.get(rel)
            if (
                record is not None
                and record["sha256"] == read.sha256
                and (record["status"] == "indexed" or not recheck_skipped)
            ):
                del reads[rel]
                continue  # our own write-back, or a save that changed nothing
            if read.text is not None:
                try:
                    parsed[rel] = self._bounded(
                        rel, parse_markdown_bounded(rel, read.text, self.max_items_per_file), read
                    )
                except AnnotationError as exc:
                    read.reason = str(exc)
            if read.reason:
                report.skipped[rel] = read.reason
                log.warning("workspace file skipped", extra={"path": rel, "reason": read.reason})
            if rel in self.owners and rel in parsed:
                self._read_owned(self.owners[rel], out, parsed, read)
        for rel in gone:
            if rel in self.owners:
                out.owned[rel] = None  # its records are dropped
        if parsed:
            # Items whose identity the store does not know yet are the ones a commit may add or
            # rewrite: embed them here. The commit still decides from the store as it is then.
            old_keys = {r["item_key"] for r in self.run_on_store(lambda: self.store.workspace_items(sorted(parsed)))}
            fresh = {it.key: it for rel in sorted(parsed) for it in parsed[rel] if it.key not in old_keys}
            if fresh:
                embedded = self.service.embedder.embed_passages([it.content for it in fresh.values()])
                out.vectors = dict(zip(fresh, embedded))
        return out

    def _read_owned(
        self, owner: FileOwner, out: _Prepared, parsed: dict[str, list[MarkdownItem]], read: _FileRead
    ) -> None:
        """An owned file's items go to its owner: none of them is a memory (one stored before is archived)."""
        out.owned[owner.path], problems = owner.read(parsed[owner.path], read.text or "")
        parsed[owner.path] = []
        if problems:
            read.note = "; ".join(problems)
            log.warning(f"{owner.report_key} left out", extra={"path": owner.path, "reason": read.note})

    def _commit(self, prepared: _Prepared, report: SyncReport, final: bool = True) -> None:
        """One transaction on the store thread: the items, then the files' records. Gone files'
        remaining items are archived, and their records dropped, only in the ``final`` batch."""
        parsed, reads, gone = prepared.parsed, prepared.reads, prepared.gone
        self._vectors = prepared.vectors
        try:
            with self.store.transaction():
                self._apply(parsed, gone, report, archive_gone=final)
                for rel, owned in prepared.owned.items():
                    owner = self.owners[rel]
                    report.owned[owner.report_key] = owner.write(self.namespace, owned)
                self._record_files(reads, gone if final else [])
        finally:
            self._vectors = {}

    def _record_files(self, reads: dict[str, _FileRead], gone: list[str]) -> None:
        now = format_time(self.service.clock.now())
        for rel, read in reads.items():
            status = "skipped" if read.reason else "indexed"
            self.store.put_workspace_file(
                {
                    "path": rel,
                    "sha256": read.sha256,
                    "size": read.size,
                    "status": status,
                    "reason": read.reason or read.note,
                    "indexed_at": now,
                }
            )
        for rel in gone:
            self.store.drop_workspace_file(rel)

    def _apply(
        self, parsed: dict[str, list[MarkdownItem]], gone: list[str], report: SyncReport, *, archive_gone: bool = True
    ) -> None:
        old_rows = self.store.workspace_items(sorted([*parsed, *gone]))
        new_items = [it for rel in sorted(parsed) for it in parsed[rel]]
        # 1. unchanged identity
        by_key = {r["item_key"]: r for r in old_rows}
        kept: list[tuple[dict[str, Any], MarkdownItem]] = []
        fresh: list[MarkdownItem] = []
        for it in new_items:
            row = by_key.pop(it.key, None)
            if row is not None:
                kept.append((row, it))
            else:
                fresh.append(it)
        # 2. the same item in another file: a rename or a move
        by_anchor: dict[str, list[dict[str, Any]]] = {}
        for r in by_key.values():
            by_anchor.setdefault(r["anchor"], []).append(r)
        moved: list[tuple[dict[str, Any], MarkdownItem]] = []
        still_new: list[MarkdownItem] = []
        for it in fresh:
            rows = [r for r in by_anchor.get(it.anchor, []) if r["path"] != it.path]
            if rows:
                row = rows[0]
                by_anchor[it.anchor].remove(row)
                del by_key[row["item_key"]]
                moved.append((row, it))
            else:
                still_new.append(it)
        for row, it in kept:
            self._keep(row, it)
        for row, it in moved:
            if self._retyped(row, it):
                self._supersede(row, it)  # moved into a file of another type: a new version
            else:
                self._keep(row, it)
        report.unchanged += len(kept)
        report.moved += len(moved)
        # 3. edits within a file
        vanished = list(by_key.values())
        edits = self._pair_edits(vanished, still_new)
        for row, it in edits:
            self._supersede(row, it)
        report.updated += len(edits)
        paired_rows = {id(r) for r, _ in edits}
        paired_items = {id(it) for _, it in edits}
        # 4. the rest
        added = [it for it in still_new if id(it) not in paired_items]
        report.added += self._add(added)
        later = set() if archive_gone else set(gone)  # a later batch may still find these items moved
        for row in vanished:
            if id(row) not in paired_rows and row["path"] not in later:
                self._archive(row)
                report.archived += 1

    @staticmethod
    def _pair_edits(
        vanished: list[dict[str, Any]], new: list[MarkdownItem]
    ) -> list[tuple[dict[str, Any], MarkdownItem]]:
        gone_sections = [(r["path"], r["heading_path"]) for r in vanished]
        new_sections = [(it.path, " > ".join(it.heading_path)) for it in new]
        gone_per = Counter(gone_sections)
        new_per = Counter(new_sections)
        pairs: list[tuple[float, bool, int, int]] = []
        for i, row in enumerate(vanished):
            for j, it in enumerate(new):
                if row["path"] == it.path:
                    pairs.append((_overlap(row["content"], it.content), gone_sections[i] == new_sections[j], i, j))
        out: list[tuple[dict[str, Any], MarkdownItem]] = []
        used_rows: set[int] = set()
        used_items: set[int] = set()
        # Same section first, then by word overlap.
        for overlap, same_section, i, j in sorted(pairs, key=lambda p: (-(p[0] + p[1]), p[2], p[3])):
            if i in used_rows or j in used_items:
                continue
            # The only item that vanished from a section and the only one that appeared in it: a rewrite.
            lone = same_section and gone_per[gone_sections[i]] == 1 and new_per[new_sections[j]] == 1
            if overlap >= EDIT_MIN_OVERLAP or lone:
                out.append((vanished[i], new[j]))
                used_rows.add(i)
                used_items.add(j)
        return out

    # ---- the four outcomes ------------------------------------------------------

    def _bookkeep(self, memory_id: str, it: MarkdownItem) -> None:
        self.store.put_workspace_item(
            {
                "memory_id": memory_id,
                "namespace": self.namespace,
                "path": it.path,
                "item_key": it.key,
                "anchor": it.anchor,
                "heading_path": " > ".join(it.heading_path),
                "content": it.content,
            }
        )

    def _keep(self, row: dict[str, Any], it: MarkdownItem) -> None:
        found = self.store.get(row["memory_id"])
        if found is not None and found[0]["source"] != it.source and not found[1]:
            self.store.set_source(found[0]["seq"], it.source)
        if found is not None and found[0]["audience"] != it.audience:  # an audience annotation was added or changed
            self.store.set_audience(found[0]["seq"], it.audience, archived=found[1])
        if row["path"] != it.path or row["item_key"] != it.key:
            self.store.drop_workspace_item(row["memory_id"])
        self._bookkeep(row["memory_id"], it)

    def _retyped(self, row: dict[str, Any], it: MarkdownItem) -> bool:
        found = self.store.get(row["memory_id"])
        if found is None:
            return False
        memory = found[0]
        return memory["type"] != it.type or (it.priority is not None and memory["priority"] != it.priority)

    def _add(self, items: list[MarkdownItem]) -> int:
        """Store new items (or restore an item that came back); how many."""
        if not items:
            return 0
        # An item that left its file and came back (a file emptied for longer than the debounce,
        # then saved again) is the memory it was, restored with its id and use, not a new one.
        back = {id(it): found for it in items if (found := self._left_earlier(it)) is not None}
        for it in items:
            if id(it) in back:
                self.service.restore(back[id(it)], self.namespace)
                self._bookkeep(back[id(it)], it)
        restored = len(back)
        items = [it for it in items if id(it) not in back]
        # An item whose memory was forgotten stays in the person's file and is not read again while
        # its words are unchanged (the daemon's own write to the file, any save, re-reads it).
        forgotten = LineageTables(self.store).forgotten(self.namespace, [it.content for it in items])
        items = [it for it in items if it.content not in forgotten]
        if not items:
            return restored
        params = [
            AddParams(
                content=it.content,
                type=it.type,
                priority=it.priority,
                namespace=self.namespace,
                source=it.source,
                created=it.created,
                tags=["workspace"],
                audience=it.audience,
            )
            for it in items
        ]
        for memory_id, it in zip(
            self.service.add_many(params, vectors=[self._vectors.get(it.key) for it in items]), items
        ):
            self._bookkeep(memory_id, it)
        return restored + len(items)

    def _left_earlier(self, it: MarkdownItem) -> str | None:
        """The archived memory this item was, archived because it left this file: same words, same
        file, same audience, not superseded since."""
        row = self.store.conn.execute(
            "SELECT a.id FROM memory_archive a WHERE a.namespace = ? AND a.content = ? AND a.audience = ? "
            "AND substr(a.source, 1, ?) = ? AND a.superseded_by IS NULL AND (SELECT e.detail FROM memory_events e "
            "WHERE e.memory_id = a.id AND e.kind = 'archived' ORDER BY e.id DESC LIMIT 1) = ? ORDER BY a.seq DESC LIMIT 1",
            (self.namespace, it.content, it.audience, len(it.path) + 1, f"{it.path}#", _left(it.path)),
        ).fetchone()
        return row[0] if row else None

    def _supersede(self, row: dict[str, Any], it: MarkdownItem) -> None:
        current = self._current(row["memory_id"])
        self.store.drop_workspace_item(row["memory_id"])
        if current is None:  # the memory is gone from the store: treat the item as new
            self._add([it])
            return
        result = self.service.update(
            UpdateParams(
                id=current,
                namespace=self.namespace,
                content=it.content,
                type=it.type,
                priority=it.priority,
                source=it.source,
            ),
            vector=self._vectors.get(it.key),
        )
        found = self.store.get(result.id)
        if found is not None and found[0]["audience"] != it.audience:
            self.store.set_audience(found[0]["seq"], it.audience, archived=found[1])
        self._bookkeep(result.id, it)
        self._archive_built_from([row["memory_id"], current], f"built from an item since edited in {row['path']}")

    def _archive(self, row: dict[str, Any]) -> None:
        current = self._current(row["memory_id"])
        if current is not None:
            self.service.archive(current, why=_left(row["path"]))
            self._archive_built_from([row["memory_id"], current], f"built from an item that left {row['path']}")
        self.store.drop_workspace_item(row["memory_id"])

    def _archive_built_from(self, memory_ids: list[str], why: str) -> None:
        """The consolidated memories built from what a person took out of (or changed in) a file
        said its old words on, packed until the next consolidation: archived (recoverable); the
        next consolidation builds from what the files say now."""
        for node in LineageTables(self.store).consolidated_from(set(memory_ids)):
            current = self._current(node)
            if current is not None:
                self.service.archive(current, why=why)

    def _current(self, memory_id: str) -> str | None:
        """Follow supersession to the newest version (an agent may have updated it over the API)."""
        seen = set()
        while memory_id not in seen:
            seen.add(memory_id)
            found = self.store.get(memory_id)
            if found is None:
                return None
            nxt = found[0]["superseded_by"]
            if not nxt:
                return memory_id
            memory_id = nxt
        return None


def _left(path: str) -> str:
    """Why a workspace item's memory was archived: its item left ``path`` (and is restored if it comes back)."""
    return f"its item left {path}"
