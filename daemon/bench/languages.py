"""``agentmemd bench languages``: cross-language recall on the probe set
(tests/data/language_probes: short group chats in es, it, de, fr, pt and en, each question asked
in the chat's language and, for a foreign chat, in English).

Each model gets a daemon of its own (``[embedding] model``) and each chat is stored twice, in
two namespaces: every message through ``memory.add_many`` as "Speaker: text" (the daemon embeds
it), and the chat written as a WhatsApp export and imported with ``agentmemd import whatsapp``
(episodes, as a person's import makes them). Every question is asked through ``memory.search``
of each. Beside them, from the same run: plain BM25 over the messages (the daemon's tokenizer)
and the model's own cosine and 0.7/0.3 hybrid.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from agentmemd.daemon.bench.benchmarks import _pct, bench_daemon

KS = (1, 5, 10)


def _kind(chat_language: str, question_language: str) -> str:
    if chat_language == "en":
        return "english_chat"
    return "english_question" if question_language == "en" else "chat_language_question"


class _Ranks:
    """Each system's rank of each question's answer (None: not in its top 10)."""

    def __init__(self) -> None:
        self.ranks: dict[str, dict[str, list[int | None]]] = {}

    def add(self, system: str, key: str, ranked: list[str], answer: str) -> None:
        rank = ranked.index(answer) + 1 if answer in ranked[:10] else None
        self.ranks.setdefault(system, {}).setdefault(key, []).append(rank)

    def report(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for system, by_key in self.ranks.items():
            out[system] = {
                key: {f"R@{k}": round(sum(1 for r in ranks if r is not None and r <= k) / len(ranks), 3) for k in KS}
                | {"questions": len(ranks)}
                for key, ranks in sorted(by_key.items())
            }
        return out


def _baselines(ranks: _Ranks, model: str, chats: list[tuple[str, dict[str, Any]]]) -> None:
    import sqlean

    from agentmemd.memory.core.config import EmbeddingConfig
    from agentmemd.memory.retrieval.embedding_models import load_embedder
    from agentmemd.memory.store.database import fts_query

    embedder = load_embedder(EmbeddingConfig(model=model, query_cache_size=0))
    for language, chat in chats:
        messages = chat["messages"]
        texts = [f"{m['speaker']}: {m['text']}" for m in messages]
        ids = [m["id"] for m in messages]
        vectors = embedder.embed(texts)
        conn = sqlean.connect(":memory:")
        conn.execute("CREATE VIRTUAL TABLE f USING fts5(content, tokenize='porter unicode61 remove_diacritics 2')")
        conn.executemany("INSERT INTO f(rowid, content) VALUES (?, ?)", list(enumerate(texts)))
        for question in chat["questions"]:
            key = _kind(language, question["lang"])
            dense = vectors @ embedder.embed_query(question["q"])
            bm = np.zeros(len(texts))
            match = fts_query(question["q"])
            if match:
                for rowid, score in conn.execute("SELECT rowid, bm25(f) FROM f WHERE f MATCH ?", (match,)):
                    bm[rowid] = -score
            hybrid = 0.7 * dense + 0.3 * (bm / bm.max() if bm.max() > 0 else bm)
            answer = question["answer_id"]
            if model == "all-MiniLM-L6-v2" or "bm25" not in ranks.ranks:
                ranks.add("bm25", key, [ids[i] for i in np.argsort(-bm, kind="stable")[:10] if bm[i] > 0], answer)
            ranks.add(f"{model} dense", key, [ids[i] for i in np.argsort(-dense, kind="stable")[:10]], answer)
            ranks.add(f"{model} hybrid_0.7dense_0.3bm25", key, [ids[i] for i in np.argsort(-hybrid)[:10]], answer)
        conn.close()


def _imported(socket: str, folder: Path, chat: dict[str, Any], namespace: str) -> dict[str, str]:
    """The chat as a WhatsApp export (a message a minute), imported through the CLI: each
    message's probe id by the text its episode ends with."""
    start = datetime(2025, 3, 2, 19, 0)
    lines = [
        f"{start + timedelta(minutes=i):%d/%m/%Y, %H:%M} - {m['speaker']}: {m['text']}"
        for i, m in enumerate(chat["messages"])
    ]
    export = folder / f"WhatsApp Chat with {namespace}.txt"
    export.write_text("\n".join(lines) + "\n", encoding="utf-8")
    command = [sys.executable, "-m", "agentmemd.daemon.cli", "--socket", socket, "import", "whatsapp", str(export)]
    subprocess.run([*command, "--tz", "UTC", "--namespace", namespace], check=True, capture_output=True)
    return {m["text"]: m["id"] for m in chat["messages"]}


def _ranked_ids(hits: list[dict[str, Any]], id_of_text: dict[str, str]) -> list[str]:
    """Probe ids of episode hits ("Name said: text"), by the message text they end with."""
    return [next((i for text, i in id_of_text.items() if h["content"].endswith(text)), "") for h in hits]


def bench_languages(args) -> dict[str, Any]:
    from agentmemd.memory.core.config import EMBEDDING_MODELS

    probes = json.loads(Path(args.probes).read_text())
    chats = [(language, chat) for language, language_chats in probes.items() for chat in language_chats]
    ranks = _Ranks()
    by_language = _Ranks()
    timings: dict[str, Any] = {}
    for model in args.models or EMBEDDING_MODELS:
        system = f"{model} memory.search"
        search_ms: list[float] = []
        began = time.perf_counter()
        quiet = "[conversation]\nobserver_threshold_tokens = 1000000000\n[channels]\nobserve_finished = false\n"
        folder = Path(tempfile.mkdtemp(prefix="amdlang", dir="/tmp"))
        with bench_daemon(None, f'[embedding]\nmodel = "{model}"\n{quiet}') as (client, _proc):
            for number, (language, chat) in enumerate(chats):
                id_of_text = _imported(client.socket_path, folder, chat, f"import-{language}-{number}")
                for question in chat["questions"]:
                    params = {"query": question["q"], "k": 10, "namespace": f"import-{language}-{number}"}
                    t = time.perf_counter()  # the question's first asking: its embedding is not cached yet
                    found = client.call("memory.search", params)["results"]
                    search_ms.append((time.perf_counter() - t) * 1000)
                    ranked = _ranked_ids(found, id_of_text)
                    ranks.add(f"{model} import", _kind(language, question["lang"]), ranked, question["answer_id"])
                namespace = f"probe-{language}-{number}"
                items = [
                    {"content": f"{m['speaker']}: {m['text']}", "type": "fact", "namespace": namespace}
                    for m in chat["messages"]
                ]
                stored = client.call("memory.add_many", {"items": items})["ids"]
                message_of = dict(zip(stored, (m["id"] for m in chat["messages"])))
                for question in chat["questions"]:
                    hits = client.call("memory.search", {"query": question["q"], "k": 10, "namespace": namespace})
                    ranked = [message_of.get(h["id"], "") for h in hits["results"]]
                    ranks.add(system, _kind(language, question["lang"]), ranked, question["answer_id"])
                    by_language.add(system, f"{language} ({question['lang']} question)", ranked, question["answer_id"])
        timings[model] = {
            "seconds_in_all": round(time.perf_counter() - began, 1),
            "search_ms": {"p50": round(_pct(search_ms, 50), 1), "p95": round(_pct(search_ms, 95), 1)},
        }
        _baselines(ranks, model, chats)
    return {
        "probes": str(args.probes),
        "chats": {language: len(chats_of) for language, chats_of in probes.items()},
        "questions": sum(len(chat["questions"]) for _, chat in chats),
        "recall": ranks.report(),
        "memory.search_by_language": by_language.report(),
        "timings": timings,
    }
