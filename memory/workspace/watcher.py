"""Watch the Markdown workspace (watchdog) and hand changed paths to the indexer.

watchdog calls back on its own thread; paths are collected there and the daemon's
event loop is woken. The loop waits for a quiet moment (``debounce_ms``) so a burst of
saves, or an editor's write-to-temp-then-rename, becomes one sync of the final files,
then runs ``WorkspaceIndexer.sync`` on the store's thread like any request.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from pathlib import Path
from typing import Callable

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

log = logging.getLogger("agentmemd.watcher")


class _Collector(FileSystemEventHandler):
    def __init__(self, relative: Callable[[str], str | None], wake: Callable[[], None]):
        self._relative = relative
        self._wake = wake
        self._lock = threading.Lock()
        self.paths: set[str] = set()
        self.rescan = False  # a directory moved or vanished: compare every file

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed", "closed_no_write"):
            return
        found = False
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            if not raw:
                continue
            raw = raw.decode() if isinstance(raw, bytes) else raw
            rel = self._relative(raw)
            with self._lock:
                if event.is_directory and event.event_type in ("moved", "deleted"):
                    self.rescan = True
                    found = True
                elif rel is not None:
                    self.paths.add(rel)
                    found = True
        if found:
            self._wake()

    def take(self) -> tuple[set[str], bool]:
        with self._lock:
            paths, rescan = self.paths, self.rescan
            self.paths, self.rescan = set(), False
        return paths, rescan


class WorkspaceWatcher:
    def __init__(self, root: Path, relative: Callable[[str], str | None], debounce_ms: int):
        self.root = root
        self.debounce = debounce_ms / 1000
        self._event = asyncio.Event()
        loop = asyncio.get_running_loop()
        self._collector = _Collector(relative, lambda: loop.call_soon_threadsafe(self._event.set))
        self._observer = Observer()
        self._observer.schedule(self._collector, str(root), recursive=True)

    def start(self) -> None:
        self._observer.start()

    def stop(self) -> None:
        self._observer.stop()
        self._observer.join(timeout=5)

    async def changes(self):
        """Yield (paths, rescan) after each burst of events has gone quiet."""
        while True:
            await self._event.wait()
            self._event.clear()
            while True:  # quiet period: restart it while events keep coming
                try:
                    await asyncio.wait_for(self._event.wait(), self.debounce)
                    self._event.clear()
                except asyncio.TimeoutError:
                    break
            paths, rescan = self._collector.take()
            if paths or rescan:
                yield paths, rescan
