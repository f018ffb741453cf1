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

from agentmemd.daemon.bench.benchmarks import PlainBaselines, _pct, bench_daemon

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


def _baselines(ranks: _Ranks, model: str, chats: list[tuple[str, dict[str, Any]]], *, with_bm25: bool) -> None:
    """The model's plain baselines over each chat's messages (BM25 too, ``with_bm25``: it is the
    same for every model)."""
    from agentmemd.memory.core.config import EmbeddingConfig
    from agentmemd.memory.retrieval.embedding_models import load_embedder

    embedder = load_embedder(EmbeddingConfig(model=model, query_cache_size=0))
    for language, chat in chats:
        messages = chat["messages"]
        texts = [f"{m['speaker']}: {m['text']}" for m in messages]
        ids = [m["id"] for m in messages]
        baselines = PlainBaselines(texts, embedder.embed(texts), embedder)
        for question in chat["questions"]:
            key = _kind(language, question["lang"])
            for name, got in baselines.top10(question["q"]).items():
                if name != "bm25" or with_bm25:
                    ranks.add(
                        name if name == "bm25" else f"{model} {name}", key, [ids[i] for i in got], question["answer_id"]
                    )
        baselines.close()


def write_whatsapp_export(chat: dict[str, Any], path: Path) -> Path:
    """A probe chat as an Android WhatsApp export, a message a minute from 2 March 2025, 19:00."""
    start = datetime(2025, 3, 2, 19, 0)
    lines = [
        f"{start + timedelta(minutes=i):%d/%m/%Y, %H:%M} - {m['speaker']}: {m['text']}"
        for i, m in enumerate(chat["messages"])
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _imported(socket: str, folder: Path, chat: dict[str, Any], namespace: str) -> dict[str, str]:
    """The chat as a WhatsApp export, imported through the CLI: each message's probe id by the text
    its episode ends with."""
    export = write_whatsapp_export(chat, folder / f"WhatsApp Chat with {namespace}.txt")
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
    for number_of_model, model in enumerate(args.models or EMBEDDING_MODELS):
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
        _baselines(ranks, model, chats, with_bm25=number_of_model == 0)
    return {
        "probes": str(args.probes),
        "chats": {language: len(chats_of) for language, chats_of in probes.items()},
        "questions": sum(len(chat["questions"]) for _, chat in chats),
        "recall": ranks.report(),
        "memory.search_by_language": by_language.report(),
        "timings": timings,
    }
