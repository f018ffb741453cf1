"""One-off conversion: src/<id>.txt + src/<id>.qa.txt -> chats.json.
Numbers the messages and turns {anchor} tags into dia_ids. Adds no text."""

import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
IDS = ["de-1", "es-1", "fr-1", "mix-1"]
TAG = re.compile(r"\s*\{([a-z0-9_]+)\}")
out = []
for sid in IDS:
    p = os.path.join(HERE, sid + ".txt")
    if not os.path.exists(p):
        continue
    conv, anchors, sess, idx = {}, {}, 0, 0
    for ln in open(p, encoding="utf-8"):
        ln = ln.rstrip("\n")
        if not ln.strip():
            continue
        if ln.startswith("# "):
            m = re.search(r"speaker_a=(\S+) \| speaker_b=(\S+)", ln)
            conv["speaker_a"], conv["speaker_b"] = m.group(1), m.group(2)
            continue
        if ln.startswith("=== "):
            n, dt = ln[4:].split(" | ")
            sess, idx = int(n), 0
            conv[f"session_{sess}_date_time"] = dt.strip()
            conv[f"session_{sess}"] = []
            continue
        spk, text = ln.split(": ", 1)
        tags = TAG.findall(text)
        text = TAG.sub("", text).strip()
        idx += 1
        did = f"D{sess}:{idx}"
        for t in tags:
            if t in anchors:
                sys.exit(f"{sid}: duplicate anchor {t}")
            anchors[t] = did
        conv[f"session_{sess}"].append({"speaker": spk, "dia_id": did, "text": text})
    qa = []
    for ln in open(os.path.join(HERE, sid + ".qa.txt"), encoding="utf-8"):
        if not ln.strip():
            continue
        cat, q, a, ev = [x.strip() for x in ln.split(" | ")]
        ids = []
        for t in ev.split():
            if t not in anchors:
                sys.exit(f"{sid}: unknown anchor {t} in: {q}")
            if anchors[t] not in ids:
                ids.append(anchors[t])
        ids.sort(key=lambda d: tuple(int(x) for x in d[1:].split(":")))
        qa.append({"question": q, "answer": a, "evidence": ids, "category": int(cat)})
    out.append({"sample_id": sid, "conversation": conv, "qa": qa})
json.dump(out, open(os.path.join(HERE, "..", "chats.json"), "w", encoding="utf-8"), ensure_ascii=False, indent=2)
print("wrote", [o["sample_id"] for o in out])
