"""The daemon: data-dir lock, Unix socket (0600), NDJSON JSON-RPC, clean shutdown.

Every write runs on one store thread that owns the writer connection, so writes are
serialised; read-only methods run on reader threads, each with a read-only connection
(WAL: they read committed state beside the writer). A crash in a handler is an error
response, never a dead daemon.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import logging
import os
import signal
import socket
import stat
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path

from threadpoolctl import threadpool_limits

from agentmemd.daemon import __version__
from agentmemd.daemon.host import door_children
from agentmemd.daemon.services.app import Services
from agentmemd.daemon.socket.codes import INVALID_REQUEST
from agentmemd.daemon.socket.methods import build_methods
from agentmemd.daemon.socket.peer import peer_door
from agentmemd.daemon.socket.rpc import (
    Caller,
    Dispatcher,
    RpcError,
    encode,
    error_response,
)
from agentmemd.memory.core.clock import ManualClock, format_time
from agentmemd.memory.core.config import Config, redact
from agentmemd.memory.core.errors import StartupError, StoreUnavailable, store_retry_delay
from agentmemd.memory.core.models import ProcessFacts
from agentmemd.memory.core.threads import background_result, become_background
from agentmemd.memory.retrieval.clustering import load_clustering_libraries
from agentmemd.memory.store.opening import DB_FILE, DataDirInUse, DataDirLock
from agentmemd.memory.workspace.watcher import WorkspaceWatcher

log = logging.getLogger("agentmemd")
MAX_SOCKET_PATH = 107  # sun_path is 108 bytes including the NUL


# How long the ready line waits for the doors it started to answer; how often a door's process is looked at.
DOOR_START_SECONDS = 30.0
DOOR_POLL_SECONDS = 1.0


async def _accepts(host: str, port: int) -> bool:
    try:
        _, writer = await asyncio.wait_for(asyncio.open_connection(host, port), 1.0)
    except (OSError, asyncio.TimeoutError):
        return False
    writer.close()
    return True


def _where(facts: ProcessFacts) -> dict:
    """What the listening and ready lines say of where the daemon runs."""
    return {
        "socket": facts.socket,
        "data_dir": facts.data_dir,
        "workspace": facts.workspace,
        "store": facts.store,
        "version": __version__,
        "pid": facts.pid,
    }


def _load_clustering_libraries() -> None:
    began = time.perf_counter()
    load_clustering_libraries()
    log.info("consolidation's libraries loaded", extra={"seconds": round(time.perf_counter() - began, 2)})


def _log_failure(message: str):
    def done(future: asyncio.Future) -> None:
        if not future.cancelled() and future.exception() is not None:
            log.error(message, extra={"error": repr(future.exception())})

    return done


GIL_SWITCH_SECONDS = 0.001  # sys.setswitchinterval for the daemon (why: in serve)


def prepare_socket_path(path: Path) -> None:
    if len(os.fsencode(path)) > MAX_SOCKET_PATH:
        raise StartupError(
            f"socket path is {len(os.fsencode(path))} bytes; Unix sockets allow {MAX_SOCKET_PATH}: {path}"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    if not os.path.lexists(path):
        return
    if not stat.S_ISSOCK(os.lstat(path).st_mode):
        raise StartupError(f"{path} exists and is not a socket; refusing to replace it")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(str(path))
    except OSError:
        os.unlink(path)  # stale: left by a daemon that died without cleaning up
        return
    finally:
        probe.close()
    raise StartupError(f"another daemon is already listening on {path}")


class Daemon:
    def __init__(self, config: Config, data_dir: Path, socket_path: Path, workspace: Path | None = None):
        self.config = config
        self.data_dir = Path(data_dir)
        self.socket_path = Path(socket_path)
        chosen = workspace or (config.workspace.path or None)
        self.workspace = Path(chosen).resolve() if chosen else None  # ~ read by the CLI and the config
        self.lock = DataDirLock(self.data_dir)
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="agentmemd-store")
        # Requests that wait on background work (conversation.observe) wait here, not on the store thread.
        # Writes that prepare first (memory.add embeds) prepare here too: eight, so adds never use up the
        # threads a conversation.observe waits on.
        self.wait_executor = ThreadPoolExecutor(max_workers=8, thread_name_prefix="agentmemd-wait")
        # Read-only methods (search, pack, ...) run here, each thread on its own read-only connection.
        self.read_executor = ThreadPoolExecutor(
            max_workers=config.server.reader_threads, thread_name_prefix="agentmemd-read"
        )
        # Workspace syncs read, parse and embed here, one at a time; only their commit runs on the store thread.
        self.sync_executor = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="agentmemd-sync", initializer=become_background
        )
        # Scheduled jobs and their catch-up run here; their SQLite steps hop to the store thread.
        self.jobs_executor = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="agentmemd-jobs", initializer=become_background
        )
        self.services: Services | None = None
        self._connections: set[asyncio.Task] = set()
        self._inflight = 0
        self._stop = asyncio.Event()
        self._scheduler = None  # started once the start-up catch-up is done
        # The doors `[dashboard|proxy|mcp] listen` asks for, as child processes (checked before anything opens).
        self.doors = door_children.configured_doors(config, self.socket_path, self.data_dir)
        self._started = format_time(datetime.now(timezone.utc))

    def open(self) -> None:
        # One BLAS thread per computation: parallelism comes from requests side by side. OpenBLAS's
        # second thread spins after each of a pack's small matrix products: with one client it
        # burned half a core for nothing (bench load: 1.58 -> 1.10 cores, same throughput).
        threadpool_limits(1, user_api="blas")
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)  # memories are private
            self.lock.acquire()
        except DataDirInUse as exc:
            raise StartupError(exc.message) from None
        except OSError as exc:  # a read-only or someone else's folder, a file: one line, not a traceback
            raise StartupError(f"cannot use data dir {self.data_dir}: {exc.strerror} ({exc.filename})") from None
        if self.config.store.url and (self.data_dir / DB_FILE).is_file():
            log.warning(
                "this data dir holds a SQLite store that this daemon does not use: its memory is in PostgreSQL; "
                "to bring that store's memories over: agentmemd export FILE --data-dir DIR, then "
                "agentmemd import-store FILE --store-url URL (docs/postgres.md)",
                extra={"sqlite_store": str(self.data_dir / DB_FILE), "store": redact(self.config.store.url)},
            )
        try:
            prepare_socket_path(self.socket_path)
            if self.workspace is not None and not self.workspace.is_dir():
                raise StartupError(f"workspace {self.workspace} is not a directory")
            self.services = Services.open(
                self.config,
                self.data_dir,
                workspace=self.workspace,
                run_on_store=self._run_on_store,
                run_in_background=self._run_in_background,
                load_model_later=True,
            )
        except PermissionError as exc:
            self.lock.release()
            raise StartupError(f"cannot use data dir {self.data_dir}: {exc.strerror} ({exc.filename})") from None
        except BaseException:
            self.lock.release()
            raise
        self.services.process_facts = self.facts

    def facts(self) -> ProcessFacts:
        """What health reports of this process: its pid, paths and the doors it started."""
        return ProcessFacts(
            pid=os.getpid(),
            started=self._started,
            data_dir=str(self.data_dir.resolve()),
            socket=str(self.socket_path.resolve()),
            workspace=str(self.workspace.resolve()) if self.workspace else None,
            doors=[door.state() for door in self.doors],
            store=redact(self.config.store.url) if self.config.store.url else "sqlite",
        )

    async def _announce_ready(self, loop: asyncio.AbstractEventLoop) -> None:
        """The one line that says the daemon is ready: once the model is loaded (requests that need
        it are answered at once) and the doors it started answer on their ports, or gave up."""
        assert self.services is not None
        try:
            load_seconds = await loop.run_in_executor(None, self.services.wait_for_model)
        except Exception as exc:  # health says model_failed; requests that do not embed are still answered
            log.error("not ready: the embedding model did not load", extra={"error": str(exc)})
            return
        finally:
            # What start-up made (the model and torch: hundreds of thousands of objects) lives as long
            # as the daemon. Frozen, Python's full collections leave it alone: each took ~250 ms
            # holding the GIL, every 20-30 s while an import or the Observer allocates, stalling every
            # request. Until now the collector was off (``serve``); the ~6,500 objects of start-up's
            # garbage it would have found are frozen with the rest (~1 MB, once).
            gc.freeze()
            gc.enable()
        await self._doors_answering()
        facts = self.facts()
        model = {"name": self.config.embedding.model, "load_seconds": round(load_seconds or 0.0, 2)}
        doors = [door.model_dump() for door in facts.doors]
        log.info("ready", extra={**_where(facts), "model": model, "doors": doors})
        if sys.stderr.isatty():  # a person watching: one plain line besides the JSON
            links = "".join(f"; {door['name']} {door['url']}" for door in doors)
            print(
                f"agentmemd {__version__} ready: socket {facts.socket}, data {facts.data_dir}{links}", file=sys.stderr
            )
        # Consolidation's libraries (scikit-learn's mixtures: ~0.7 s of imports holding the GIL)
        # load now, on the jobs thread, where a consolidation is scheduled: imported by the first
        # scheduled run, they stalled every request beside it (packs up to 270 ms against 80 ms
        # once loaded). Without a schedule, the run someone asks for imports them, and a daemon
        # that never consolidates is spared the import and its ~85 MB.
        if self.services.runner.triggers.get("consolidate") is None:
            return
        try:
            await loop.run_in_executor(self.jobs_executor, _load_clustering_libraries)
        except Exception as exc:  # consolidation will say why when it runs
            log.warning("consolidation's libraries did not load", extra={"error": str(exc)})
        gc.freeze()

    async def _doors_answering(self, timeout: float = DOOR_START_SECONDS) -> None:
        """Wait until each door started accepts connections on its port, has exited, or ``timeout`` passed."""
        deadline = time.monotonic() + timeout
        waiting = list(self.doors)
        while waiting and time.monotonic() < deadline:
            still = []
            for door in waiting:
                if door.running and not await _accepts(*door.address()):
                    still.append(door)
            waiting = still
            if waiting:
                await asyncio.sleep(0.1)

    async def _supervise_doors(self) -> None:
        """A door whose process exited is started again, a bounded number of times (door_children)."""
        while True:
            await asyncio.sleep(DOOR_POLL_SECONDS)
            for door in self.doors:
                if self._stop.is_set() or door.given_up or door.proc is None or door.proc.poll() is None:
                    continue
                delay = door_children.restart_delay(door)
                if delay is not None:
                    await asyncio.sleep(delay)
                    if not self._stop.is_set():
                        door_children.start(door)

    def _note_use(self, caller: Caller, method: str) -> None:
        """A token's admitted call: noted in memory, written on the store thread when due (at most
        once a minute per token), never waited for."""
        assert self.services is not None
        if self.services.access.note_use(caller.scope, caller.door(), method):
            written = asyncio.get_running_loop().run_in_executor(self.executor, self.services.access.write_uses)
            written.add_done_callback(_log_failure("writing access tokens' last use failed"))

    def _run_on_store(self, fn):
        """Run ``fn`` on the store thread and wait for it (called from other threads only)."""
        return self.executor.submit(fn).result()

    def _run_in_background(self, fn):
        """Run ``fn`` on the jobs thread (background work, niced) and wait for it."""
        return background_result(self.jobs_executor.submit(fn))

    async def serve(self) -> None:
        # A request's thread gives up the GIL at every SQLite call and numpy step and then waits for
        # it behind a background thread running Python (the Observer, an impression): up to the
        # switch interval each time, 5 ms by default, which made a pack of ~100 such steps take
        # 300-900 ms during an import. At 1 ms the wait is a fifth.
        sys.setswitchinterval(GIL_SWITCH_SECONDS)
        # Start-up runs without Python's cyclic collector, as gc.freeze's docs advise before a freeze:
        # its collections walked every object torch's import and the model were making, 0.32 s of a
        # 1.2 s load, and found next to nothing to free. ``_announce_ready`` turns it back on.
        gc.disable()
        self.open()
        services = self.services
        assert services is not None
        dispatcher = Dispatcher(
            build_methods(services),
            self.executor,
            self.wait_executor,
            services.access.admit,
            self.read_executor,
            self._note_use,
        )
        loop = asyncio.get_running_loop()
        watcher = None
        if services.indexer is not None:
            # Watching starts before the catch-up, so a save made during it is not missed.
            watcher = WorkspaceWatcher(
                services.indexer.root, services.indexer.relative, self.config.workspace.debounce_ms
            )
            watcher.start()
            services.catching_up.add("workspace")
        services.catching_up.add("jobs")
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self._stop.set)
        old_umask = os.umask(0o177)  # the socket is born 0600: no window where others can connect
        try:
            server = await asyncio.start_unix_server(
                lambda r, w: self._track(self._client(r, w, dispatcher)), path=str(self.socket_path)
            )
        finally:
            os.umask(old_umask)
        os.chmod(self.socket_path, 0o600)
        services.start_model()  # health answers "starting" until it is loaded
        for door in self.doors:
            door_children.start(door)
        supervising = asyncio.create_task(self._supervise_doors())
        announcing = asyncio.create_task(self._announce_ready(loop))
        # Observer/Reflector runs a crash interrupted are redone: their sessions are looked at again.
        recovery = loop.run_in_executor(self.executor, services.recover)
        recovery.add_done_callback(_log_failure("conversation recovery failed"))
        catching_up = asyncio.create_task(self._catch_up(loop))
        indexing = asyncio.create_task(self._index_changes(watcher)) if watcher else None
        # Health answers "starting" from here; the "ready" line follows once the model is loaded.
        facts = self.facts()
        log.info("listening", extra=_where(facts))
        try:
            await self._stop.wait()
        finally:
            log.info("shutting down")
            gc.enable()  # if it stops before it was ready
            announcing.cancel()
            supervising.cancel()
            await asyncio.gather(*(loop.run_in_executor(None, door_children.stop, door) for door in self.doors))
            catching_up.cancel()
            if self._scheduler is not None:
                self._scheduler.shutdown(wait=False)
            if indexing is not None:
                indexing.cancel()
            if watcher is not None:
                watcher.stop()
            server.close()
            await server.wait_closed()
            await loop.run_in_executor(None, services.stop_workers)
            # No new connections now; let requests in flight finish their writes,
            # then drop the idle connections.
            for _ in range(1000):
                if not self._inflight:
                    break
                await asyncio.sleep(0.01)
            for task in list(self._connections):
                task.cancel()
            await asyncio.gather(*self._connections, return_exceptions=True)
            self.sync_executor.shutdown(wait=True)
            self.jobs_executor.shutdown(wait=True)
            self.read_executor.shutdown(wait=True)
            self.executor.submit(services.access.write_uses)  # the tokens' uses noted since the last write
            self.executor.shutdown(wait=True)
            self.wait_executor.shutdown(wait=False, cancel_futures=True)
            self.close()
            log.info("stopped")

    def close(self) -> None:
        if self.services is not None:
            self.services.store.close()
            self.services = None
        try:
            os.unlink(self.socket_path)
        except FileNotFoundError:
            pass
        self.lock.release()

    def _track(self, coro) -> asyncio.Task:
        task = asyncio.ensure_future(coro)
        self._connections.add(task)
        task.add_done_callback(self._connections.discard)
        return task

    def _start_scheduler(self, loop: asyncio.AbstractEventLoop):
        """apscheduler fires each job at its cron times on the system clock. A manual clock
        has no real-time schedule: `clock.advance` runs the jobs that became due."""
        assert self.services is not None
        runner = self.services.runner
        if isinstance(self.services.memories.clock, ManualClock) or not runner.triggers:
            return None
        from apscheduler.schedulers.asyncio import AsyncIOScheduler

        scheduler = AsyncIOScheduler(event_loop=loop, timezone=runner.zone)

        async def fire() -> None:
            await self._when_the_store_takes_it(loop, runner.run_due, "scheduled jobs", self.jobs_executor)

        for name, trigger in runner.triggers.items():
            # The runner decides what is due (from job_state), so a late or doubled fire
            # never runs a job twice for one fire time.
            scheduler.add_job(
                fire, trigger, id=name, name=name, max_instances=1, coalesce=True, misfire_grace_time=None
            )
        scheduler.start()
        return scheduler

    async def _catch_up(self, loop: asyncio.AbstractEventLoop) -> None:
        """After the socket opens: index what was edited while the daemon was down, run once the
        jobs whose time passed meanwhile, then start the schedule. ``health`` lists what is left.
        Each step prepares beside the store thread and commits in short batches, so requests are
        answered throughout; a failed step is logged and the daemon serves anyway."""
        services = self.services
        assert services is not None
        if services.indexer is not None:
            indexer = services.indexer
            report = await self._when_the_store_takes_it(loop, indexer.catch_up, "workspace catch-up")
            if report is not None:
                log.info("workspace caught up", extra=report.as_dict())
            services.catching_up.discard("workspace")
        await self._when_the_store_takes_it(loop, services.runner.catch_up, "job catch-up", self.jobs_executor)
        services.catching_up.discard("jobs")
        self._scheduler = self._start_scheduler(loop)

    async def _when_the_store_takes_it(self, loop: asyncio.AbstractEventLoop, work, what: str, executor=None):
        """``work()`` on ``executor`` (the sync thread by default), done again after
        ``store_retry_delay`` while the store refuses writes (a full disk, a server gone): once the
        disk has room nothing else may come to start it again, and a job missed would wait for its
        next time. Its result; None when it failed otherwise (logged) or the daemon stopped."""
        refusals = 0
        while not self._stop.is_set():
            try:
                return await loop.run_in_executor(executor or self.sync_executor, work)
            except StoreUnavailable as exc:
                refusals += 1
                delay = store_retry_delay(refusals)
                log.warning(f"{what} waits for the store", extra={"reason": exc.message, "retry_in_s": delay})
                try:
                    await asyncio.wait_for(self._stop.wait(), delay)
                except TimeoutError:
                    pass
            except Exception:
                log.exception(f"{what} failed")
                return None
        return None

    async def _index_changes(self, watcher: WorkspaceWatcher) -> None:
        loop = asyncio.get_running_loop()
        indexer = self.services.indexer if self.services else None
        assert indexer is not None
        async for paths, rescan in watcher.changes():
            if rescan:
                await self._when_the_store_takes_it(loop, indexer.catch_up, "workspace sync")
            if paths:
                synced = functools.partial(indexer.sync, sorted(paths))
                await self._when_the_store_takes_it(loop, synced, f"workspace sync of {len(paths)} file(s)")

    async def _answer(self, line: bytes, dispatcher: Dispatcher, reply, caller: Caller) -> None:
        self._inflight += 1
        try:
            response = await dispatcher.handle_line(line, caller)
        finally:
            self._inflight -= 1
        if response is not None:
            await reply(response)

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, dispatcher: Dispatcher) -> None:
        limit = self.config.server.max_line_bytes
        buffer = bytearray()
        discarding = False  # inside an over-long line: drop bytes until its newline
        # The owner's (the socket is 0600) until an `auth` call scopes it; its door asked when first needed.
        caller = Caller(door=functools.cache(functools.partial(peer_door, writer.get_extra_info("socket"))))

        async def reply(data: bytes) -> None:
            writer.write(data)
            await writer.drain()

        too_long = encode(
            error_response(None, RpcError(INVALID_REQUEST, f"invalid request: line exceeds max_line_bytes ({limit})"))
        )
        try:
            while not self._stop.is_set():
                chunk = await reader.read(65536)
                if not chunk:
                    # The client half-closed: a last request without its newline still gets its answer.
                    if buffer.strip() and not discarding and len(buffer) <= limit:
                        await self._answer(bytes(buffer), dispatcher, reply, caller)
                    break
                buffer += chunk
                while True:
                    newline = buffer.find(b"\n")
                    if newline < 0:
                        if len(buffer) > limit:
                            if not discarding:
                                await reply(too_long)
                                discarding = True
                            buffer.clear()
                        break
                    line = bytes(buffer[:newline])
                    del buffer[: newline + 1]
                    if discarding:
                        discarding = False
                        continue
                    if len(line) > limit:
                        await reply(too_long)
                        continue
                    if line.strip():
                        await self._answer(line, dispatcher, reply, caller)
        except (ConnectionResetError, BrokenPipeError):
            pass
        finally:
            writer.close()
            try:
                await writer.wait_closed()
            except (ConnectionResetError, BrokenPipeError):
                pass
