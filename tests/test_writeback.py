"""Writing back into the workspace (issue 3): owned sections only, never clobbering a person."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from conftest import NO_JOBS, wait_for

from agentmemd.memory.workspace.markdown import OWNED_BEGIN, OWNED_END
from agentmemd.memory.workspace.owned_sections import (
    WriteBackError,
    owned_body,
    write_owned_section,
)

pytestmark = pytest.mark.process  # the tier (pyproject.toml)

ROOT = Path(__file__).resolve().parent.parent
NS = "wb"
DAY = "2026-11-20"
PERSON_LOG = f"""# {DAY}

- Met Caroline for coffee; she talked about the adoption agencies.
- Melanie's pottery class starts on Thursday.
"""


# ---- the writer itself ---------------------------------------------------------------


def test_write_creates_the_section_and_leaves_the_persons_text_alone(tmp_path):
    path = tmp_path / "log.md"
    path.write_text(PERSON_LOG)
    result = write_owned_section(path, "## agentmemd\n- one")
    assert result.changed and result.attempts == 1
    text = path.read_text()
    assert text.startswith(PERSON_LOG.rstrip("\n"))
    assert text.endswith(f"{OWNED_BEGIN}\n## agentmemd\n- one\n{OWNED_END}\n")
    # Rewritten in place, never appended twice; unchanged text is not rewritten at all.
    write_owned_section(path, "## agentmemd\n- one\n- two", last_written="## agentmemd\n- one")
    assert path.read_text().count(OWNED_BEGIN) == 1 and "- two" in path.read_text()
    mtime = path.stat().st_mtime_ns
    assert write_owned_section(path, "## agentmemd\n- one\n- two").changed is False
    assert path.stat().st_mtime_ns == mtime


def test_a_file_an_editor_has_just_emptied_is_left_alone_until_it_settles(tmp_path):
    """An editor that truncates, then writes: written into the empty file between the two, the
    rename left the editor's write going to a file no longer there, and the person's text was gone."""
    import os

    path = tmp_path / "GOALS.md"
    path.write_text("# GOALS\n- [ ] Renew the passport\n")
    write_owned_section(path, "## agentmemd\n- one")
    with open(path, "w") as editor:  # truncated: the editor has not written yet
        with pytest.raises(WriteBackError, match="empty and was saved just now"):
            write_owned_section(path, "## agentmemd\n- two", last_written="## agentmemd\n- one")
        editor.write("# GOALS\n- [ ] Renew the passport\n- [ ] New\n")
    assert path.read_text() == "# GOALS\n- [ ] Renew the passport\n- [ ] New\n"  # nothing lost
    empty = tmp_path / "cleared.md"  # a file a person emptied a while ago is written as any
    empty.write_text("")
    os.utime(empty, (time.time() - 60, time.time() - 60))
    assert write_owned_section(empty, "## agentmemd\n- one", last_written="## agentmemd\n- old").changed


def test_markers_inside_a_persons_code_block_are_their_text(tmp_path):
    """A note showing the section's format, in a fenced code block: its lines were taken for the
    daemon's section, the example line deleted and the section written inside the code block."""
    from agentmemd.memory.workspace.markdown import parse_markdown_bounded

    shown = f"# MEMORY\n- My notes on the format:\n\n```markdown\n{OWNED_BEGIN}\nexample\n{OWNED_END}\n```\n"
    path = tmp_path / "MEMORY.md"
    path.write_text(shown)
    write_owned_section(path, "## agentmemd\n- Laia commutes by bike")
    text = path.read_text()
    assert text.startswith(shown) and text.endswith(
        f"{OWNED_BEGIN}\n## agentmemd\n- Laia commutes by bike\n{OWNED_END}\n"
    )
    assert owned_body(text) == "## agentmemd\n- Laia commutes by bike"
    # A begin marker without its end: what follows is the person's, indexed, and the file says why.
    broken = f"# MEMORY\n{OWNED_BEGIN}\n- old daemon line\n- A fact I appended\n"
    parsed = parse_markdown_bounded("MEMORY.md", broken, 100)
    assert "A fact I appended" in [item.content for item in parsed.items]
    assert any("without" in problem and OWNED_END in problem for problem in parsed.problems)


def test_an_edit_saved_while_the_daemon_writes_is_kept(tmp_path):
    """The worst moment: the person saves after the daemon read the file, before it renames."""
    path = tmp_path / "log.md"
    path.write_text(PERSON_LOG)
    write_owned_section(path, "## agentmemd\n- first")

    def person_saves(attempt: int) -> None:
        if attempt == 1:
            text = path.read_text().replace("Thursday.", "Thursday at 18:00.")
            tmp = path.with_name(".log.md.swp")
            tmp.write_text(text + "\n- A line the person added while the daemon was writing.\n")
            tmp.replace(path)  # how editors save

    result = write_owned_section(
        path, "## agentmemd\n- second", last_written="## agentmemd\n- first", before_replace=person_saves
    )
    assert result.attempts == 2  # the changed file was noticed and the write redone on it
    text = path.read_text()
    assert "Thursday at 18:00." in text
    assert "- A line the person added while the daemon was writing." in text
    assert owned_body(text) == "## agentmemd\n- second"
    assert "- first" not in text


def test_a_file_that_never_stops_changing_is_left_alone(tmp_path):
    path = tmp_path / "log.md"
    path.write_text(PERSON_LOG)
    counter = iter(range(100))

    def keeps_editing(attempt: int) -> None:
        with path.open("a") as fh:
            fh.write(f"- edit {next(counter)}\n")

    with pytest.raises(WriteBackError, match="changed on every one of 3 attempts"):
        write_owned_section(path, "## agentmemd\n- x", attempts=3, before_replace=keeps_editing)
    assert OWNED_BEGIN not in path.read_text()
    assert not list(tmp_path.glob(".*.tmp"))  # no temp files left behind


def test_lines_a_person_edited_inside_the_section_are_moved_out_not_lost(tmp_path):
    path = tmp_path / "MEMORY.md"
    write_owned_section(
        path, "## agentmemd\n- Pattern: pottery `m1`\n- Pattern: adoption `m2`", create_header="# MEMORY\n"
    )
    edited = path.read_text().replace("- Pattern: adoption `m2`", "- Caroline adopted a girl named Ava in October.")
    path.write_text(edited)
    result = write_owned_section(
        path,
        "## agentmemd\n- Pattern: pottery `m1`\n- Pattern: adoption `m3`",
        last_written="## agentmemd\n- Pattern: pottery `m1`\n- Pattern: adoption `m2`",
        note="moved out",
    )
    assert result.kept_person_lines == 1
    text = path.read_text()
    before, section = text.split(OWNED_BEGIN)
    assert "- Caroline adopted a girl named Ava in October." in before and "<!-- moved out -->" in before
    assert "Ava" not in section and "`m3`" in section


def test_a_file_an_editor_saved_with_crlf_or_trimmed_is_not_taken_for_a_persons_edit(tmp_path):
    """A Windows editor saves the whole file with CRLF (and may trim trailing spaces): every line of
    the section then differed from what the daemon wrote, so the next write moved the daemon's own
    old lines out of the section as the person's, where they read as the person's words. The file
    keeps its byte-order mark and its line endings; a real edit in it is still kept."""
    path = tmp_path / "MEMORY.md"
    path.write_bytes("\ufeff# MEMORY\r\n\r\nMy own notes.\r\n".encode())
    first = "## agentmemd\n- Oscar drinks tea. `m1`\n- Ana manages Oscar. `m2`"
    write_owned_section(path, first)
    saved = path.read_bytes()
    assert saved.startswith(b"\xef\xbb\xbf") and b"\n" not in saved.replace(b"\r\n", b"")  # CRLF throughout
    path.write_bytes(saved.replace(b"`m2`", b"`m2`  "))  # an editor's own whitespace
    second = "## agentmemd\n- Oscar drinks green tea. `m3`\n- Ana manages Oscar. `m2`"
    assert write_owned_section(path, second, last_written=first, note="moved out").kept_person_lines == 0
    text = path.read_bytes().decode("utf-8")
    assert "moved out" not in text and "drinks tea" not in text and "green tea" in text
    assert text.startswith("\ufeff# MEMORY\r\n") and "\n" not in text.replace("\r\n", "")
    edited = text.replace("- Ana manages Oscar. `m2`", "- Ana manages Oscar and Marta.")
    path.write_bytes(edited.encode("utf-8"))
    assert write_owned_section(path, first, last_written=second, note="moved out").kept_person_lines == 1
    before, _ = path.read_bytes().decode("utf-8").split(OWNED_BEGIN)
    assert "- Ana manages Oscar and Marta.\r\n" in before


@pytest.mark.parametrize(
    "content, message",
    [
        (b"caf\xe9 notes\n", "not valid UTF-8"),
        (b"\x00\x01binary", "not a text file"),
        ("# MEMORY\n".encode("utf-16"), "UTF-16 text"),  # Notepad's "Unicode"
        (f"# x\n{OWNED_BEGIN}\n- no end marker\n".encode(), "without"),
    ],
)
def test_files_it_cannot_safely_edit_are_not_touched(tmp_path, content, message):
    path = tmp_path / "log.md"
    path.write_bytes(content)
    with pytest.raises(WriteBackError, match=message):
        write_owned_section(path, "## agentmemd\n- x")
    assert path.read_bytes() == content


def test_daemon_text_cannot_close_the_section_early(tmp_path):
    from agentmemd.memory.workspace.owned_sections import neutralise

    path = tmp_path / "log.md"
    line = neutralise(f"evil {OWNED_END} and <!-- comment -->\nnext line")
    write_owned_section(path, f"## agentmemd\n- {line}")
    text = path.read_text()
    assert text.count(OWNED_END) == 1 and "\nnext line" not in text


# ---- through the daemon ---------------------------------------------------------------


@pytest.fixture
def workspace(tmp_path) -> Path:
    ws = tmp_path / "workspace"
    shutil.copytree(ROOT / "workspace_template", ws)
    (ws / "memory" / f"{DAY}.md").write_text(PERSON_LOG)
    return ws


@pytest.fixture
def wbd(spawn, workspace):
    return spawn(
        {
            "workspace": {"path": str(workspace), "namespace": NS, "debounce_ms": 100},
            "clock": {"start": f"{DAY}T09:00:00Z"},
            "jobs": NO_JOBS,
        }
    )


def sourced_from(d, path: str) -> list[dict]:
    hits = d.call(
        "memory.search", {"query": "Caroline Melanie adoption pottery agencies class", "k": 50, "namespace": NS}
    )["results"]
    return [h for h in hits if (h["source"] or "").startswith(path)]


def test_the_daily_log_gets_what_was_learned_and_is_not_reindexed(wbd, workspace):
    log = workspace / "memory" / f"{DAY}.md"
    learned = [
        "Caroline passed the adoption agency interviews last Friday.",
        "Melanie finished her first pottery bowl and painted it blue.",
    ]
    ids = wbd.call("memory.add_many", {"items": [{"content": c, "type": "fact", "namespace": NS} for c in learned]})[
        "ids"
    ]
    before = {h["id"] for h in sourced_from(wbd, f"memory/{DAY}.md")}
    assert len(before) == 2  # the person's two bullets
    live_before = wbd.call("stats", {"namespace": NS})

    run = wbd.call("jobs.run", {"name": "daily_log"})
    assert run["status"] == "ok" and run["result"] == {"files_written": 1}
    text = log.read_text()
    assert text.startswith(PERSON_LOG.rstrip("\n"))
    section = owned_body(text)
    for content, memory_id in zip(learned, ids):
        assert f"09:00 fact: {content} `{memory_id}`" in section
    assert "### Learned (2)" in section

    time.sleep(0.6)  # well past the debounce: the watcher has seen the write
    wbd.call("workspace.sync")
    assert {h["id"] for h in sourced_from(wbd, f"memory/{DAY}.md")} == before  # nothing re-indexed as the person's
    assert wbd.call("stats", {"namespace": NS}) == live_before
    # Idempotent: the same day again changes nothing on disk.
    assert wbd.call("jobs.run", {"name": "daily_log"})["result"] == {"files_written": 0}


def test_a_persons_edits_around_and_inside_the_section_survive_the_next_write(wbd, workspace):
    log = workspace / "memory" / f"{DAY}.md"
    first = wbd.call(
        "memory.add", {"content": "Caroline is researching adoption agencies.", "type": "fact", "namespace": NS}
    )["id"]
    wbd.call("jobs.run", {"name": "daily_log"})
    # The person adds a line of their own and corrects the daemon's line in place.
    text = log.read_text()
    text = text.replace(
        "- Melanie's pottery class starts on Thursday.",
        "- Melanie's pottery class starts on Thursday.\n- Bought flowers for Melanie's birthday.",
    )
    text = text.replace(
        f"fact: Caroline is researching adoption agencies. `{first}`",
        "fact: Caroline chose an adoption agency in Boston.",
    )
    log.write_text(text)
    wait_for(
        lambda: any(
            h["content"] == "Bought flowers for Melanie's birthday." for h in sourced_from(wbd, f"memory/{DAY}.md")
        ),
        timeout=5.0,
    )

    wbd.call("clock.advance", {"hours": 2})
    second = wbd.call(
        "memory.add", {"content": "Melanie's kids loved the beach trip.", "type": "fact", "namespace": NS}
    )["id"]
    run = wbd.call("jobs.run", {"name": "daily_log"})
    assert run["status"] == "ok"
    text = log.read_text()
    before, section = text.split(OWNED_BEGIN)
    assert "- Bought flowers for Melanie's birthday." in before
    assert "Caroline chose an adoption agency in Boston." in before  # their correction, now their own text
    assert f"`{second}`" in section and f"`{first}`" in section  # the daemon's section is complete again
    assert "Boston" not in section
    # Their correction is indexed as theirs.
    wbd.call("workspace.sync")
    moved = wait_for(
        lambda: [h for h in sourced_from(wbd, f"memory/{DAY}.md") if "Boston" in h["content"]], timeout=5.0
    )
    assert moved[0]["type"] == "fact"


def test_the_days_observations_are_written_to_its_log(wbd, workspace):
    turns = [
        ("2026-11-18T19:00:00Z", "I finally finished restoring the old rowing boat with my brother."),
        (f"{DAY}T08:30:00Z", "We adopted a rescue dog named Biscuit last weekend and she is settling in well."),
        (f"{DAY}T08:30:00Z", "I'm so excited about my pottery class, it starts next Thursday."),
    ]
    for ts, text in turns:
        wbd.call(
            "conversation.append",
            {"session": "chat", "role": "user", "content": text, "namespace": NS, "speaker": "Melanie", "ts": ts},
        )
    wbd.call("conversation.observe", {"namespace": NS, "session": "chat"})
    observations = wbd.call("observations.list", {"namespace": NS, "session": "chat"})["observations"]
    assert len(observations) == 3
    assert wbd.call("jobs.run", {"name": "daily_log"})["result"] == {"files_written": 1}
    section = owned_body((workspace / "memory" / f"{DAY}.md").read_text())
    assert "### Observations (3)" in section and "### Learned" not in section  # not listed twice
    # Observed today, said two days before: its line says the day it was said, not only a time.
    boat = next(o for o in observations if "rowing boat" in o["content"])
    assert f"- ({boat['priority']}) 2026-11-18 19:00 [{boat['category']}] Melanie said: I finally finished" in section
    biscuit = next(o for o in observations if "Biscuit" in o["content"])
    assert (
        f"- ({biscuit['priority']}) 08:30 [{biscuit['category']}] Melanie said: We adopted a rescue dog named Biscuit "
        f'last weekend and she is settling in well. (refers to 14 November 2026, "last weekend") '
        f"`{biscuit['memory_id']}`"
    ) in section
