"""Language and emoji come from py3langid and the emoji package (in-process, no daemon)."""

from __future__ import annotations

import pytest

from agentmemd.memory.language.detection import detect_language, emoji_in
from agentmemd.persona.syncscore.rules import check
from agentmemd.persona.syncscore.stylometry import measure

pytestmark = pytest.mark.inprocess  # the tier (pyproject.toml)
CATALAN = "Bon dia, com estàs? Avui fa molt bon temps a Barcelona i anirem a passejar."


def test_a_check_mark_is_not_an_emoji():
    # The hand-made code-point ranges took U+2713 for an emoji and broke the rule.
    assert check("Never use emoji", "Done ✓").ok is True
    assert emoji_in("Done ✓") == []
    assert check("Never use emoji", "Done ✔️ 🎉").ok is False
    assert emoji_in("family 👨‍👩‍👧 here") == ["👨‍👩‍👧"]  # one emoji, however many code points
    assert measure("Done ✓ and shipped").emoji == 0


def test_catalan_is_catalan():
    # Counting seven languages' stopwords called this English.
    assert detect_language(CATALAN) == "catalan"
    assert check("Always answer in Catalan", CATALAN).ok is True
    assert check("Always answer in English", CATALAN).ok is False


def test_too_little_text_is_no_language():
    assert detect_language("Nope.") is None
    assert detect_language("Sure! Here is a quick summary of the plan for tomorrow.") == "english"
    assert check("Only answer in Spanish", "Ok.").why == "too short to tell the language"


def test_the_observer_never_cuts_inside_a_link_or_an_aside(in_process):
    from agentmemd.memory.language.sentences import sentences

    said = "Quedamos aquí https://maps.google.com/?q=41.8996,3.1836 el sábado (si no llueve? ya veremos) a las 10."
    assert sentences(said) == [said]
    d = in_process({"clock": {"start": "2026-11-20T09:00:00Z"}}, fake_embedder=True)
    d.call("conversation.append", {"session": "s", "role": "user", "content": said})
    d.call("conversation.observe", {"session": "s"})
    observed = [o["content"] for o in d.call("observations.list", {"session": "s"})["observations"]]
    assert not any(o.rstrip(".").endswith(("Q=41.8996,3.1836", "q=41.8996,3.1836")) for o in observed), observed
    assert all("?q=" in o or "maps" not in o for o in observed), observed


def test_a_german_date_or_ordinal_with_a_stop_is_no_sentence_end(in_process):
    """'Oma wird am 14. Juni 90 Jahre alt!' was two sentences, and the Observer stored
    'Mama said: Juni 90 Jahre alt!' (Oma and the day gone); an emoji after a '!' began the next."""
    from agentmemd.memory.language.sentences import sentences

    assert sentences("Oma wird am 14. Juni 90 Jahre alt! 🎂 Alle wollten kommen.") == [
        "Oma wird am 14. Juni 90 Jahre alt! 🎂",
        "Alle wollten kommen.",
    ]
    for whole in ("Am 3. Oktober ist Feiertag.", "Der 3. Platz ist okay.", "Das war am 24.12. schön.",
                  "Ich bin der 2. in der Schlange."):  # fmt: skip
        assert sentences(whole) == [whole]
    assert sentences("Ich habe 5. Sie hat 3.") == ["Ich habe 5.", "Sie hat 3."]  # a number that ends one
    assert sentences("Step 1. Open the box.") == ["Step 1.", "Open the box."]
    d = in_process({"clock": {"start": "2026-11-20T09:00:00Z"}}, fake_embedder=True)
    said = "Oma wird am 14. Juni 90 Jahre alt! 🎂\nSo sah der Gasthof früher aus, ich freue mich so!"
    d.call("conversation.append", {"session": "s", "role": "user", "content": said})
    d.call("conversation.observe", {"session": "s"})
    observed = " | ".join(o["content"] for o in d.call("observations.list", {"session": "s"})["observations"])
    assert "Oma wird am 14. Juni 90 Jahre alt!" in observed and "Juni 90 Jahre alt" not in observed.replace(
        "am 14. Juni 90 Jahre alt", ""
    ), observed
    assert "Der Gasthof früher aus" not in observed, observed


def test_a_message_split_again_comes_from_what_was_kept_and_a_caller_cannot_change_it():
    """The Observer, each impression of whoever said it and the judge split the same message
    again and again (pysbd: ~1.4 ms a message, holding the interpreter)."""
    from agentmemd.memory.language.sentences import KEPT_CHARS, _split_kept, sentences

    said = "Dr. Vance said the results look fine. Ask again on Monday!"
    first = sentences(said)
    hits = _split_kept.cache_info().hits
    first.append("changed by a caller")
    assert sentences("  " + said.replace(" ", "\n", 1)) == [
        "Dr. Vance said the results look fine.",
        "Ask again on Monday!",
    ]
    assert _split_kept.cache_info().hits == hits + 1  # the same words, spaced otherwise: kept
    long = "This one is long. " * (KEPT_CHARS // 10)
    assert len(sentences(long)) == KEPT_CHARS // 10  # a document is split, not kept


@pytest.mark.parametrize(
    "rule", ["Never reply in a language other than English.", "Never reply in any language but English.",
             "Don't answer in anything except English."],
)  # fmt: skip
def test_a_rule_naming_the_one_language_allowed_after_its_negation_wants_that_language(rule):
    """Found living a week with an agent: "Never reply in a language other than English." was
    read backwards: every English reply broke it (constraint 0.00) and a Spanish one kept it."""
    english = "The dal takes about 25 minutes and you have rice, so dinner is easy tonight."
    spanish = "El dal tarda unos 25 minutos y tienes arroz, así que la cena es fácil esta noche."
    assert check(rule, english).ok is True and check(rule, spanish).ok is False
    assert check("Never reply in Spanish.", spanish).ok is False and check("Never reply in Spanish.", english).ok
