"""`agentmemd calibrate --labels FILE`: does SyncScore agree with people? (seed 002, 5.3)

The labels file is JSON:

    {"personas": {"nova": {"SOUL.md": "...", "IDENTITY.md": "..."}},
     "pairs": [{"id": "...", "persona": "nova", "drift": "consistent|mild|severe",
                "user": "the user turn", "memories": ["what was injected", ...],
                "response": "the agent's reply",
                "labels": {"voice": 0.9, "relational": 0.9, "grounded": 1.0, "style": 0.95, "constraint": 1.0}}]}

For each persona a real daemon starts on a temporary workspace holding that persona's files,
and every response is scored over the socket with ``persona.score``: each pair is a session
of its own holding the user turn, and its memories are the context the reply is judged
against. The report gives, per dimension, Pearson and Spearman
correlation of SyncScore with the human labels, and flags every dimension under
``--min-correlation`` (0.7, as 5.3's calibration protocol says). ``--decode`` adds DECODE's
human-bot set (ACL 2021): does ``grounded`` fall when the bot contradicts what it said
earlier (AUC), and how often does it fall on RCT's non-contradictions (false positives)?
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from scipy.stats import pearsonr, spearmanr

from agentmemd.daemon.bench.benchmarks import auc, bench_daemon
from agentmemd.memory.core.vocabulary import DIMENSIONS
from agentmemd.persona.syncscore.judge import Dimensions


class LabelsError(Exception):
    """The labels file is missing, not JSON, or does not match the format."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LabelledPair(_Model):
    id: str
    persona: str
    drift: Literal["consistent", "mild", "severe"]
    user: str = ""
    memories: list[str] = Field(default_factory=list)
    response: str = Field(min_length=1)
    labels: Dimensions  # a person's scores, 0..1, on the five SyncScore dimensions


class LabelsFile(_Model):
    about: str = ""
    personas: dict[str, dict[str, str]]
    pairs: list[LabelledPair] = Field(min_length=2)

    @model_validator(mode="after")
    def _known(self) -> "LabelsFile":
        for name, files in self.personas.items():
            bad = sorted(set(files) - {"SOUL.md", "IDENTITY.md"})
            if bad:
                raise ValueError(f"persona {name!r}: only SOUL.md and IDENTITY.md can be given, not {bad}")
        unknown = sorted({p.persona for p in self.pairs} - set(self.personas))
        if unknown:
            raise ValueError(f"pairs name personas that are not defined: {unknown}")
        return self


def load_labels(path: Path) -> LabelsFile:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LabelsError(f"labels file not found: {path}") from None
    try:
        return LabelsFile.model_validate_json(text)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(x) for x in e['loc']) or '(root)'}: {e['msg']}" for e in exc.errors()[:8])
        raise LabelsError(f"labels file {path} is not valid: {problems}") from None


def correlations(scores: list[float], labels: list[float]) -> dict[str, float | None]:
    """Pearson and Spearman (scipy); None when either side is constant (no correlation to speak of)."""
    s, h = np.asarray(scores, dtype=float), np.asarray(labels, dtype=float)
    if len(s) < 3 or s.std() == 0 or h.std() == 0:
        return {"pearson": None, "spearman": None}
    return {
        "pearson": round(float(pearsonr(s, h).statistic), 4),
        "spearman": round(float(spearmanr(s, h).statistic), 4),
    }


def _score_pairs(labels: LabelsFile, persona: str, work_dir: Path | None) -> list[dict[str, Any]]:

    root = Path(work_dir or tempfile.mkdtemp(prefix="amdcal", dir="/tmp")) / persona
    workspace = root / "workspace"
    workspace.mkdir(parents=True, exist_ok=True)
    for name, text in labels.personas[persona].items():
        (workspace / name).write_text(text, encoding="utf-8")
    out = []
    with bench_daemon(root, f'[workspace]\npath = "{workspace}"\n') as (client, _proc):
        for n, pair in enumerate(p for p in labels.pairs if p.persona == persona):
            # Each pair is its own conversation: the user turn, then the reply judged against it.
            session = f"calibrate-{n}"
            if pair.user:
                client.call("conversation.append", {"session": session, "role": "user", "content": pair.user})
            result = client.call(
                "persona.score",
                {"response": pair.response, "session": session, "context": "\n".join(pair.memories) or None},
            )
            out.append({"pair": pair, "result": result})
    return out


def calibrate(labels: LabelsFile, *, min_correlation: float = 0.7, work_dir: Path | None = None) -> dict[str, Any]:
    scored = [row for persona in labels.personas for row in _score_pairs(labels, persona, work_dir)]
    report: dict[str, Any] = {"pairs": len(scored), "personas": sorted(labels.personas), "dimensions": {}}
    for dim in DIMENSIONS:
        sc = [r["result"]["dimensions"][dim] for r in scored]
        hu = [getattr(r["pair"].labels, dim) for r in scored]
        report["dimensions"][dim] = {
            **correlations(sc, hu),
            "mean_score": round(float(np.mean(sc)), 3),
            "mean_label": round(float(np.mean(hu)), 3),
        }
    composite = [r["result"]["composite"] for r in scored]
    human = [float(np.mean([getattr(r["pair"].labels, d) for d in DIMENSIONS])) for r in scored]
    report["composite"] = correlations(composite, human)
    report["flagged"] = sorted(
        d for d, v in report["dimensions"].items() if v["pearson"] is None or v["pearson"] < min_correlation
    )
    report["min_correlation"] = min_correlation
    by_class = {
        c: [r["result"]["composite"] for r in scored if r["pair"].drift == c] for c in ("consistent", "mild", "severe")
    }
    report["mean_composite_by_drift"] = {c: round(float(np.mean(v)), 3) if v else None for c, v in by_class.items()}
    report["auc_consistent_vs_drifted"] = auc(by_class["consistent"], by_class["mild"] + by_class["severe"])
    report["auc_consistent_vs_severe"] = auc(by_class["consistent"], by_class["severe"])
    report["worst_misses"] = sorted(
        (
            {
                "id": r["pair"].id,
                "dimension": d,
                "score": r["result"]["dimensions"][d],
                "label": getattr(r["pair"].labels, d),
            }
            for r in scored
            for d in DIMENSIONS
        ),
        key=lambda m: -abs(m["score"] - m["label"]),
    )[:8]
    return report


def _decode_items(path: Path, limit: int) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
    out = []
    for row in rows:
        last = row["turns"][-1]
        earlier = [t["text"] for t in row["turns"][:-1] if t["agent_id"] == last["agent_id"] and t["text"].strip()]
        if earlier:
            out.append(
                {
                    "response": last["text"],
                    "context": "\n".join(earlier),
                    "contradiction": bool(row["is_contradiction"]),
                }
            )
    if limit and len(out) > limit:  # keep the classes balanced as they are in the file
        pos = [o for o in out if o["contradiction"]][: limit // 2]
        neg = [o for o in out if not o["contradiction"]][: limit - len(pos)]
        out = pos + neg
    return out


def decode_check(path: Path, *, limit: int = 0, work_dir: Path | None = None) -> dict[str, Any]:
    """grounded on DECODE human-bot: the bot's earlier turns are the context its last turn is judged against."""

    items = _decode_items(path, limit)
    rct_path = Path(path).with_name("rct.jsonl")
    rct = _decode_items(rct_path, limit) if rct_path.exists() else []
    with bench_daemon(work_dir) as (client, _proc):

        def grounded(item: dict[str, Any]) -> float:
            result = client.call(
                "persona.score", {"response": item["response"], "context": item["context"], "namespace": "decode"}
            )
            return result["dimensions"]["grounded"]

        for item in items + rct:
            item["grounded"] = grounded(item)
    pos = [1 - i["grounded"] for i in items if i["contradiction"]]
    neg = [1 - i["grounded"] for i in items if not i["contradiction"]]
    flagged = [i for i in items if i["grounded"] < 1]
    tp = sum(1 for i in flagged if i["contradiction"])
    report = {
        "set": str(path),
        "dialogues": len(items),
        "contradictions": len(pos),
        "auc_contradiction_vs_grounded": auc(pos, neg),
        "flagged": len(flagged),
        "precision": round(tp / len(flagged), 4) if flagged else None,
        "recall": round(tp / len(pos), 4) if pos else None,
    }
    if rct:
        report["rct_dialogues"] = len(rct)
        report["rct_false_positive_rate"] = round(sum(1 for i in rct if i["grounded"] < 1) / len(rct), 4)
    return report


def run_calibration(args) -> dict[str, Any]:
    labels = load_labels(args.labels)
    report = calibrate(labels, min_correlation=args.min_correlation, work_dir=args.work_dir)
    if args.decode:
        report["decode"] = decode_check(args.decode, limit=args.decode_limit, work_dir=args.work_dir)
    return report
