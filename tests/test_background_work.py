"""Background work yields to requests: the episode and compaction workers run as background
threads, their embeddings wait behind a request's, a chunk of long texts is short, their Python
waits between steps while a request is served, and what their forward passes freed goes back to
the system (in-process)."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from unittest import mock

import numpy as np
import pytest
from conftest import NO_JOBS
from inprocess import HashEmbedder, InProcessDaemon

import agentmemd.memory.core.threads as threads_module
from agentmemd.memory.core.threads import (
    background_result,
    become_background,
    in_background,
    result_within,
    return_freed_memory,
    serving_request,
    yield_to_requests,
    yielding,
)
from agentmemd.memory.retrieval.embeddings import EMBED_CHUNK, EMBED_CHUNK_CHARS, BatchedEmbedder, _chunks, _Turns

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)


class GatedEmbedder(BatchedEmbedder):
    """A model whose forward passes are noted in order; the first waits for ``release``."""

    name = "gated"
    dim = 4

    def __init__(self) -> None:
        super().__init__(query_cache_size=0, workers=1)
        self.passes: list[str] = []
        self.first_started = threading.Event()
        self.release = threading.Event()

    def _encode(self, texts, *, query=False, low_precision=False):
        if not self.passes:
            self.passes.append(texts[0])
            self.first_started.set()
            assert self.release.wait(30)
        else:
            self.passes.append(texts[0])
        return np.ones((len(texts), self.dim), dtype=np.float32) / 2

    def _windows(self, text):
        return [text]


def test_a_requests_text_goes_before_background_chunks_waiting_for_the_model():
    """An import's episodes were embedded in chunks that a memory.add waited behind, each in turn
    (adds waited up to 1.1 s during a 10,000-message import)."""
    model = GatedEmbedder()
    background = threading.Thread(
        target=lambda: (become_background(), model.embed([f"episode {i}" for i in range(3 * EMBED_CHUNK)]))
    )
    background.start()
    assert model.first_started.wait(30)  # the first chunk holds the model; two more wait in the pool
    request = threading.Thread(target=model.embed, args=(["the memory a request adds"],))
    request.start()
    deadline = time.monotonic() + 30
    while model._turns._urgent_waiting == 0:  # the request is waiting for its turn
        assert time.monotonic() < deadline
        time.sleep(0.005)
    model.release.set()
    request.join(30)
    background.join(30)
    assert len(model.passes) == 4
    assert model.passes[1] == "the memory a request adds"


def test_a_chunk_of_long_texts_holds_fewer_of_them():
    short = ["x" * 50] * 40
    assert [len(c) for c in _chunks(short)] == [16, 16, 8]
    long = ["y" * 2000, "y" * 1000, "y" * 1000, "y" * 300, "y" * 300, "y" * 300, "y" * 300]
    chunks = _chunks(long)
    assert chunks[0] == [0]  # a text past the budget is a chunk of its own
    for chunk in chunks:
        assert len(chunk) <= EMBED_CHUNK
        assert len(chunk) == 1 or len(long[chunk[0]]) * len(chunk) <= EMBED_CHUNK_CHARS
    assert sorted(i for c in chunks for i in c) == list(range(len(long)))


class NotingEmbedder(HashEmbedder):
    """The fake embedder, noting whether each call came from background work."""

    def __init__(self) -> None:
        self.background: list[bool] = []

    def embed(self, texts):
        self.background.append(in_background())
        return super().embed(texts)


def test_the_episode_and_compaction_workers_are_background_work_and_requests_are_not(short_tmp):
    embedder = NotingEmbedder()
    d = InProcessDaemon(short_tmp / "d", {"jobs": NO_JOBS}, embedder=embedder)
    try:
        d.call("memory.add", {"content": "A request's own memory.", "type": "fact"})
        assert embedder.background == [False]
        embedder.background.clear()
        session = "bg-1"
        for text in ("I moved to Lisbon in May.", "The flat is near the river.", "My sister visits in June."):
            d.call("conversation.append", {"session": session, "role": "user", "content": text})
        deadline = time.monotonic() + 30
        while d.call("conversation.status", {"session": session})["episodes_pending"]:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        assert embedder.background and all(embedder.background)  # the episode worker's
        embedder.background.clear()
        d.call("conversation.observe", {"session": session, "force": True})
        assert embedder.background and all(embedder.background)  # the Observer's, on the compaction worker
    finally:
        d.terminate()


def test_returning_freed_memory_is_safe_to_call_any_time():
    return_freed_memory()  # glibc's malloc_trim here; nothing where there is none
    return_freed_memory()


def test_a_job_someone_asked_for_runs_as_background_work(short_tmp):
    """jobs.run ran the consolidation on the request's thread, its node embeddings as urgent as a
    request's: a memory.add beside it waited 1.5 s."""
    embedder = NotingEmbedder()
    d = InProcessDaemon(short_tmp / "d", {"jobs": NO_JOBS}, embedder=embedder)
    try:
        topics = ("hiking", "cooking", "garden")
        d.call(
            "memory.add_many",
            {
                "items": [
                    {"content": f"The user talked about {topics[i % 3]}, detail {i}.", "type": "fact"}
                    for i in range(60)
                ]
            },
        )
        embedder.background.clear()
        assert d.call("jobs.run", {"name": "consolidate"})["status"] == "ok"
        assert embedder.background and all(embedder.background)
    finally:
        d.terminate()


def test_while_requests_come_background_work_leaves_a_model_turn_free():
    """During an import both cores ran background forward passes and every pack and add beside
    them waited for a core; with requests coming, background work holds all turns but one."""
    turns = _Turns(2)
    held_together = threading.Event()

    def second_background_chunk() -> None:
        with turns.hold(urgent=False):
            held_together.set()

    # No request lately: background work may have every turn.
    with turns.hold(urgent=False):
        both = threading.Thread(target=second_background_chunk)
        both.start()
        assert held_together.wait(30)
    both.join(30)
    # A request's turn just ended (as far as the turns can tell, for the next hour).
    turns._last_request = time.monotonic() + 3600
    held_together.clear()
    with turns.hold(urgent=False):
        waiting = threading.Thread(target=second_background_chunk)
        waiting.start()
        assert not held_together.wait(0.3)  # the second turn stays free for a request
        with turns.hold(urgent=True):  # which takes it at once
            pass
    assert held_together.wait(30)  # and the background chunk goes on once the first is done
    waiting.join(30)


def _until(predicate, what: str) -> None:
    deadline = time.monotonic() + 30
    while not predicate():
        assert time.monotonic() < deadline, what
        time.sleep(0.005)


def _background(work) -> tuple[threading.Thread, threading.Event]:
    done = threading.Event()
    thread = threading.Thread(target=lambda: (become_background(), work(), done.set()))
    thread.start()
    return thread, done


def test_background_work_waits_between_its_steps_while_a_request_is_served():
    """Niceness gave a request the cores but not the interpreter: an impression rebuilt beside an
    import held the GIL, and packs took 150-250 ms against 15 ms idle."""
    with serving_request():
        thread, done = _background(lambda: yield_to_requests(longest=60))
        _until(lambda: thread.ident in yielding(), "the background thread waits for the request")
        assert not done.is_set()
        t = time.monotonic()
        yield_to_requests(longest=60)  # a request's own thread never waits
        assert time.monotonic() - t < 30
    assert done.wait(30)  # the request served, it goes on
    thread.join(30)
    assert thread.ident not in yielding()


def test_a_stream_of_requests_slows_background_work_but_never_stops_it():
    with serving_request():
        thread, done = _background(lambda: [yield_to_requests(longest=0.01) for _ in range(3)])
        assert done.wait(30)
    thread.join(30)


def test_background_work_waits_for_the_requests_served_when_it_yields_not_for_later_ones():
    """Under a stream of requests there is always one in flight: waiting for none at all would
    stop the Observer and the episodes for as long as the stream lasts."""
    first_answered, later_answered, later_started = threading.Event(), threading.Event(), threading.Event()

    def request(answered: threading.Event, started: threading.Event | None = None) -> None:
        with serving_request():
            if started is not None:
                started.set()
            assert answered.wait(30)

    first = threading.Thread(target=request, args=(first_answered,))
    first.start()
    _until(lambda: threads_module._serving, "the first request is being served")
    thread, done = _background(lambda: yield_to_requests(longest=60))
    _until(lambda: thread.ident in yielding(), "the background thread waits for the first request")
    later = threading.Thread(target=request, args=(later_answered, later_started))
    later.start()
    assert later_started.wait(30)
    first_answered.set()
    assert done.wait(30)  # the later request is still being served
    later_answered.set()
    for t in (first, later, thread):
        t.join(30)


def test_background_work_runs_a_while_between_waits():
    """A step of a few microseconds (a word counted) does not wait each time: a request meets at
    most YIELD_EVERY of background work, and the work moves on."""
    waits = []

    def work() -> None:
        yield_to_requests(longest=0.01)  # waits, and the request is still served after it
        t = time.monotonic()
        yield_to_requests(longest=60)  # within YIELD_EVERY of the last wait: goes on at once
        waits.append(time.monotonic() - t)

    with serving_request(), mock.patch.object(threads_module, "YIELD_EVERY", 3600):
        thread, done = _background(work)
        assert done.wait(30)
    thread.join(30)
    assert waits[0] < 30


def test_a_request_waiting_for_background_work_is_not_served_while_it_waits():
    """jobs.run and an Observer run a request asked for: what it waits for must not wait for it."""
    with serving_request():
        ran = threading.Event()

        def job() -> None:
            yield_to_requests(longest=60)
            ran.set()

        with ThreadPoolExecutor(1, initializer=become_background) as jobs:
            background_result(jobs.submit(job))
            assert ran.is_set()
            assert result_within(jobs.submit(job), 30, "the job waited for the request waiting for it") is None


class HeldQueryEmbedder(HashEmbedder):
    """A fake model whose query "held" waits for ``release``: a request in flight for as long as a
    test wants."""

    def __init__(self) -> None:
        self.held = threading.Event()
        self.release = threading.Event()

    def embed_query(self, text: str) -> np.ndarray:
        if text == "held":
            self.held.set()
            assert self.release.wait(30)
        return super().embed_query(text)


def test_an_impression_rebuilt_beside_a_request_waits_for_it(short_tmp):
    """The rebuild that stalled packs during an import: 200 messages split into sentences and
    counted, in Python, on the compaction worker. Over the Dispatcher, a request in flight makes it
    wait; once the request is answered the impression is built."""
    embedder = HeldQueryEmbedder()
    d = InProcessDaemon(short_tmp / "d", {"jobs": NO_JOBS}, embedder=embedder)
    try:
        lines = [("Ana", f"Day {i}: the bakery on Rua Augusta had fresh pastries again.") for i in range(40)]
        messages = [
            {"sender": who, "sender_id": f"id-{who}", "ts": 1710234940 + 60 * i, "text": text, "line": i + 1}
            for i, (who, text) in enumerate(lines)
        ]
        session = d.call(
            "channels.ingest",
            {"channel": "telegram", "chat_id": "telegram:ana", "title": "ana", "kind": "private",
             "messages": messages, "owner": "id-Me"},
        )["sessions"][0]  # fmt: skip
        request = threading.Thread(target=d.call, args=("memory.search", {"query": "held"}))
        request.start()
        assert embedder.held.wait(30)
        with mock.patch("agentmemd.memory.core.threads.YIELD_LONGEST", 60):
            rebuild, done = _background(lambda: d.services.channels.refresh_impressions(session))
            _until(lambda: rebuild.ident in yielding(), "the rebuild waits for the request in flight")
            assert not done.is_set()
            embedder.release.set()
            request.join(30)
            assert done.wait(30)
        rebuild.join(30)
        ana = d.call("people.list", {})["people"][0]["id"]
        assert d.call("people.get", {"person": ana})["impressions"]
    finally:
        embedder.release.set()
        d.terminate()


def test_a_stopping_daemons_observer_stops_between_runs_and_the_rest_is_due_at_start(in_process):
    """A forced observe of an imported chat went on run after run while the daemon stopped (26-40 s
    between 'shutting down' and 'stopped', near systemd's 60 s before SIGKILL): it stops after the
    run in progress, and what is still due is found due at the next start."""
    d = in_process(
        {"conversation": {"observer_batch_tokens": 200, "observer_threshold_tokens": 100}}, fake_embedder=True
    )
    for i in range(40):
        d.call("conversation.append", {"session": "big", "role": "user", "content": f"Day {i}: the garden's tomatoes grew again, and the beans too."})  # fmt: skip
    worker = d.services.worker
    worker._stopping.set()
    try:
        report = worker.compact(_key(d, "big"), force=True)
    finally:
        worker._stopping.clear()
    assert report["observe_runs"] == [] and report["reflect_runs"] == []
    assert _key(d, "big") in d.run_on_store(d.services.conversations.conversations.recover)


def _key(d, name: str) -> str:
    from agentmemd.memory.core.sessions import session_key

    return session_key("default", name)
