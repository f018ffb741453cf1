"""The background worker: the Observer and Reflector (with the persona track of dual-track
compaction, seed 002 5.2) and the SyncScore judge of assistant turns (5.3).

One thread, one FIFO queue. ``conversation.append`` only asks for a session to be looked
at or a turn to be scored; the worker then calls the provider off the store thread and
hands every SQLite step to ``run_on_store`` (the daemon's single store thread, or a direct
call when used as a library). Runs of one session never overlap, since there is one worker,
and a turn's score is in before a later compaction decides which turns shape the persona.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections import deque
from concurrent.futures import Future
from typing import Any, Callable

from agentmemd.memory.conversation.conversations import ChangedWhileRead, Conversations
from agentmemd.memory.core.errors import Conflict, StoreUnavailable
from agentmemd.memory.core.threads import RunOnStore, become_background, return_freed_memory, yield_to_requests
from agentmemd.memory.llm.cache import ResponseCache
from agentmemd.memory.llm.tasks import OBSERVE, REFLECT, LanguageModel, ObserveResult, TaskSpec

log = logging.getLogger("agentmemd")
INDEXING_POLL_SECONDS = 0.2
EDITED_RETRIES = 5  # Observer or Reflector runs redone in a row because what they read changed meanwhile
# Observed sessions whose people's impressions may wait for the queue to empty. An import queues
# every finished session of a chat: each would rebuild the same two people's impressions from
# their last 200 messages (90 % of the worker's time in an import), where once at the end will do.
IMPRESSIONS_DEFERRED_MAX = 64


class CompactionWorker:
    def __init__(
        self,
        conversations: Conversations,
        provider: LanguageModel,
        cache: ResponseCache | None,
        run_on_store: RunOnStore,
        *,
        target_ratio: float,
        persona=None,
        persona_model=None,
    ):
        self.conversations = conversations
        self.persona = persona  # PersonaTracker: the persona track and SyncScore (None: facts only)
        # PersonaModel: the persona's record and judge on this provider (persona/tracking/model.py)
        self.persona_model = persona_model
        self.provider = provider
        self.cache = cache
        self.run_on_store = run_on_store
        self.target_ratio = target_ratio
        # Called with sessions whose Observer runs stored observations (the people's impressions):
        # at once after a run asked for by a caller, when the queue is empty after queued runs.
        self.on_observed: Callable[..., Any] | None = None
        self._observed: dict[str, None] = {}  # queued runs' sessions, in order, waiting for on_observed
        # True while turns are being made searchable (the episode worker at work): a whole finished
        # session an import queued waits until then, so on a small machine an import's messages
        # become searchable first and its observations after (the two compete for the same cores).
        self.indexing: Callable[[], bool] = lambda: False
        self._queue: queue.Queue[tuple[str, str, dict[str, Any], Future] | None] = queue.Queue()
        self._queued: set[tuple[str, bool]] = set()
        self._deferred: deque[tuple[str, str, dict[str, Any], Future]] = deque()  # queued, waiting on indexing
        self._lock = threading.Lock()
        self._busy = threading.Event()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="agentmemd-compaction", daemon=True)
        self._thread.start()

    # ---- asking -----------------------------------------------------------------------

    def request(self, session: str, *, force: bool = False) -> None:
        """Look at this session soon (a threshold may have been crossed; ``force``: observe all
        its turns, as for a finished imported session); never waits."""
        with self._lock:
            if (session, force) in self._queued:
                return
            self._queued.add((session, force))
        self._queue.put(("compact", session, {"force": force, "reflect": False, "queued": True}, Future()))

    def run_now(self, session: str, *, force: bool, reflect: bool = False) -> Future:
        """Queue a run of this session; the Future gives its report."""
        future: Future = Future()
        self._queue.put(("compact", session, {"force": force, "reflect": reflect}, future))
        return future

    def score(self, **params: Any) -> Future:
        """Queue a SyncScore of one response (PersonaTracker.begin_score's params); the Future
        gives the stored score."""
        future: Future = Future()
        self._queue.put(("score", params.get("session") or "", params, future))
        return future

    def idle(self) -> bool:
        return self._queue.empty() and not self._deferred and not self._busy.is_set() and not self._observed

    def stop(self) -> None:
        """Finish the run in progress (its writes are one transaction), skip what is queued."""
        self._stopping.set()
        self._queue.put(None)
        self._thread.join(timeout=30)

    # ---- working ----------------------------------------------------------------------

    def _next(self) -> tuple[str, str, dict[str, Any], Future] | None:
        """The next task: a deferred one once indexing is done, else the queue's next (a task
        asked for while others wait on indexing runs at once)."""
        while True:
            if self._deferred and not self.indexing():
                return self._deferred.popleft()
            try:
                return self._queue.get(timeout=INDEXING_POLL_SECONDS if self._deferred else None)
            except queue.Empty:
                continue

    def _loop(self) -> None:
        become_background()
        while True:
            task = self._next()
            if task is None:
                return
            kind, session, params, future = task
            yield_to_requests()
            if self._stopping.is_set():
                future.cancel()
                continue
            if kind == "compact" and params.get("queued") and params["force"] and self.indexing():
                self._deferred.append(task)  # still in _queued: asking again adds nothing
                continue
            self._busy.set()
            if kind == "compact":
                with self._lock:
                    self._queued.discard((session, params["force"]))
            try:
                if kind == "compact":
                    queued = params.pop("queued", False)
                    report = self.compact(session, **params)
                    if report["observe_runs"]:
                        self._observed[session] = None
                    if not queued or len(self._observed) >= IMPRESSIONS_DEFERRED_MAX:
                        self._tell_observed()  # a caller waits for the impressions too
                    future.set_result(report)
                else:
                    future.set_result(self.score_response(params))
            except (Conflict, StoreUnavailable) as exc:  # another run got there first; the store is away
                log.info(f"{kind}: {exc.message}", extra={"session": session})
                future.set_exception(exc)
            except Exception as exc:
                if self._stopping.is_set():  # the daemon stopped under it (its threads shut): redone at the next start
                    log.info(f"{kind}: stopped with the daemon", extra={"session": session, "error": str(exc)})
                else:
                    log.exception(f"{kind} failed", extra={"session": session})
                future.set_exception(exc)
            finally:
                if self._queue.empty() and not self._deferred:
                    self._tell_observed()
                    return_freed_memory()
                self._busy.clear()

    def _tell_observed(self) -> None:
        """``on_observed`` with every session observed since it was last called."""
        sessions, self._observed = list(self._observed), {}
        if not sessions or self.on_observed is None:
            return
        try:
            self.on_observed(*sessions)
        except Exception:  # the observations are stored; an impression left stale is no failure of theirs
            log.exception("impression refresh failed", extra={"sessions": sessions[:10]})

    def compact(self, session: str, *, force: bool = False, reflect: bool = False) -> dict[str, Any]:
        """Observe until nothing is due (force: everything), then reflect if due (reflect: anyway)."""
        conv = self.conversations
        report: dict[str, Any] = {"session": session, "observe_runs": [], "reflect_runs": []}
        edited_meanwhile = 0
        while True:
            if self._stopping.is_set():  # the daemon stops: what is still due is found due again at start
                break
            job = self.run_on_store(lambda: conv.begin_observe(session, force=force))
            if job is None:
                break
            try:
                report["observe_runs"].append(self._observe(job))
            except ChangedWhileRead as exc:
                self._fail(job.run_id, exc)
                edited_meanwhile += 1
                if edited_meanwhile > EDITED_RETRIES:
                    raise
            except Exception as exc:
                self._fail(job.run_id, exc)
                raise
        for attempt in range(0 if self._stopping.is_set() else EDITED_RETRIES + 1):
            job = self.run_on_store(lambda: conv.begin_reflect(session, force=reflect))
            if job is None:
                break
            try:
                report["reflect_runs"].append(self._reflect(job))
                break
            except ChangedWhileRead as exc:
                self._fail(job.run_id, exc)
                if attempt == EDITED_RETRIES:
                    raise
            except Exception as exc:
                self._fail(job.run_id, exc)
                raise
        report["counts"] = self.run_on_store(lambda: conv.counts(session))
        return report

    def _observe(self, job) -> dict[str, Any]:
        """One Observer run: the model off the store thread, then one short transaction."""
        conv = self.conversations
        result = (
            self._call(
                OBSERVE, job.namespace, job.turns, lambda: self.provider.observe(job.turns, namespace=job.namespace)
            )
            if job.turns
            else ObserveResult(observations=[])  # only tools' output in this batch: nothing to observe
        )
        vectors = conv.embed_observations(job, result)  # on this thread, not the store's
        record, persona_note = self._persona_record(job)
        merge = (
            (lambda: self.persona.merge_record(job.namespace, record, session=job.session, run_id=job.run_id))
            if record is not None
            else None
        )
        done = self.run_on_store(lambda: conv.finish_observe(job, result, vectors, also=merge))
        return {**done, "persona_record": persona_note}

    def _reflect(self, job) -> dict[str, Any]:
        result = self._call(
            REFLECT,
            job.namespace,
            job.observations,
            lambda: self.provider.reflect(job.observations, namespace=job.namespace, target_ratio=self.target_ratio),
        )
        vectors = self.conversations.embed_reflection(job, result, self.run_on_store)  # on this thread
        return self.run_on_store(lambda: self.conversations.finish_reflect(job, result, vectors))

    def _persona_record(self, job) -> tuple[Any, str]:
        """Track 2 of the compaction: the persona record of the batch's assistant turns. Turns
        that scored below record_min_score are left out, so drift is not learned as persona.
        A failed persona track does not hold back the facts: the run goes on without it."""
        model = self.persona_model
        if self.persona is None or model is None:
            return None, "off"
        low = self.run_on_store(lambda: self.persona.low_scored_turns(job.session))
        turns = [t for t in job.turns if not (t.role == "assistant" and t.seq in low)]
        mine = sum(1 for t in turns if t.role == "assistant")
        if not mine:
            return None, "no agent turns" + (
                f" ({len(low & {t.seq for t in job.turns})} left out as drift)" if low else ""
            )
        try:
            record = self._call(
                model.record_task,
                job.namespace,
                turns,
                lambda: model.persona_record(turns, namespace=job.namespace, session=job.session),
            )
        except Exception as exc:
            log.warning(
                "persona record failed; the observations are stored without it",
                extra={"session": job.session, "error": f"{type(exc).__name__}: {exc}"},
            )
            return None, f"failed: {type(exc).__name__}: {exc}"[:300]
        return record, f"merged ({mine} agent turns)"

    def score_response(self, params: dict[str, Any]) -> dict[str, Any]:
        """Judge one response (twice when a sampled judge lands near a threshold) and store it."""
        persona, model = self.persona, self.persona_model
        job = self.run_on_store(lambda: persona.begin_score(**params))

        def judge():
            return self._call(
                model.judge_task,
                job.namespace,
                [job.request],
                lambda: model.judge(job.request, job.state, namespace=job.namespace),
            )

        judged = [judge()]
        if model.samples_judgements and persona.near_threshold(persona.composite(judged[0].dimensions.model_dump())):
            judged.append(judge())
        return self.run_on_store(lambda: persona.finish_score(job, judged))

    def _fail(self, run_id: int, exc: Exception) -> None:
        message = f"{type(exc).__name__}: {exc}"
        self.run_on_store(lambda: self.conversations.fail_run(run_id, message))

    def _call(self, task: TaskSpec, namespace: str, payload: list, compute: Callable[[], Any]) -> Any:
        if self.cache is None:
            return compute()
        return self.cache.through(task, namespace, payload, compute, run_on_store=self.run_on_store)
