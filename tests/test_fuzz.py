"""A seeded fuzz of the JSON-RPC door: thousands of frames over every method (wrong types, deep
nesting, unicode edge cases, out-of-range values, batches). No frame may kill the dispatcher,
get an internal error (-32603) or go unanswered."""

from __future__ import annotations

import json
import random

import pytest

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)

FRAMES = 3000
SEED = 12

STRINGS = [
    "",
    " ",
    "x",
    "a" * 70,
    "\u0000",
    "\ud800",
    "😀" * 3,
    "ﬁ",
    "İ",
    "\u202e",
    "a\nb",
    "%s",
    "'; DROP TABLE memories;--",
    "<memories>",
    "9999-12-31T23:59:59-12:00",
    "0001-01-01T00:00:00+14:00",
    "2024-02-30T00:00:00Z",
    "NaN",
]
NUMBERS = [0, -1, 1, 2**31, 2**63, -(2**63) - 1, 10**40, 0.5, -0.0, 1e308, 5e-324, 1.5, 1e2]
TYPES = ["fact", "preference", "persona", "relational", "procedural", "nonsense"]


def nested(rng: random.Random, depth: int):
    value = rng.choice([[], {}, "x", 1])
    for _ in range(depth):
        value = [value] if rng.random() < 0.5 else {"k": value}
    return value


def scalar(rng: random.Random):
    pick = rng.random()
    if pick < 0.35:
        return rng.choice(STRINGS)
    if pick < 0.65:
        return rng.choice(NUMBERS)
    if pick < 0.75:
        return rng.choice([True, False, None])
    if pick < 0.85:
        return [scalar(rng) for _ in range(rng.randint(0, 3))]
    if pick < 0.9:
        return nested(rng, rng.choice([5, 50, 400]))
    return {"k": rng.choice(STRINGS)}


def plausible(rng: random.Random, field: str):
    """Values near what a field wants, and just past it."""
    if field in ("type",):
        return rng.choice(TYPES)
    if field in ("embedding",):
        return rng.choice([[rng.choice(NUMBERS)] * rng.choice([0, 3, 384]), [0.1] * 384, "x", None])
    if field in ("created", "ts"):
        return rng.choice(STRINGS[14:17] + ["2024-01-01T00:00:00Z", "2024-01-01", 1700000000])
    return scalar(rng)


def frame(rng: random.Random, methods: dict) -> bytes:
    name = rng.choice([*methods, "nope", "", "memory.", "__init__"])
    method = methods.get(name)
    fields = list(method.params.model_fields) if method else ["x"]
    params = {f: plausible(rng, f) for f in fields if rng.random() < 0.7}
    if rng.random() < 0.1:
        params[rng.choice(STRINGS) or "extra"] = scalar(rng)
    envelope = {"jsonrpc": "2.0" if rng.random() < 0.9 else rng.choice(["1.0", 2, None]), "method": name}
    if rng.random() < 0.9:
        envelope["id"] = rng.choice([1, "a", 1.5, None]) if rng.random() < 0.85 else rng.choice([[1], {"x": 1}, True])
    if rng.random() < 0.9:
        envelope["params"] = params if rng.random() < 0.9 else scalar(rng)
    if rng.random() < 0.05:
        return json.dumps([envelope, envelope, 1]).encode()
    text = json.dumps(envelope, ensure_ascii=rng.random() < 0.5)
    if rng.random() < 0.03:
        text = text[: rng.randint(0, len(text))]  # truncated
    return text.encode("utf-8", "surrogatepass")


@pytest.mark.parametrize("seed", [SEED, SEED + 1, SEED + 2])
def test_no_frame_kills_the_door_or_gets_an_internal_error(in_process, seed):
    d = in_process({"clock": {"start": "2024-01-01T00:00:00Z"}}, fake_embedder=True)
    d.call("memory.add", {"content": "The user prefers short answers", "type": "preference"})
    d.call("conversation.append", {"session": "s", "role": "user", "content": "hello there"})
    scoped = d.call("access.tokens.create", {"name": "fuzz", "namespaces": ["default", "other"]})["secret"]
    rng = random.Random(seed)
    internal: list[tuple[bytes, dict]] = []
    for _ in range(FRAMES):
        line = frame(rng, d.dispatcher.methods)
        # Each frame on a fresh connection (a fuzzed `auth` must not leave the rest with no access),
        # some of them scoped, so the access check is fuzzed too.
        reply = d.connect(scoped if rng.random() < 0.3 else None).send_raw(line)
        try:
            parsed = json.loads(line)
        except ValueError:
            parsed = None
        if not (isinstance(parsed, dict) and "id" not in parsed):  # only a notification goes unanswered
            assert reply, line[:300]
        for r in reply if isinstance(reply, list) else [reply] if reply else []:
            if "error" in r and r["error"]["code"] == -32603:
                internal.append((line[:300], r["error"]))
    assert not internal, internal[:5]
    assert d.call("health")["status"] == "ok"
