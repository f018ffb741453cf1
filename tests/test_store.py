"""The store's indexes: the in-RAM vector matrix follows committed writes only; BM25 per namespace and its work bound."""

from __future__ import annotations

import numpy as np
import pytest

from agentmemd.memory.retrieval.lexical import bm25_hits
from agentmemd.memory.store.database import Store

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)

DIM = 8


def unit(i: int) -> np.ndarray:
    v = np.zeros(DIM, dtype=np.float32)
    v[i % DIM] = 1.0
    v[(i + 1) % DIM] = 0.1 * (i // DIM)  # distinct but near the axis
    return v / np.linalg.norm(v)


def row(i: int, namespace: str = "default", content: str | None = None) -> dict:
    return {
        "id": f"m{i:015d}",
        "namespace": namespace,
        "content": content or f"memory number {i}",
        "context": None,
        "type": "fact",
        "priority": 0.1,
        "source": None,
        "tags": [],
        "created": "2024-01-01T00:00:00Z",
        "ingested": "2024-01-01T00:00:00Z",
        "last_accessed": "2024-01-01T00:00:00Z",
        "access_count": 1.0,
        "version": 1,
        "supersedes": None,
        "superseded_by": None,
        "token_len": 3,
    }


@pytest.fixture()
def store(tmp_path):
    s = Store(tmp_path / "t.db", dim=DIM, model="test")
    yield s
    s.close()


def test_vector_index_sees_commits_not_rollbacks(tmp_path):
    store = Store(tmp_path / "t.db", dim=DIM, model="test")
    with store.transaction():
        seqs = [store.insert(row(i), unit(i)) for i in range(20)]
    assert store.knn("default", unit(3), 1)[0][0] == seqs[3]
    with pytest.raises(RuntimeError):
        with store.transaction():
            store.insert(row(100), unit(3) * 1.0)
            raise RuntimeError("client went away")
    assert [s for s, _ in store.knn("default", unit(3), 20)].count(seqs[3]) == 1
    assert len(store.knn("default", unit(3), 100)) == 20
    # Archive and supersession take a memory out; restore puts it back.
    with store.transaction():
        store.move_to_archive(seqs[3], "2024-02-01T00:00:00Z")
        store.mark_superseded(seqs[4], "mNEW")
    found = {s for s, _ in store.knn("default", unit(3), 100)}
    assert seqs[3] not in found and seqs[4] not in found and len(found) == 18
    with store.transaction():
        store.restore_from_archive(seqs[3])
    assert store.knn("default", unit(3), 1)[0][0] == seqs[3]
    # A fresh process loads the same live set from vec0.
    store.close()
    again = Store(tmp_path / "t.db", dim=DIM, model="test")
    assert sorted(s for s, _ in again.knn("default", unit(0), 100)) == sorted(found | {seqs[3]})
    again.close()


def test_vector_index_keeps_namespaces_apart(store):
    with store.transaction():
        a = store.insert(row(1, "a"), unit(1))
        b = store.insert(row(2, "b"), unit(1))
    assert [s for s, _ in store.knn("a", unit(1), 10)] == [a]
    assert [s for s, _ in store.knn("b", unit(1), 10)] == [b]
    assert store.knn("nobody", unit(1), 10) == []


def test_vector_index_grows_past_its_capacity(store):
    store.knn("default", unit(0), 1)  # load the (empty) namespace first, so every add goes to the matrix
    vecs = np.random.default_rng(0).standard_normal((300, DIM)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    with store.transaction():
        seqs = [store.insert(row(i), v) for i, v in enumerate(vecs)]
    for i in (0, 150, 299):
        top = store.knn("default", vecs[i], 300)
        assert len(top) == 300 and top[0][0] == seqs[i]


def test_bm25_treats_very_common_terms_as_stop_words(store):
    with store.transaction():
        for i in range(30):
            store.insert(row(i, content=f"coffee talk number {i}" + (" with aardvark" if i == 7 else "")), unit(i))
    both = bm25_hits(store, "default", ["coffee", "aardvark"], max_postings=100).scores
    assert len(both) == 30 and max(both, key=both.get) == 8  # seq of i=7 scores best
    # "coffee" is in 30 memories: above the bound it no longer counts; the rare term still does.
    rare_only = bm25_hits(store, "default", ["coffee", "aardvark"], max_postings=10).scores
    assert list(rare_only) == [8]
    assert bm25_hits(store, "default", ["coffee"], max_postings=10).scores == {}
    assert bm25_hits(store, "other", ["coffee", "aardvark"], max_postings=100).scores == {}


def test_a_phrase_is_budgeted_by_its_words_postings_and_never_counted(store):
    """A phrase reads both its words' postings: that is its share of max_postings. Its own memories
    are not counted first (FTS5 reads both words' positions for that: 1-3 ms a pack at 100,000)."""
    texts = ["high school reunion", "a high hill", "high tide", "the school bus", "school lunch"]
    texts += [f"a walk by the river {i}" for i in range(7)]
    with store.transaction():
        seqs = [store.insert(row(i, content=text), unit(i)) for i, text in enumerate(texts)]
    asked: list[str] = []
    counted = store.term_statistics
    store.term_statistics = lambda ns, terms: asked.extend(terms) or counted(ns, terms)  # type: ignore[method-assign]
    with_phrase = bm25_hits(store, "default", ["high", "school"], 12, phrases=["high school"]).scores
    assert asked == ["high", "school"]  # the phrase is budgeted from its words' counts
    words_only = bm25_hits(store, "default", ["high", "school"], 12).scores
    assert with_phrase[seqs[0]] > words_only[seqs[0]] and with_phrase[seqs[1]] == words_only[seqs[1]]
    # Its 3 + 3 postings over what the words leave of a budget of 6: left out, the words kept.
    assert bm25_hits(store, "default", ["high", "school"], 6, phrases=["high school"]).scores == words_only


def test_a_word_of_the_context_counts_less_than_one_of_the_memory_itself(store):
    """m018: the context is a column of its own, weighed by [retrieval] context_weight."""
    with store.transaction():
        said = store.insert(
            {**row(0, content="The 28 tram is the best"), "context": "we talked about the city"}, unit(0)
        )
        reply = store.insert({**row(1, content="Yes that one"), "context": "the 28 tram"}, unit(1))
        for i in range(2, 8):  # other memories, so that "tram" is a rare word with some IDF
            store.insert(row(i, content=f"a walk by the river number {i}"), unit(i))
    store.vectors.size = lambda namespace: 8  # type: ignore[method-assign]  # BM25's document count
    even = bm25_hits(store, "default", ["tram"], 100, context_weight=1.0).scores
    weighed = bm25_hits(store, "default", ["tram"], 100, context_weight=0.5).scores
    assert even[reply] > even[said]  # the shorter reply wins on its context's words alone ...
    assert weighed[said] > weighed[reply]  # ... unless those count for less
    assert bm25_hits(store, "default", ["tram"], 100, context_weight=0.0).scores[reply] == 0


QUIET = ["coffee with oat milk", "a walk by the river", "the river in spring"]


def test_bm25_statistics_are_the_namespaces_own(store, tmp_path):
    """Issue 16: IDF, document counts and the stop-word cut were store-wide, so a word common in
    one namespace was a stop word, or nearly weightless, in another where it is rare."""
    with store.transaction():
        for i in range(30):
            store.insert(row(i, "busy", f"coffee again, cup {i}"), unit(i))
        for i, text in enumerate(QUIET, 100):
            store.insert(row(i, "quiet", text), unit(i))
    quiet = bm25_hits(store, "quiet", ["coffee", "river"], max_postings=10)
    # "coffee" is in 31 memories of the store but in one of "quiet"'s three: not a stop word there.
    assert set(quiet.scores) == {31, 32, 33}
    # The very figures a store holding only "quiet" gives.
    alone = Store(tmp_path / "alone.db", dim=DIM, model="test")
    with alone.transaction():
        for i, text in enumerate(QUIET, 100):
            alone.insert(row(i, "quiet", text), unit(i))
    expected = bm25_hits(alone, "quiet", ["coffee", "river"], max_postings=10)
    alone.close()
    assert quiet.scores == pytest.approx(dict(zip((31, 32, 33), expected.scores.values())))
    assert quiet.full_match == pytest.approx(expected.full_match)


def test_a_namespace_index_follows_supersession_archive_and_rollback(store):
    with store.transaction():
        first = store.insert(row(1, "a", "coffee with oat milk"), unit(1))
        second = store.insert(row(2, "a", "coffee black"), unit(2))
    with store.transaction():
        store.mark_superseded(first, "m2")
        store.move_to_archive(second, "2024-02-01T00:00:00Z")
    assert bm25_hits(store, "a", ["coffee"], 100).scores == {}
    with store.transaction():
        store.restore_from_archive(second)
    assert list(bm25_hits(store, "a", ["coffee"], 100).scores) == [second]
    with pytest.raises(RuntimeError), store.transaction():  # the new namespace's table goes with the rollback
        store.insert(row(3, "b", "coffee"), unit(3))
        raise RuntimeError("abort")
    with store.transaction():
        third = store.insert(row(4, "b", "coffee"), unit(4))
    assert list(bm25_hits(store, "b", ["coffee"], 100).scores) == [third]


def test_migration_moves_the_store_wide_index_into_namespace_tables(tmp_path):
    """m014 on a data dir written before it: every live memory is searchable in its namespace's
    table, with its context, and a superseded one is not."""
    import sqlean
    import sqlite_utils

    from agentmemd.memory.store.migrations import migrations

    path = tmp_path / "old.db"
    db = sqlite_utils.Database(sqlean.connect(str(path)))
    migrations.apply(db, stop_before="m014_namespace_fts")
    columns = row(0)
    for i, (ns, content, context, superseded) in enumerate(
        [("a", "coffee with oat milk", None, None), ("a", "tea", "morning coffee talk", None),
         ("b", "coffee black", None, "m9"), ("b", "river walk", "", None)], 1
    ):  # fmt: skip
        values = {**columns, "id": f"m{i}", "namespace": ns, "content": content, "context": context,
                  "superseded_by": superseded, "embedding": b"", "tags": "[]"}  # fmt: skip
        db["memories"].insert({"seq": i, **values})
        if superseded is None:
            db.execute(
                "INSERT INTO memories_fts(rowid, text) VALUES (?, ?)",
                (i, f"{context}\n{content}" if context else content),
            )
    db.conn.close()
    migrated = Store(path, dim=DIM, model="test")
    try:
        assert "memories_fts" not in migrated.db.table_names()
        # The vector index of this hand-made store is empty; BM25 only needs a document count.
        migrated.vectors.size = lambda namespace: 2  # type: ignore[method-assign]
        assert set(bm25_hits(migrated, "a", ["coffee"], 100).scores) == {1, 2}
        assert bm25_hits(migrated, "b", ["coffee"], 100).scores == {}
        assert set(bm25_hits(migrated, "b", ["river"], 100).scores) == {4}
    finally:
        migrated.close()


def test_a_long_memory_has_a_vector_per_window_and_matches_by_its_best(store, tmp_path):
    """Issue 16, long text: the windows of a memory are rows of the in-RAM index; a search counts
    the memory once, by its best window, and the windows follow supersession, the archive and a
    restart."""
    windows = np.vstack([unit(0), unit(1), unit(2)])
    with store.transaction():
        long_one = store.insert(row(1), windows)
        short = store.insert(row(2), unit(3))
    assert store.knn("default", unit(2), 5)[0] == (long_one, pytest.approx(1.0, abs=1e-3))
    assert [seq for seq, _ in store.knn("default", unit(1), 2)] == [long_one, short]  # once, though 3 rows match
    assert store.window_vectors([long_one, short]).keys() == {long_one}
    assert store.vectors.size("default") == 2  # memories, not vectors: BM25's document count
    with store.transaction():
        store.move_to_archive(long_one, "2024-02-01T00:00:00Z")
    assert [seq for seq, _ in store.knn("default", unit(2), 5)] == [short]
    with store.transaction():
        store.restore_from_archive(long_one)
    assert store.knn("default", unit(2), 1)[0][0] == long_one
    reopened = Store(store.path, dim=DIM, model="test")
    try:
        assert reopened.knn("default", unit(2), 1)[0][0] == long_one
        assert reopened.knn("default", unit(1), 5)[1][0] == short
    finally:
        reopened.close()
    with store.transaction():
        store.mark_superseded(long_one, "m9")
    assert [seq for seq, _ in store.knn("default", unit(2), 5)] == [short]


def test_the_episodes_migration_links_stored_observations_and_leaves_old_turns_to_index(tmp_path):
    """m017 on a data dir written before it: an observation's memory is linked to the turns it
    was made from, and every stored turn is left without an episode, for the worker to index."""
    import json

    import sqlean
    import sqlite_utils

    from agentmemd.memory.store.migrations import migrations

    path = tmp_path / "old.db"
    db = sqlite_utils.Database(sqlean.connect(str(path)))
    migrations.apply(db, stop_before="m017_episodes")
    for seq, text in [(1, "I moved to Lisbon."), (2, "Nice!"), (3, "And I adopted a cat.")]:
        db["conversation_turns"].insert(
            {
                "seq": seq,
                "session": "s",
                "namespace": "default",
                "role": "user",
                "speaker": "Ana",
                "content": text,
                "ts": "2024-01-01T00:00:00Z",
                "tokens": 4,
                "observed_run": 1,
            }  # fmt: skip
        )
    db["observations"].insert(
        {
            "id": "o1",
            "session": "s",
            "namespace": "default",
            "memory_id": "m1",
            "date": "2024-01-01",
            "priority": "HIGH",
            "category": "fact",
            "content": "Ana said: I moved to Lisbon.",
            "source_turns": json.dumps([1, 3]),
            "tokens": 6,
            "run_id": 1,
            "audience": "user",
        }  # fmt: skip
    )
    db.conn.close()
    migrated = Store(path, dim=DIM, model="test")
    try:
        links = migrated.conn.execute("SELECT memory_id, turn_seq FROM memory_turns ORDER BY turn_seq").fetchall()
        assert links == [("m1", 1), ("m1", 3)]
        waiting = migrated.conn.execute("SELECT count(*) FROM conversation_turns WHERE episode IS NULL").fetchone()
        assert waiting == (3,)
    finally:
        migrated.close()


def test_a_commit_during_a_namespace_load_is_not_missed():
    """A namespace is read into RAM outside the index's lock; what commits meanwhile (added after the
    load's snapshot, or removed from it) is replayed onto the matrix once it is in (issue 17)."""
    from agentmemd.memory.store.database import to_blob
    from agentmemd.memory.store.vector_index import VectorIndex

    unit = np.eye(4, dtype=np.float32)
    index: VectorIndex

    def loader(namespace: str):
        # The snapshot the load read: seqs 1 and 2. Meanwhile seq 3 commits and seq 2 is removed.
        index.add(namespace, 3, unit[2])
        index.remove(2)
        return [1, 2], [[to_blob(unit[0]), to_blob(unit[1])]]

    index = VectorIndex(4, loader)
    assert [seq for seq, _ in index.search("ns", unit[2], 3)] == [3, 1]
    assert index.size("ns") == 2


def test_the_sessions_by_namespace_migration_renames_every_trace_outside_the_default_namespace(tmp_path):
    """m023 on a data dir written before it (session ids were unique across the daemon then): a
    session of namespace "work" becomes key "s|work" in each table that names it; the default
    namespace's keep theirs, and memories' sources keep the name."""
    import sqlean
    import sqlite_utils

    from agentmemd.memory.store.migrations import migrations

    path = tmp_path / "old.db"
    db = sqlite_utils.Database(sqlean.connect(str(path)))
    migrations.apply(db, stop_before="m023_sessions_by_namespace")
    turn = {"role": "user", "speaker": "Ana", "content": "hi", "ts": "2024-01-01T00:00:00Z", "tokens": 1}
    for seq, session, namespace in [(1, "s", "work"), (2, "d", "default"), (3, "s_x", "work")]:
        db["conversation_turns"].insert({"seq": seq, "session": session, "namespace": namespace, **turn})
    db["conversation_runs"].insert({"session": "s", "kind": "observe", "trigger": "forced", "provider": "local",
                                    "started": "2024-01-01T00:00:00Z", "status": "ok"})  # fmt: skip
    required = [
        (name, kind)
        for _, name, kind, notnull, default, pk in db.conn.execute("PRAGMA table_info(memories)")
        if notnull and default is None and not pk and name not in ("id", "namespace", "source")
    ]
    for mid, source, namespace in [
        ("m1", "conversation:s#turn:1", "work"),
        ("m2", "conversation:d#turn:2", "default"),
        ("m3", "conversation:s_x#turn:3", "work"),
    ]:
        filler = {name: 0 if kind.upper() in ("INTEGER", "REAL") else "x" for name, kind in required}
        db["memories"].insert({"id": mid, "namespace": namespace, "source": source, **filler})
    db.conn.commit()
    db.conn.close()
    migrated = Store(path, dim=DIM, model="test")
    try:
        sessions = migrated.conn.execute("SELECT seq, session FROM conversation_turns ORDER BY seq").fetchall()
        assert sessions == [(1, "s|work"), (2, "d"), (3, "s_x|work")]
        sources = dict(migrated.conn.execute("SELECT id, source FROM memories").fetchall())
        assert sources == {  # a source names the session; the memory's namespace says whose
            "m1": "conversation:s#turn:1",
            "m2": "conversation:d#turn:2",
            "m3": "conversation:s_x#turn:3",
        }
        runs = migrated.conn.execute("SELECT session FROM conversation_runs").fetchall()
        assert runs == [("s|work",)]  # a table without a namespace column follows the session's key
    finally:
        migrated.close()


def test_turns_appended_to_a_chats_session_before_are_moved_to_its_audience(tmp_path):
    """m048: a turn an agent appended to a chat's session was filed as the user's own (no chat,
    audience "user"); it and its episode take the session's chat and audience. A session of the
    user's own keeps its turns as they are."""
    import sqlean
    import sqlite_utils

    from agentmemd.memory.store.migrations import migrations

    path = tmp_path / "old.db"
    db = sqlite_utils.Database(sqlean.connect(str(path)))
    migrations.apply(db, stop_before="m048_appended_turns_of_chats")
    turn = {
        "role": "user",
        "speaker": "Leo",
        "content": "hi",
        "ts": "2024-01-01T00:00:00Z",
        "tokens": 1,
        "namespace": "default",
    }
    private = {"chat": "telegram:1002", "audience": "private:telegram:1002"}
    for seq, session, episode, where in [(1, "leo", "m1", private), (2, "leo", "m2", {}), (3, "mine", "m3", {})]:
        db["conversation_turns"].insert({"seq": seq, "session": session, "episode": episode, **turn, **where})
    required = [
        (name, kind)
        for _, name, kind, notnull, default, pk in db.conn.execute("PRAGMA table_info(memories)")
        if notnull and default is None and not pk and name not in ("id", "namespace", "source", "audience")
    ]
    filler = {name: 0 if kind.upper() in ("INTEGER", "REAL") else "x" for name, kind in required}
    for mid, audience in [("m1", private["audience"]), ("m2", "user"), ("m3", "user")]:
        db["memories"].insert({"id": mid, "namespace": "default", "source": "s", "audience": audience, **filler})
    db.conn.commit()
    db.conn.close()
    migrated = Store(path, dim=DIM, model="test")
    try:
        turns = migrated.conn.execute("SELECT seq, chat, audience FROM conversation_turns ORDER BY seq").fetchall()
        assert turns == [(1, *private.values()), (2, *private.values()), (3, None, "user")]
        heard = dict(migrated.conn.execute("SELECT id, audience FROM memories").fetchall())
        assert heard == {"m1": private["audience"], "m2": private["audience"], "m3": "user"}
    finally:
        migrated.close()


@pytest.mark.parametrize("split", [False, True], ids=["one-scan", "two-halves"])
def test_the_in_ram_index_finds_the_exact_neighbours_with_windows_a_skip_set_adds_and_removes(monkeypatch, split):
    """The in-RAM matrix's top memories are an exact scan's: each memory by its best window (the
    first 100 memories have two rows each), a skip set never takes a place, and after adds and
    removes (the matrix grows past its capacity and swaps rows in) nothing stale is found; also
    when a large namespace is scanned in two halves (SPLIT_ROWS lowered to this one's size)."""
    from agentmemd.memory.store import vector_index

    if split:
        monkeypatch.setattr(vector_index, "SPLIT_ROWS", 1_000)

    rng = np.random.default_rng(3)
    dim, n = 384, 5_000
    vectors = rng.standard_normal((n, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    seqs = [i // 2 if i < 200 else i for i in range(n)]
    chunks = [[v.tobytes() for v in vectors[i : i + 1024]] for i in range(0, n, 1024)]
    live = {i: seq for i, seq in enumerate(seqs)}  # row of ``vectors`` -> the memory it belongs to

    def exact(query, k, skip=frozenset()):
        best: dict[int, float] = {}
        for i, sim in enumerate((vectors @ query).tolist()):
            if i in live and live[i] not in skip:
                best[live[i]] = max(best.get(live[i], -2.0), sim)
        return sorted(best.items(), key=lambda item: (-item[1], item[0]))[:k]

    def same(found, expected):
        return [seq for seq, _ in found] == [seq for seq, _ in expected] and np.allclose(
            [sim for _, sim in found], [sim for _, sim in expected], atol=1e-5
        )

    matrix = vector_index._NamespaceMatrix(dim, seqs, chunks)
    queries = vectors[rng.integers(n, size=20)] + 0.3 * rng.standard_normal((20, dim)).astype(np.float32)
    for i, q in enumerate(queries):
        q = q / np.linalg.norm(q)
        skip = set(range(1000, 1400)) | {3, 7} if i % 2 else set()
        assert same(matrix.top(q, 100, skip or None), exact(q, 100, skip))
    matrix.remove(2)  # rows 4 and 5 (two windows)
    del live[4], live[5]
    extra = rng.standard_normal((2_000, dim)).astype(np.float32)
    extra /= np.linalg.norm(extra, axis=1, keepdims=True)
    for j, v in enumerate(extra):  # past the matrix's capacity (5,000 + 1,250)
        matrix.add(10**6 + j, v)
    vectors = np.vstack([vectors, extra])
    live.update({n + j: 10**6 + j for j in range(len(extra))})
    for q in (vectors[5], extra[7], vectors[4000]):
        assert same(matrix.top(q, 10), exact(q, 10))
    assert 2 not in [seq for seq, _ in matrix.top(vectors[4], 50)]


@pytest.mark.parametrize(
    "content, asks",
    [
        ("What's your favourite game to play with him?", True),
        ("Really? [shared image: a dog on a beach]", True),
        ("¿Qué juegas con tu pareja?", True),
        ("你们最喜欢一起玩什么游戏？", True),
        ("ما هي لعبتك المفضلة؟", True),
        ("We love It Takes Two. [shared image: a console]", False),
        ("Is it? No, it was the lake.", False),
    ],
)
def test_a_neighbour_is_known_to_ask_a_question(store, content, asks):
    """A memory stored just after a question is its answer (candidates.py): whether a neighbour
    asks one is read in SQL, in the scripts people write."""
    with store.transaction():
        seq = store.insert(row(0, content=content), unit(0))
    assert bool(store.neighbour_rows([seq])[0]["asks"]) is asks


def test_migration_files_run_in_the_order_of_their_numbers_without_gaps_or_repeats():
    from agentmemd.memory.store.migrations import in_order, migrations

    assert in_order(["m002_b", "shared", "m001_a", "m003_c"]) == ["m001_a", "m002_b", "m003_c"]
    for names in (["m001_a", "m003_c"], ["m001_a", "m002_b", "m002_b2"]):  # a file lost; two given one number
        with pytest.raises(RuntimeError, match="without gaps or repeats"):
            in_order(names)
    numbers = [int(m.name[1:4]) for m in migrations._migrations]
    assert numbers == list(range(1, len(numbers) + 1))  # the package registered every file, in order


def test_a_namespace_first_searched_inside_an_older_read_snapshot_misses_no_commit(store):
    """A search's read transaction may have begun before a commit whose changes the in-RAM index
    could not take (the namespace was not loaded yet). If the search then loads the namespace, the
    load must not read that older snapshot: the superseded memory would stay in RAM for good (a
    search kept returning the old version of an edited workspace line) and the new one be missing."""
    import threading

    with store.transaction():
        old = store.insert(row(1), unit(1))
    snapshot_taken, committed = threading.Event(), threading.Event()
    found: list[int] = []

    def search_inside_an_older_snapshot() -> None:
        with store.reading():
            assert [r["seq"] for r in store.rows_by_seq([old])] == [old]  # the snapshot begins here
            snapshot_taken.set()
            committed.wait(10)
            found.extend(seq for seq, _ in store.knn("default", unit(1), 10))  # the namespace's first load

    reader = threading.Thread(target=search_inside_an_older_snapshot)
    reader.start()
    assert snapshot_taken.wait(10)
    with store.transaction():  # the store thread supersedes it meanwhile
        store.mark_superseded(old, "m000000000000002")
        new = store.insert(row(2, content="memory number 1, edited"), unit(1))
    committed.set()
    reader.join(10)
    assert found  # the search itself may see either version
    with store.reading():
        later = [seq for seq, _ in store.knn("default", unit(1), 10)]
    assert later == [new]


def test_a_namespace_first_searched_inside_a_transaction_keeps_nothing_rolled_back(store):
    """The store thread may search (a memory.add's duplicate check) inside a transaction that
    then rolls back: a namespace loaded there must not take the rolled-back memory into RAM."""
    with store.transaction():
        kept = store.insert(row(1), unit(1))
    store.vectors.clear()  # as a fresh process: the namespace is not in RAM yet
    with pytest.raises(RuntimeError):
        with store.transaction():
            store.insert(row(2), unit(1))
            store.knn("default", unit(1), 10)  # the namespace's first load
            raise RuntimeError("the request failed")
    assert [seq for seq, _ in store.knn("default", unit(1), 10)] == [kept]


@pytest.mark.parametrize("folder", ["Project #2", "what?", "100% mine", "Notas de José"])
def test_a_data_dir_whose_name_a_uri_would_misread_is_read_and_exported(tmp_path, folder):
    """A reader's connection, a namespace's first load and an export open the database read-only
    by URI: a '#', '?' or '%' in the path must not end or change the file's name there (with '#',
    every search failed with "no such table: memories")."""
    from agentmemd.memory.store.archive import read_archive, write_archive

    data = tmp_path / folder
    data.mkdir()
    store = Store(data / "agentmemd.db", dim=DIM, model="test")
    try:
        with store.transaction():
            seq = store.insert(row(1), unit(1))
        with store.reading():
            assert [r["seq"] for r in store.rows_by_seq([seq])] == [seq]
            assert [s for s, _ in store.knn("default", unit(1), 5)] == [seq]
        write_archive(data / "agentmemd.db", tmp_path / "out.tar.gz", "test")
        _, files = read_archive(tmp_path / "out.tar.gz")
        assert b"memory number 1" in files["tables/memories.jsonl"]
    finally:
        store.close()
