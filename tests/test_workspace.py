"""The Markdown workspace: a real daemon watching a temporary workspace (issue 3)."""

from __future__ import annotations

import os
import random
import shutil
import signal
import time
from pathlib import Path

import pytest
from conftest import NO_JOBS, wait_for

from agentmemd.memory.workspace.markdown import parse_markdown, parse_markdown_bounded

pytestmark = pytest.mark.process  # the tier (pyproject.toml)

ROOT = Path(__file__).resolve().parent.parent
NS = "ws"

USER_MD = """# USER
<!-- The user's profile. -->

## About
Oscar is a software engineer who lives in Barcelona with his partner Marta.

## People
- Sam is Oscar's younger brother; they go climbing on Sundays.
- Ana is Oscar's manager at the Ofertes project.

## Preferences
- Oscar prefers short answers without bullet points.
- Oscar drinks green tea, never coffee after noon.

<!-- agentmemd:begin -->
- The daemon wrote this line about xylophones.
<!-- agentmemd:end -->
"""


@pytest.fixture
def workspace(tmp_path) -> Path:
    ws = tmp_path / "workspace"
    shutil.copytree(ROOT / "workspace_template", ws)
    (ws / "USER.md").write_text(USER_MD)
    (ws / "memory" / "topics" / "climbing.md").write_text(
        "# Climbing\n\n- Oscar climbs at the Sharma gym in Gava.\n- His project route is graded 7a.\n"
    )
    return ws


@pytest.fixture
def wsd(spawn, workspace):
    """A daemon on its own data dir, watching `workspace`, system clock."""
    return spawn(
        {
            "workspace": {"path": str(workspace), "namespace": NS, "debounce_ms": 100, "max_file_bytes": 4096},
            "jobs": NO_JOBS,
        }
    )


def find(d, text: str, path: str | None = None) -> dict | None:
    for hit in d.call("memory.search", {"query": text, "k": 10, "namespace": NS})["results"]:
        if hit["content"] == text and (path is None or hit["source"].startswith(path)):
            return hit
    return None


def indexed(predicate, timeout: float = 2.0):
    """(value, seconds until it was true): the watcher must index a save within ``timeout``."""
    start = time.monotonic()
    value = wait_for(predicate, timeout=timeout)
    return value, time.monotonic() - start


def write_atomically(path: Path, text: str) -> None:
    """How vim/VS Code-style editors save: write a temp file, rename it over the original."""
    tmp = path.with_name(f".{path.name}.swp")
    tmp.write_text(text)
    os.replace(tmp, path)


def test_start_indexes_every_file_with_types_and_provenance(wsd):
    sam = find(wsd, "Sam is Oscar's younger brother; they go climbing on Sundays.")
    assert sam["type"] == "relational" and sam["source"] == "USER.md#USER > People L8"
    tea = find(wsd, "Oscar drinks green tea, never coffee after noon.")
    assert tea["type"] == "preference" and tea["source"] == "USER.md#USER > Preferences L13"
    about = find(wsd, "Oscar is a software engineer who lives in Barcelona with his partner Marta.")
    assert about["type"] == "preference" and about["source"] == "USER.md#USER > About L5"
    gym = find(wsd, "Oscar climbs at the Sharma gym in Gava.")
    assert gym["type"] == "fact" and gym["source"].startswith("memory/topics/climbing.md#Climbing L3")
    # Guidance comments and the daemon's own section are not memories.
    assert not any(
        "xylophone" in h["content"]
        for h in wsd.call("memory.search", {"query": "xylophones", "k": 10, "namespace": NS})["results"]
    )
    pack = wsd.call("context.pack", {"query": "who is Sam?", "budget_tokens": 300, "namespace": NS})
    assert "USER.md#USER > People L8" in pack["text"]
    status = wsd.call("workspace.status")
    assert {f["path"] for f in status["files"]} >= {"USER.md", "SOUL.md", "memory/topics/climbing.md"}


def test_a_new_item_is_searchable_within_two_seconds(wsd, workspace):
    user = workspace / "USER.md"
    user.write_text(USER_MD.replace("## Preferences\n", "## Preferences\n- Oscar is allergic to penicillin.\n"))
    hit, seconds = indexed(lambda: find(wsd, "Oscar is allergic to penicillin."))
    print(f"searchable after {seconds:.2f} s")
    assert hit["type"] == "preference" and hit["source"] == "USER.md#USER > Preferences L12"
    # The items below it moved down a line: same memory, provenance follows.
    tea = find(wsd, "Oscar drinks green tea, never coffee after noon.")
    assert tea["source"] == "USER.md#USER > Preferences L14"


def test_an_edit_is_a_new_version_not_a_duplicate(wsd, workspace):
    old = find(wsd, "Ana is Oscar's manager at the Ofertes project.")
    write_atomically(workspace / "USER.md", USER_MD.replace("Ana is Oscar's manager", "Ana was Oscar's manager"))
    new, _ = indexed(lambda: find(wsd, "Ana was Oscar's manager at the Ofertes project."))
    before = wsd.call("memory.get", {"namespace": NS, "id": old["id"]})
    assert before["superseded_by"] == new["id"] and before["content"].startswith("Ana is")
    after = wsd.call("memory.get", {"namespace": NS, "id": new["id"]})
    assert after["supersedes"] == old["id"] and after["version"] == 2 and after["type"] == "relational"
    hits = wsd.call("memory.search", {"query": "Ana manager Ofertes", "k": 10, "namespace": NS})["results"]
    assert [h["id"] for h in hits if "Ana" in h["content"]] == [new["id"]]


def test_deleted_items_and_files_are_archived_not_lost(wsd, workspace):
    sam = find(wsd, "Sam is Oscar's younger brother; they go climbing on Sundays.")
    gym = find(wsd, "Oscar climbs at the Sharma gym in Gava.")
    (workspace / "USER.md").write_text(
        USER_MD.replace("- Sam is Oscar's younger brother; they go climbing on Sundays.\n", "")
    )
    (workspace / "memory" / "topics" / "climbing.md").unlink()
    indexed(
        lambda: (
            wsd.call("memory.get", {"id": gym["id"], "namespace": NS})["tier"] == "archived"
            and wsd.call("memory.get", {"id": sam["id"], "namespace": NS})["tier"] == "archived"
        )
    )
    assert wsd.call("memory.get", {"id": sam["id"], "namespace": NS})["content"].startswith(
        "Sam is"
    )  # still recoverable
    assert find(wsd, "Oscar climbs at the Sharma gym in Gava.") is None


def test_a_renamed_file_keeps_its_memories(wsd, workspace):
    gym = find(wsd, "Oscar climbs at the Sharma gym in Gava.")
    topics = workspace / "memory" / "topics"
    os.rename(topics / "climbing.md", topics / "sport.md")
    moved, _ = indexed(
        lambda: (
            (h := find(wsd, "Oscar climbs at the Sharma gym in Gava."))
            and h["source"].startswith("memory/topics/sport.md")
            and h
        )
    )
    assert moved["id"] == gym["id"]
    assert wsd.call("memory.get", {"id": gym["id"], "namespace": NS})["superseded_by"] is None


def test_a_burst_of_saves_ends_in_the_last_text(wsd, workspace):
    path = workspace / "memory" / "topics" / "climbing.md"
    for n in range(1, 21):
        write_atomically(
            path,
            f"# Climbing\n\n- Oscar climbs at the Sharma gym in Gava.\n- His project route is graded 7a, attempt {n}.\n",
        )
        time.sleep(0.01)
    final, _ = indexed(lambda: find(wsd, "His project route is graded 7a, attempt 20."), timeout=3)
    live = [
        h
        for h in wsd.call("memory.search", {"query": "project route graded 7a attempt", "k": 10, "namespace": NS})[
            "results"
        ]
        if "project route" in h["content"]
    ]
    assert [h["id"] for h in live] == [final["id"]]


def test_edits_made_while_the_daemon_was_down_are_caught_up_at_start(wsd, workspace):
    ana = find(wsd, "Ana is Oscar's manager at the Ofertes project.")
    gym = find(wsd, "Oscar climbs at the Sharma gym in Gava.")
    tea = find(wsd, "Oscar drinks green tea, never coffee after noon.")
    assert wsd.terminate(signal.SIGTERM) == 0
    (workspace / "USER.md").write_text(
        USER_MD.replace("Ana is Oscar's manager at", "Ana is Oscar's former manager at")
        + "\n## Health\n- Oscar runs 10 km every Saturday.\n"
    )
    (workspace / "memory" / "topics" / "climbing.md").unlink()
    (workspace / "memory" / "knowledge").joinpath("barcelona.md").write_text(
        "# Barcelona\n\nThe Sagrada Familia is in Barcelona.\n"
    )
    wsd.start()  # waits until health reports the background catch-up done
    new_ana = find(wsd, "Ana is Oscar's former manager at the Ofertes project.")
    assert wsd.call("memory.get", {"id": ana["id"], "namespace": NS})["superseded_by"] == new_ana["id"]
    assert find(wsd, "Oscar runs 10 km every Saturday.")["source"] == "USER.md#USER > Health L20"
    assert find(wsd, "The Sagrada Familia is in Barcelona.")["type"] == "fact"
    assert wsd.call("memory.get", {"id": gym["id"], "namespace": NS})["tier"] == "archived"
    assert find(wsd, "Oscar drinks green tea, never coffee after noon.")["id"] == tea["id"]  # untouched: same memory


def test_invalid_files_are_skipped_with_a_reason(wsd, workspace):
    (workspace / "memory" / "topics" / "photo.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary")
    (workspace / "memory" / "topics" / "latin1.md").write_bytes("- Caf\xe9 con leche".encode("latin-1"))
    (workspace / "memory" / "topics" / "notepad.md").write_bytes("- Caf\xe9 con leche".encode("utf-16"))
    (workspace / "memory" / "topics" / "huge.md").write_text("- big line\n" * 1000)
    (workspace / "memory" / "topics" / "bad-tag.md").write_text("<!-- type: wizard -->\n- a wizard item\n")
    (workspace / "memory" / "topics" / "fine.md").write_text("- Oscar's bike is a blue Brompton.\n")
    indexed(lambda: find(wsd, "Oscar's bike is a blue Brompton."))

    def reasons():
        files = {f["path"]: f for f in wsd.call("workspace.status")["files"]}
        names = ("photo", "latin1", "notepad", "huge", "bad-tag")
        if all(f"memory/topics/{n}.md" in files for n in names):
            return {n: files[f"memory/topics/{n}.md"]["reason"] for n in names}
        return None

    why, _ = indexed(reasons)
    assert "binary" in why["photo"] and "not UTF-8" in why["latin1"]
    assert why["notepad"] == "UTF-16 text: save it as UTF-8 to have it indexed"  # not "binary": it is text
    assert "max_file_bytes" in why["huge"] and "unknown type 'wizard'" in why["bad-tag"]
    assert wsd.call("health")["status"] == "ok"


def test_init_copies_the_template_without_overwriting(tmp_path):
    from agentmemd.daemon.cli.main import main

    target = tmp_path / "ws"
    target.mkdir()
    (target / "SOUL.md").write_text("# My own soul\n- I keep this.\n")
    assert main(["init", str(target)]) == 0
    assert (target / "SOUL.md").read_text() == "# My own soul\n- I keep this.\n"
    assert (target / "USER.md").is_file() and (target / "memory" / "topics").is_dir()
    config = (tmp_path / "agentmemd.toml").read_text()
    assert f'path = "{target.resolve()}"' in config
    assert main(["init", str(target)]) == 0  # again: nothing changes, the config is kept
    assert (tmp_path / "agentmemd.toml").read_text() == config


def test_init_beside_a_config_that_points_elsewhere_says_so(tmp_path, capsys):
    """The config beside a new workspace is a person's and is left alone; it said nothing when
    that config did not point at the workspace, so `serve --config` then indexed none of it."""
    from agentmemd.daemon.cli.main import main

    (tmp_path / "agentmemd.toml").write_text('[jobs]\ndaily_log = ""\n')
    assert main(["init", str(tmp_path / "ws")]) == 0
    said = capsys.readouterr().out
    assert (
        "exists and was left alone" in said and f'add path = "{(tmp_path / "ws").resolve()}" under [workspace]' in said
    )
    assert (tmp_path / "agentmemd.toml").read_text() == '[jobs]\ndaily_log = ""\n'
    (tmp_path / "agentmemd.toml").write_text(f'[workspace]\npath = "{tmp_path / "ws"}"\n')
    assert main(["init", str(tmp_path / "ws")]) == 0
    assert "was left alone" not in capsys.readouterr().out  # it points here: nothing to say


def test_cli_lists_workspace_files(wsd):
    from click.testing import CliRunner

    from agentmemd.daemon.cli.main import cli

    out = CliRunner().invoke(cli, ["--socket", str(wsd.socket), "workspace"]).stdout
    assert "indexed  USER.md" in out
    out = CliRunner().invoke(cli, ["--socket", str(wsd.socket), "workspace", "--sync"]).stdout
    assert "added" in out


def test_the_socket_opens_before_a_big_catch_up_and_a_huge_file_is_cut(spawn, workspace):
    """A big edit made while the daemon was down is indexed after the socket opens, in batches,
    with requests answered meanwhile; a file of one-word bullets is cut at max_items_per_file."""
    d = spawn(
        {
            "workspace": {"path": str(workspace), "namespace": NS, "max_items_per_file": 300, "sync_batch_files": 8},
            "jobs": NO_JOBS,
        }
    )
    assert d.terminate(signal.SIGTERM) == 0
    (workspace / "memory" / "knowledge" / "words.md").write_text(
        "# Words\n" + "".join(f"- word{i}\n" for i in range(20_000))
    )
    for n in range(60):
        (workspace / "memory" / "knowledge" / f"note{n:02d}.md").write_text(f"# Note {n}\n\n- Fact number {n}.\n")
    d.start(caught_up=False)
    health = d.call("health")
    assert health["catching_up"], health  # answering while the catch-up runs
    done = wait_for(lambda: not (h := d.call("health"))["catching_up"] and h, timeout=120)
    assert done["status"] == "ok"
    files = {f["path"]: f for f in d.call("workspace.status")["files"]}
    reason = files["memory/knowledge/words.md"]["reason"]
    assert "cut at max_items_per_file: the first 300 items indexed, the rest from line 302 on" in reason
    assert files["memory/knowledge/note59.md"]["status"] == "indexed"
    assert d.call("stats", {"namespace": NS})["live"] >= 300 + 60


def _mixed_markdown(rng: random.Random, blocks: int) -> str:
    """Every block kind whose parse depends on the lines after it: setext underlines, fences,
    lazy paragraph continuations, nested lists, tables, owned sections, annotations."""
    kinds = [
        lambda i: f"- bullet {i}\n",
        lambda i: f"1. numbered {i}\n   continued {i}\n",
        lambda i: f"Paragraph {i} line one\nline two {i}\n\n",
        lambda i: f"Setext {i}\n===\n\n",
        lambda i: f"## Heading {i}\n\n",
        lambda i: f"```\ncode {i}\n\n- not a bullet {i}\n```\n\n",
        lambda i: f"| a | b |\n|---|---|\n| {i} | x |\n\n",
        lambda i: f"- outer {i}\n  - inner {i}\n\n",
        lambda i: f"<!-- agentmemd:begin -->\n- owned {i}\n<!-- agentmemd:end -->\n",
        lambda i: f"<!-- type: fact -->\n- annotated {i}\n\n",
        lambda i: f"> quoted {i}\nlazy {i}\n\n",
    ]
    return "".join(rng.choice(kinds)(i) for i in range(blocks))


@pytest.mark.parametrize("seed", range(6))
def test_a_bounded_parse_keeps_exactly_the_items_a_whole_parse_starts_with(seed):
    """The cut parses a growing prefix, never the whole of a huge file; what it keeps is what the
    whole parse would have given, item for item, whatever block the cut falls in."""
    rng = random.Random(seed)
    text = _mixed_markdown(rng, rng.randrange(300, 1500))
    whole = parse_markdown("memory/notes.md", text)
    cases = [(n, None) for n in (1, 7, 50, 256, 2000, 10_000)]
    # First prefixes that end inside every kind of block, with the item limit right at the edge.
    for window in range(5, 200, 6):
        near_edge = sum(1 for it in whole if it.line_end < window)
        cases += [(n, window) for n in {max(1, near_edge - 1), max(1, near_edge), near_edge + 1}]
    for max_items, window in cases:
        bounded = parse_markdown_bounded("memory/notes.md", text, max_items, first_window=window)
        assert bounded.items == whole[:max_items], (seed, max_items, window)
        if len(whole) > max_items:
            assert bounded.cut_at_line == whole[max_items].line_start
        else:
            assert bounded.cut_at_line is None


def test_a_huge_file_is_cut_without_parsing_all_of_it():
    """200,000 one-word bullets (1.3 MB): the whole parse is what took 17 s and 1.5 GB."""
    text = "".join(f"- w{i}\n" for i in range(200_000))
    bounded = parse_markdown_bounded("memory/words.md", text, 2000)
    assert len(bounded.items) == 2000 and bounded.cut_at_line == 2001
    assert bounded.items[-1].content == "w1999"
