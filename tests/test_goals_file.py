"""GOALS.md, two-way: a person's task-list lines are goals (written, changed, ticked, removed by
hand); the goals added by a door are listed in the daemon's section, and one ticked or edited
there becomes the person's line, the same goal (persona/goals/goals_file.py)."""

from __future__ import annotations

import pytest

from agentmemd.memory.workspace.markdown import parse_markdown
from agentmemd.persona.goals.goals_file import read_goal_lines

pytestmark = pytest.mark.inprocess

START = "2026-11-20T12:00:00Z"


def lines_of(text: str):
    return read_goal_lines(parse_markdown("GOALS.md", text), text)


def test_a_task_line_says_its_priority_due_time_and_trigger():
    goals, problems = lines_of(
        "# GOALS\n\n"
        "- [ ] Ask Laia how the interview went (high; due 2026-11-27 18:00)\n"
        '- [x] Suggest the Basque cookbook (when "birthday present")\n'
        "- [ ] Read Middlemarch (the long one)\n"
        "- a note, not a goal\n"
        "- [ ] Renew the passport (due 2026-02-30)\n"
    )
    first, second, third = goals
    assert (first.text, first.priority, first.due.isoformat(), first.done) == (
        "Ask Laia how the interview went",
        "high",
        "2026-11-27T18:00:00+00:00",
        False,
    )
    assert (second.text, second.trigger, second.priority, second.done) == (
        "Suggest the Basque cookbook",
        "birthday present",
        "medium",
        True,
    )
    assert third.text == "Read Middlemarch (the long one)" and third.due is None  # not options: its text
    assert [(p.line, "not a real date" in p.reason) for p in problems] == [(7, True)]


@pytest.fixture
def ws(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "SOUL.md").write_text("# Soul\n\n- I am Nova, calm and exact.\n")
    return root


def by_text(d) -> dict[str, dict]:
    return {g["text"]: g for g in d.call("goal.list", {"status": "all"})["goals"]}


def test_the_persons_lines_are_goals_changed_ticked_and_removed_by_hand(in_process, ws):
    (ws / "GOALS.md").write_text(
        "# GOALS\n\nMy plans.\n\n- [ ] Ask Laia how the interview went (high; due 2026-11-27 18:00)\n"
        '- [ ] Suggest the Basque cookbook (when "birthday present")\n'
    )
    d = in_process({"clock": {"start": START}}, fake_embedder=True, workspace=ws)
    goals = by_text(d)
    ask = goals["Ask Laia how the interview went"]
    assert (ask["priority"], ask["due"], ask["status"], ask["source"]) == (
        "high",
        "2026-11-27T18:00:00.000000Z",
        "open",
        "GOALS.md L5",
    )
    assert goals["Suggest the Basque cookbook"]["trigger"] == "birthday present"
    assert d.call("memory.list", {"source": "GOALS.md"})["total"] == 0  # goals, not memories
    packed = d.call("context.pack", {"query": "a birthday present for Marc?", "budget_tokens": 500})
    assert goals["Suggest the Basque cookbook"]["id"] in packed["goals"]

    # Ticked, reworded (the line keeps its place), a line added above: the same goals, changed.
    (ws / "GOALS.md").write_text(
        "# GOALS\n\nMy plans.\n\n- [ ] Book the dentist (low)\n"
        "- [x] Ask Laia how the interview went (high; due 2026-11-27 18:00)\n"
        '- [ ] Suggest the Basque cookbook or the Catalan one (when "birthday present")\n'
    )
    report = d.call("workspace.sync")
    assert report["goals"] == {"added": 1, "changed": 2, "dropped": 0}
    goals = by_text(d)
    assert goals["Ask Laia how the interview went"]["status"] == "done"
    assert (
        goals["Suggest the Basque cookbook or the Catalan one"]["id"]
        == by_text(d)["Suggest the Basque cookbook or the Catalan one"]["id"]
    )
    assert len(goals) == 3 and "Suggest the Basque cookbook" not in goals
    notes = [n["text"] for n in goals["Ask Laia how the interview went"]["notes"]]
    assert notes[-1] == "status changed in GOALS.md (line 6)"

    (ws / "GOALS.md").write_text("# GOALS\n\n- [ ] Book the dentist (low)\n")
    assert d.call("workspace.sync")["goals"]["dropped"] == 2
    statuses = {g["text"]: g["status"] for g in by_text(d).values()}
    assert statuses["Book the dentist"] == "open" and statuses["Ask Laia how the interview went"] == "dropped"


def test_a_line_left_out_is_said_and_the_rest_still_count(in_process, ws):
    (ws / "GOALS.md").write_text("# GOALS\n\n- [ ] Renew the passport (due 2026-02-30)\n- [ ] Water the figs\n")
    d = in_process({"clock": {"start": START}}, fake_embedder=True, workspace=ws)
    assert list(by_text(d)) == ["Water the figs"]
    status = {f["path"]: f for f in d.call("workspace.status")["files"]}["GOALS.md"]
    assert status["status"] == "indexed" and "line 3: 'due 2026-02-30' is not a real date" in status["reason"]


def test_a_door_goal_is_listed_in_the_section_and_ticking_it_there_makes_it_the_persons(in_process, ws):
    mine = "# GOALS\n\nMy own words stay.\n\n- [ ] Water the figs\n"
    (ws / "GOALS.md").write_text(mine)
    d = in_process({"clock": {"start": START}}, fake_embedder=True, workspace=ws)
    added = d.call("goal.add", {"text": "Call the plumber", "priority": "high", "due": "2026-11-21T09:00:00Z"})
    d.call("jobs.run", {"name": "goals_due"})
    text = (ws / "GOALS.md").read_text()
    assert text.startswith(mine)  # the person's text untouched
    line = f"- [ ] Call the plumber (high; due 2026-11-21 09:00) `{added['id']}`"
    assert line in text and "Water the figs (" not in text  # the file's own goals are not listed again
    d.call("workspace.sync")
    assert len(by_text(d)) == 2  # the daemon's section is not read back as the person's goals

    (ws / "GOALS.md").write_text(text.replace(line, line.replace("- [ ]", "- [x]")))
    d.call("jobs.run", {"name": "goals_due"})  # the next write moves the edited line out, above
    moved = (ws / "GOALS.md").read_text()
    assert moved.index(f"- [x] Call the plumber (high; due 2026-11-21 09:00) `{added['id']}`") < moved.index(
        "<!-- agentmemd:begin -->"
    )
    assert "plumber" not in moved.split("<!-- agentmemd:begin -->")[1]  # not listed again, unticked
    d.call("workspace.sync")
    goals = by_text(d)
    assert len(goals) == 2  # the same goal, not a new one
    plumber = goals["Call the plumber"]
    assert plumber["id"] == added["id"] and plumber["status"] == "done" and plumber["source"].startswith("GOALS.md L")
    d.call("jobs.run", {"name": "goals_due"})
    section = (ws / "GOALS.md").read_text().split("<!-- agentmemd:begin -->")[1]
    assert "plumber" not in section  # the file owns it now


def test_a_goal_written_in_the_file_is_changed_there_not_by_a_door_and_a_dropped_one_is_not_ticked(in_process, ws):
    """`goal done` of a GOALS.md goal answered "done", and the file's next save opened it again;
    a date alone was midnight from a door and 09:00 from the file; a dropped door goal was listed
    ticked, as if done; `goal done` twice said "nothing to change: give text, ...".."""
    from agentmemd.daemon.socket.client import RpcCallError

    (ws / "GOALS.md").write_text("# GOALS\n\n- [ ] Water the plants (low; due 2026-12-02)\n")
    d = in_process({"clock": {"start": START}}, fake_embedder=True, workspace=ws)
    plants = by_text(d)["Water the plants"]
    assert plants["due"] == "2026-12-02T09:00:00.000000Z"
    for change in ({"status": "done"}, {"text": "Water the ferns"}, {"priority": "high"}):
        with pytest.raises(RpcCallError, match=r"is written in GOALS.md L3: change it there"):
            d.call("goal.update", {"id": plants["id"], **change})
    with pytest.raises(RpcCallError, match="change it there"):
        d.call("goal.done", {"id": plants["id"]})
    noted = d.call("goal.update", {"id": plants["id"], "note": "the ferns too"})  # a note is kept
    assert noted["status"] == "open" and noted["notes"][-1]["text"] == "the ferns too"

    door = d.call("goal.add", {"text": "Book the dentist", "due": "2026-12-01"})
    assert door["due"] == "2026-12-01T09:00:00.000000Z"  # as the file reads a date alone
    assert d.call("goal.done", {"id": door["id"]})["status"] == "done"
    assert d.call("goal.done", {"id": door["id"]})["status"] == "done"  # twice: nothing more to do
    dropped = d.call("goal.add", {"text": "Learn the banjo"})
    d.call("goal.update", {"id": dropped["id"], "status": "dropped"})
    d.call("jobs.run", {"name": "goals_due"})  # the job that writes the daemon's section
    section = (ws / "GOALS.md").read_text()
    assert f"- ~~Learn the banjo~~ (dropped) `{dropped['id']}`" in section and "[x] Learn the banjo" not in section


def test_a_goal_whose_secret_the_file_shows_masked_keeps_it_when_ticked_or_edited(in_process, ws):
    """The daemon lists a door goal in GOALS.md with its secret masked; ticking the line, or
    changing its priority, must not make "[iban withheld]" the goal's words."""
    (ws / "GOALS.md").write_text("# GOALS\n")
    d = in_process({"clock": {"start": START}}, fake_embedder=True, workspace=ws)
    said = "Pay the landlord 950 EUR to IBAN ES91 2100 0418 4502 0005 1332 before the 5th"
    rent = d.call("goal.add", {"text": said, "priority": "high"})
    netflix = d.call("goal.add", {"text": "Renew the Netflix account, the password is Fromage#Bleu88", "priority": "medium"})  # fmt: skip
    d.call("jobs.run", {"name": "goals_due"})
    text = (ws / "GOALS.md").read_text()
    assert "ES91" not in text and "Pay the landlord 950 EUR to IBAN [iban withheld] before the 5th" in text
    edited = text.replace("- [ ] Pay the landlord", "- [x] Pay the landlord").replace("(medium)", "(high)")
    assert edited.count("[x]") == 1 and "(high)" in edited.split("Netflix")[1][:80]
    (ws / "GOALS.md").write_text(edited)
    d.call("jobs.run", {"name": "goals_due"})  # the next write moves the edited lines out, above
    d.call("workspace.sync")
    got = {g["id"]: g for g in d.call("goal.list", {"status": "all"})["goals"]}
    assert got[rent["id"]]["text"] == said and got[rent["id"]]["status"] == "done"
    assert got[netflix["id"]]["text"] == netflix["text"] and got[netflix["id"]]["priority"] == "high"
    # A line the person rewrote around the stand-in keeps the secret too.
    d.call("jobs.run", {"name": "goals_due"})
    text = (ws / "GOALS.md").read_text()
    (ws / "GOALS.md").write_text(text.replace("Renew the Netflix account", "Renew the Netflix family plan"))
    d.call("workspace.sync")
    got = {g["id"]: g for g in d.call("goal.list", {"status": "all"})["goals"]}
    assert got[netflix["id"]]["text"] == "Renew the Netflix family plan, the password is Fromage#Bleu88"
