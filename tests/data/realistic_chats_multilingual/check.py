"""Validate chats.json (LoCoMo format) and print counts. Standard library only.
Usage: python3 check.py [chats.json]"""

import json
import re
import statistics
import sys
from collections import Counter
from datetime import datetime

path = sys.argv[1] if len(sys.argv) > 1 else "chats.json"
data = json.load(open(path, encoding="utf-8"))
errors = []


def err(msg):
    errors.append(msg)


EXPECTED = ["de-1", "es-1", "fr-1", "mix-1"]
if [s.get("sample_id") for s in data] != EXPECTED:
    err(f"sample ids are {[s.get('sample_id') for s in data]}, expected {EXPECTED}")

rows = {}
all_words = []
for s in data:
    sid = s.get("sample_id")
    if set(s) != {"sample_id", "conversation", "qa"}:
        err(f"{sid}: keys {sorted(s)}")
    conv = s["conversation"]
    for k in ("speaker_a", "speaker_b"):
        if not conv.get(k):
            err(f"{sid}: missing {k}")
    nums = sorted(int(m.group(1)) for k in conv if (m := re.fullmatch(r"session_(\d+)", k)))
    if nums != list(range(1, len(nums) + 1)):
        err(f"{sid}: sessions not numbered 1..N: {nums}")
    ids, speakers, sizes, prev = set(), Counter(), [], None
    gaps = []
    for n in nums:
        dt_key = f"session_{n}_date_time"
        if dt_key not in conv:
            err(f"{sid}: no {dt_key}")
        else:
            try:
                dt = datetime.strptime(conv[dt_key], "%I:%M %p on %d %B, %Y")
                if prev and dt <= prev:
                    err(f"{sid}: session {n} date not after previous")
                if prev:
                    gaps.append((dt.date() - prev.date()).days)
                prev = dt
            except ValueError:
                err(f"{sid}: bad date {conv[dt_key]!r}")
        msgs = conv[f"session_{n}"]
        sizes.append(len(msgs))
        for i, m in enumerate(msgs, 1):
            if set(m) != {"speaker", "dia_id", "text"}:
                err(f"{sid}: message keys {sorted(m)}")
            if m.get("dia_id") != f"D{n}:{i}":
                err(f"{sid}: expected D{n}:{i}, got {m.get('dia_id')}")
            if not str(m.get("text", "")).strip():
                err(f"{sid}: empty text at {m.get('dia_id')}")
            ids.add(m["dia_id"])
            speakers[m["speaker"]] += 1
            all_words.append(len(m["text"].split()))
    for k in ("speaker_a", "speaker_b"):
        if conv.get(k) not in speakers:
            err(f"{sid}: {k} {conv.get(k)!r} never speaks")
    cats = Counter()
    spread = 0
    for q in s["qa"]:
        if set(q) != {"question", "answer", "evidence", "category"}:
            err(f"{sid}: qa keys {sorted(q)}")
        if q.get("category") not in (1, 2, 3, 4):
            err(f"{sid}: bad category {q.get('category')} in {q['question']!r}")
        if not str(q.get("answer", "")).strip() or not str(q.get("question", "")).strip():
            err(f"{sid}: empty question/answer")
        if not q.get("evidence"):
            err(f"{sid}: no evidence for {q['question']!r}")
        for e in q.get("evidence", []):
            if e not in ids:
                err(f"{sid}: evidence {e} does not exist ({q['question']!r})")
        if len(set(q["evidence"])) != len(q["evidence"]):
            err(f"{sid}: duplicate evidence in {q['question']!r}")
        sess = {e.split(":")[0] for e in q["evidence"]}
        if len(sess) >= 2:
            spread += 1
        if q.get("category") == 1 and len(sess) < 2:
            err(f"{sid}: category-1 question with evidence from one session: {q['question']!r}")
        cats[q.get("category")] += 1
    rows[sid] = {
        "sessions": len(nums),
        "messages": sum(sizes),
        "messages per session": f"{min(sizes)}–{max(sizes)}",
        "days between sessions": f"{min(gaps)}–{max(gaps)}" if gaps else "-",
        "speakers": len(speakers),
        "questions": len(s["qa"]),
        "category 1: multi-hop / spread": cats[1],
        "category 2: temporal": cats[2],
        "category 3: open-domain / commonsense": cats[3],
        "category 4: single-hop": cats[4],
        "questions with evidence from 2+ sessions": spread,
    }

cols = list(rows)
print("| | " + " | ".join(cols) + " |")
print("|---" * (len(cols) + 1) + "|")
for key in next(iter(rows.values())):
    print(f"| {key} | " + " | ".join(str(rows[c][key]) for c in cols) + " |")
if all_words:
    short = sum(1 for w in all_words if w <= 4) / len(all_words)
    print(
        f"\nmessages: {len(all_words)}; words per message: median {statistics.median(all_words)}, "
        f"mean {statistics.mean(all_words):.1f}; {short:.0%} have 1–4 words"
    )
if errors:
    print("\nPROBLEMS:")
    for e in errors:
        print(" -", e)
    sys.exit(1)
print("OK")
