#!/usr/bin/env python3
"""Shape checker for the hand-written realistic_chats set (LoCoMo format).

Usage:  python3 check.py [path/to/chats.json]
Prints the counts and exits 1 if any rule is broken.
Standard library only (Python 3.11).
"""

import json
import re
import statistics
import sys
from collections import Counter
from datetime import datetime
from pathlib import Path

DATE_FMT = "%I:%M %p on %d %B, %Y"
DIA_RE = re.compile(r"^D(\d+):(\d+)$")
SESSION_RE = re.compile(r"^session_(\d+)$")
SESSION_DT_RE = re.compile(r"^session_(\d+)_date_time$")
FORBIDDEN_KEYS = {"observation", "event_summary", "session_summary"}

# Rules taken from the brief for this set.
EXPECTED_CONVERSATIONS = 4
SESSIONS_RANGE = (9, 12)
MESSAGES_PER_SESSION = (25, 60)
GAP_DAYS = (1, 6)
QUESTIONS_PER_CONVERSATION = 40
MIN_SPREAD_PER_CONVERSATION = 20
TOTAL_MESSAGES_RANGE = (1600, 2000)
CATEGORIES = {1: "multi-hop (spread)", 2: "temporal", 3: "open-domain / commonsense", 4: "single-hop"}

errors = []


def err(where, msg):
    errors.append(f"{where}: {msg}")


def session_of(dia_id):
    return int(DIA_RE.match(dia_id).group(1))


def check_sample(idx, sample):
    where = f"sample[{idx}]"
    stats = {
        "sessions": 0,
        "messages": 0,
        "words": [],
        "cats": Counter(),
        "multi_session_q": 0,
        "speakers": Counter(),
        "per_session": [],
    }
    if not isinstance(sample, dict):
        err(where, "not an object")
        return stats
    for key in ("sample_id", "conversation", "qa"):
        if key not in sample:
            err(where, f"missing key {key!r}")
    bad = FORBIDDEN_KEYS & set(sample)
    if bad:
        err(where, f"forbidden keys {sorted(bad)}")
    sid = sample.get("sample_id")
    if not isinstance(sid, str) or not sid:
        err(where, "sample_id must be a non-empty string")
    else:
        where = sid
    conv = sample.get("conversation", {})
    if not isinstance(conv, dict):
        err(where, "conversation is not an object")
        return stats
    bad = FORBIDDEN_KEYS & set(conv)
    if bad:
        err(where, f"forbidden keys in conversation {sorted(bad)}")

    for key in ("speaker_a", "speaker_b"):
        if not isinstance(conv.get(key), str) or not conv.get(key):
            err(where, f"{key} missing or empty")
    if conv.get("speaker_a") == conv.get("speaker_b"):
        err(where, "speaker_a and speaker_b are the same")

    # which keys are sessions / dates; anything else is unexpected
    sess_nums, dt_nums = set(), set()
    for key in conv:
        if key in ("speaker_a", "speaker_b"):
            continue
        m1, m2 = SESSION_RE.match(key), SESSION_DT_RE.match(key)
        if m1:
            sess_nums.add(int(m1.group(1)))
        elif m2:
            dt_nums.add(int(m2.group(1)))
        else:
            err(where, f"unexpected conversation key {key!r}")
    n = len(sess_nums)
    stats["sessions"] = n
    if sess_nums != set(range(1, n + 1)):
        err(where, f"sessions not numbered 1..N without gaps: {sorted(sess_nums)}")
    if dt_nums != sess_nums:
        err(where, f"session/date_time keys do not match: {sorted(sess_nums ^ dt_nums)}")
    if not SESSIONS_RANGE[0] <= n <= SESSIONS_RANGE[1]:
        err(where, f"{n} sessions, expected {SESSIONS_RANGE[0]}-{SESSIONS_RANGE[1]}")

    all_ids = set()
    prev_dt = None
    for s in sorted(sess_nums):
        swhere = f"{where} session_{s}"
        raw = conv.get(f"session_{s}_date_time")
        dt = None
        if not isinstance(raw, str):
            err(swhere, "date_time missing or not a string")
        else:
            try:
                dt = datetime.strptime(raw, DATE_FMT)
            except ValueError as exc:
                err(swhere, f"date_time {raw!r} does not parse: {exc}")
        if dt and prev_dt:
            gap = (dt.date() - prev_dt.date()).days
            if not GAP_DAYS[0] <= gap <= GAP_DAYS[1]:
                err(swhere, f"gap of {gap} days from previous session, expected {GAP_DAYS[0]}-{GAP_DAYS[1]}")
        prev_dt = dt or prev_dt

        msgs = conv.get(f"session_{s}")
        if not isinstance(msgs, list):
            err(swhere, "session is not a list")
            continue
        stats["per_session"].append(len(msgs))
        if not MESSAGES_PER_SESSION[0] <= len(msgs) <= MESSAGES_PER_SESSION[1]:
            err(swhere, f"{len(msgs)} messages, expected {MESSAGES_PER_SESSION[0]}-{MESSAGES_PER_SESSION[1]}")
        for i, msg in enumerate(msgs, 1):
            mwhere = f"{swhere} msg {i}"
            if not isinstance(msg, dict):
                err(mwhere, "not an object")
                continue
            extra = set(msg) - {"speaker", "dia_id", "text", "img_url", "blip_caption"}
            if extra:
                err(mwhere, f"unexpected keys {sorted(extra)}")
            spk, did, text = msg.get("speaker"), msg.get("dia_id"), msg.get("text")
            if not isinstance(spk, str) or not spk.strip():
                err(mwhere, "speaker missing or empty")
            if not isinstance(text, str) or not text.strip():
                err(mwhere, "text missing or empty")
            else:
                stats["words"].append(len(text.split()))
            if not isinstance(did, str) or not DIA_RE.match(did):
                err(mwhere, f"bad dia_id {did!r}")
                continue
            ds, dn = map(int, DIA_RE.match(did).groups())
            if ds != s or dn != i:
                err(mwhere, f"dia_id {did} should be D{s}:{i}")
            if did in all_ids:
                err(mwhere, f"duplicate dia_id {did}")
            all_ids.add(did)
            stats["speakers"][spk] += 1
            stats["messages"] += 1

    for key in ("speaker_a", "speaker_b"):
        if conv.get(key) and conv[key] not in stats["speakers"]:
            err(where, f"{key} {conv[key]!r} never speaks")

    qa = sample.get("qa")
    if not isinstance(qa, list):
        err(where, "qa is not a list")
        return stats
    if len(qa) != QUESTIONS_PER_CONVERSATION:
        err(where, f"{len(qa)} questions, expected {QUESTIONS_PER_CONVERSATION}")
    seen_q = set()
    for qi, q in enumerate(qa, 1):
        qwhere = f"{where} qa[{qi}]"
        if not isinstance(q, dict):
            err(qwhere, "not an object")
            continue
        for key in ("question", "answer"):
            if not isinstance(q.get(key), str) or not q[key].strip():
                err(qwhere, f"{key} missing or empty")
        if q.get("question") in seen_q:
            err(qwhere, "duplicate question text")
        seen_q.add(q.get("question"))
        cat = q.get("category")
        if cat not in CATEGORIES:
            err(qwhere, f"bad category {cat!r}")
        stats["cats"][cat] += 1
        ev = q.get("evidence")
        if not isinstance(ev, list) or not ev:
            err(qwhere, "evidence missing or empty")
            continue
        if len(set(ev)) != len(ev):
            err(qwhere, "duplicate ids in evidence")
        for e in ev:
            if e not in all_ids:
                err(qwhere, f"evidence id {e!r} does not exist")
        good = [e for e in ev if isinstance(e, str) and DIA_RE.match(e)]
        n_sess = len({session_of(e) for e in good})
        if n_sess >= 2:
            stats["multi_session_q"] += 1
        if cat == 1 and n_sess < 2:
            err(qwhere, f"spread (category 1) question has evidence in {n_sess} session(s): {ev}")
    if stats["cats"][1] < MIN_SPREAD_PER_CONVERSATION:
        err(where, f"only {stats['cats'][1]} spread questions, expected >= {MIN_SPREAD_PER_CONVERSATION}")
    return stats


def main():
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("chats.json")
    try:
        raw = path.read_text(encoding="utf-8")
        data = json.loads(raw)
    except (OSError, json.JSONDecodeError) as exc:
        print(f"cannot load {path}: {exc}")
        return 1
    if "\\u" in raw and re.search(r"\\u[dD][89abAB]", raw):
        err("file", "emoji stored as \\u escapes, expected real characters")
    if not isinstance(data, list):
        print("top level is not a list")
        return 1
    if len(data) != EXPECTED_CONVERSATIONS:
        err("file", f"{len(data)} conversations, expected {EXPECTED_CONVERSATIONS}")
    ids = [s.get("sample_id") for s in data if isinstance(s, dict)]
    if len(set(ids)) != len(ids):
        err("file", "duplicate sample_id")

    tot = {"sessions": 0, "messages": 0, "words": [], "cats": Counter(), "multi_session_q": 0}
    print(
        f"{'sample':8} {'sess':>4} {'msgs':>5} {'spk':>3} {'msgs/sess':>9} {'Q':>3} "
        f"{'c1':>3} {'c2':>3} {'c3':>3} {'c4':>3} {'2+sess':>6} {'medW':>5}"
    )
    for i, sample in enumerate(data):
        st = check_sample(i, sample)
        for k in ("sessions", "messages", "multi_session_q"):
            tot[k] += st[k]
        tot["words"] += st["words"]
        tot["cats"].update(st["cats"])
        name = sample.get("sample_id", f"#{i}") if isinstance(sample, dict) else f"#{i}"
        ps = st["per_session"]
        rng = f"{min(ps)}-{max(ps)}" if ps else "-"
        med = statistics.median(st["words"]) if st["words"] else 0
        print(
            f"{name:8} {st['sessions']:>4} {st['messages']:>5} {len(st['speakers']):>3} {rng:>9} "
            f"{sum(st['cats'].values()):>3} {st['cats'][1]:>3} {st['cats'][2]:>3} {st['cats'][3]:>3} "
            f"{st['cats'][4]:>3} {st['multi_session_q']:>6} {med:>5}"
        )
    if not TOTAL_MESSAGES_RANGE[0] <= tot["messages"] <= TOTAL_MESSAGES_RANGE[1]:
        err(
            "file", f"{tot['messages']} messages in total, expected {TOTAL_MESSAGES_RANGE[0]}-{TOTAL_MESSAGES_RANGE[1]}"
        )

    words = tot["words"]
    short = sum(1 for w in words if w <= 4)
    print()
    print(f"conversations: {len(data)}")
    print(f"sessions: {tot['sessions']}")
    print(f"messages: {tot['messages']}")
    if words:
        print(
            f"words per message: median {statistics.median(words)}, mean {statistics.mean(words):.1f}, "
            f"1-4 words: {short} ({100 * short / len(words):.0f}%)"
        )
    print(f"questions: {sum(tot['cats'].values())}")
    for c in sorted(CATEGORIES):
        print(f"  category {c} ({CATEGORIES[c]}): {tot['cats'][c]}")
    print(f"questions with evidence from 2+ sessions: {tot['multi_session_q']}")
    if errors:
        print(f"\nFAIL: {len(errors)} problem(s)")
        for e in errors:
            print("  -", e)
        return 1
    print("\nOK: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
