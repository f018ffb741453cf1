"""A door the daemon started stops with it: ``agentmemd serve`` starts its configured doors
(daemon/host/door_children.py) with ``AGENTMEMD_PARENT_PID`` set to its own pid, and each door
watches for the day its parent is no longer that process. A daemon stopped by SIGTERM stops its
doors itself; one killed (kill -9, the OOM killer, a crash) leaves them reparented, and they then
stop within a couple of seconds instead of holding their ports and talking to a dead socket.
A door a person started by hand has no such variable and is left alone."""

from __future__ import annotations

import logging
import os
import signal
import threading
import time

log = logging.getLogger("agentmemd")
PARENT_PID = "AGENTMEMD_PARENT_PID"
CHECK_SECONDS = 1.0
GRACE_SECONDS = 10.0  # after SIGTERM to itself, a door that is still up exits hard


def parent_environment() -> dict[str, str]:
    """The environment a door child starts with: this one, and who its parent is."""
    return {**os.environ, PARENT_PID: str(os.getpid())}


def stop_with_parent() -> threading.Thread | None:
    """In a door: watch the parent named by ``AGENTMEMD_PARENT_PID`` (if any) and stop this process
    (SIGTERM, so the server shuts down as on any stop; a hard exit if that takes too long) once it
    is gone. The watching thread, or None when there is no parent to watch."""
    expected = os.environ.get(PARENT_PID, "")
    if not expected.isdigit():
        return None
    watcher = threading.Thread(target=_watch, args=(int(expected),), name="parent-watch", daemon=True)
    watcher.start()
    return watcher


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(CHECK_SECONDS)
    log.warning("the daemon that started this door is gone; stopping", extra={"parent_pid": parent})
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(GRACE_SECONDS)
    os._exit(1)
