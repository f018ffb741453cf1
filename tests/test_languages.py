"""Chats outside English, found by meaning: a Spanish WhatsApp group imported through the CLI into
a real daemon with ``[embedding] model = "multilingual-e5-small"``, then asked in Spanish and in
English. With the English-only default (MiniLM) neither question found Lucía's move (its cosine
with the English question was 0.15); a change of model on the same data dir re-embeds what the
import stored, in the background, and then finds it too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import NO_JOBS, wait_for

from agentmemd.daemon.bench.languages import write_whatsapp_export
from agentmemd.daemon.cli.main import cli

pytestmark = pytest.mark.process  # the tier (pyproject.toml)

E5 = {"embedding": {"model": "multilingual-e5-small"}}
QUIET = {  # no Observer: what is searched is the messages' episodes
    "jobs": NO_JOBS,
    "conversation": {"observer_threshold_tokens": 10**9, "reflector_threshold_tokens": 10**9},
    "channels": {"observe_finished": False},
}


def run(socket: Path, *args: str):
    return CliRunner().invoke(cli, ["--socket", str(socket), *args])


def top(socket: Path, query: str, namespace: str, k: int = 5) -> list[str]:
    done = run(socket, "--json", "search", query, "--namespace", namespace, "-k", str(k))
    assert done.exit_code == 0, done.output
    return [hit["content"] for hit in json.loads(done.stdout)["results"]]


PROBES = json.loads((Path(__file__).parent / "data" / "language_probes" / "probes.json").read_text())


def probe_export(folder: Path, language: str) -> tuple[Path, dict[str, str], list[dict]]:
    """The probe set's chat in ``language`` as a WhatsApp export: the file, each message's text by
    its probe id, and the chat's questions."""
    chat = PROBES[language][0]
    export = write_whatsapp_export(chat, folder / f"WhatsApp Chat with probe {language}.txt")
    return export, {m["id"]: m["text"] for m in chat["messages"]}, chat["questions"]


def import_probe(socket: Path, language: str, folder: Path) -> None:
    export, _, _ = probe_export(folder, language)
    done = run(socket, "import", "whatsapp", str(export), "--tz", "Europe/Madrid", "--namespace", language)
    assert done.exit_code == 0, done.output


def recall_at_5(socket: Path, language: str, folder: Path) -> dict[str, float]:
    """Ask each of the imported chat's questions through the CLI: the share of questions (by the
    language they are asked in) whose answer is among the top 5."""
    _, text_of, questions = probe_export(folder, language)
    found: dict[str, list[bool]] = {}
    for question in questions:
        hits = top(socket, question["q"], language)
        answer = text_of[question["answer_id"]]
        found.setdefault(question["lang"], []).append(any(hit.endswith(answer) for hit in hits))
    return {asked_in: sum(hits) / len(hits) for asked_in, hits in found.items()}


@pytest.mark.parametrize("language", ["es", "de"])
def test_a_chat_outside_english_is_found_in_its_language_and_in_english_with_the_multilingual_model(
    spawn, short_tmp, language
):
    """Before (MiniLM, the only model), the Spanish chat's answers were in the top 5 for 5 of 12
    questions asked in Spanish and 2 of 12 asked in English."""
    d = spawn({**QUIET, **E5})
    import_probe(d.socket, language, short_tmp)
    recall = recall_at_5(d.socket, language, short_tmp)
    assert recall[language] >= 0.75 and recall["en"] >= 0.75, recall


def test_changing_the_model_of_a_data_dir_with_an_import_re_embeds_it_and_then_finds_it(spawn, short_tmp):
    root = short_tmp / "d"
    root.mkdir()
    before = spawn(QUIET, root=root)  # the default, English-only model
    import_probe(before.socket, "es", short_tmp)
    english_only = recall_at_5(before.socket, "es", short_tmp)
    before.terminate()

    after = spawn({**QUIET, **E5}, root=root)
    wait_for(lambda: after.call("health")["reembedding"] is None, timeout=120)
    recall = recall_at_5(after.socket, "es", short_tmp)
    assert recall["es"] >= english_only["es"] + 0.3 and recall["en"] > english_only["en"], (english_only, recall)
    assert "re-embedding" not in run(after.socket, "doctor").output


GROUP = """14/6/24, 9:00 - Marco: Buenos días! Quién se encarga de las plantas del balcón esta semana?
14/6/24, 9:02 - Lucía: Yo riego las plantas, el jazmín está precioso 🌿
14/6/24, 9:05 - Carla: Jajaja gracias Lucía
14/6/24, 9:07 - Lucía: Trae las llaves del trastero mañana porfa
14/6/24, 9:10 - Marco: Vale, y la fianza del piso ya está pagada
15/6/24, 18:00 - Lucía: He comprado abono para el jazmín y las plantas del balcón
15/6/24, 18:03 - Carla: Qué bien, jajaja
15/6/24, 18:05 - Lucía: Me encanta cuidar las plantas, me relaja muchísimo
15/6/24, 18:10 - Marco: El viernes cenamos juntos en casa?
16/6/24, 10:00 - Lucía: El jazmín ya tiene flores nuevas!
16/6/24, 10:02 - Carla: Sí, yo traigo la tortilla
"""


def test_an_impression_says_what_someone_talks_about_in_their_language_and_does_not_quote_their_requests(
    spawn, short_tmp
):
    """An imported Spanish group: Lucía's impression, read through `agentmemd people get Lucía`,
    names what she talks about more than the others (the jasmine, the plants), counted, not a
    list of her sentences; a request she made is no care of hers. (The local Observer's cues for
    a preference are English: "Me encanta…" is a fact to it, so her cares stay unsaid here.)"""
    d = spawn({"jobs": NO_JOBS, "channels": {"observe_finished": False}})
    export = short_tmp / "Chat de WhatsApp con Piso.txt"
    export.write_text(GROUP, encoding="utf-8")
    done = run(d.socket, "--json", "import", "whatsapp", str(export), "--me", "Carla", "--tz", "Europe/Madrid")
    assert done.exit_code == 0, done.output
    for session in json.loads(done.stdout)["chats"][0]["sessions"]:
        assert run(d.socket, "conversation", "observe", session).exit_code == 0
    shown = run(d.socket, "people", "get", "Lucía")
    assert shown.exit_code == 0, shown.output
    talks = next(line for line in shown.stdout.splitlines() if "talks about:" in line)
    assert "jazmín (3 messages)" in talks and "plantas (3 messages)" in talks, shown.stdout
    assert not any(word in talks for word in ("las", "del", "para", "Jajaja", "Lucía")), talks
    assert "llaves del trastero" not in shown.stdout  # a request, not a care
