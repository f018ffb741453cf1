"""Whose words a question asks for (memory/language/speakers.py, CandidateFinder._weigh_speakers):
a question naming a person prefers that person's words; the assistant's own words (its follow-up
questions echo every topic and state no fact) come below what people said, unless the question
asks what the assistant said. Real MiniLM embeddings, in process."""

import pytest

from agentmemd.memory.language.speakers import asks_for_the_assistant, speaker_in, speakers_named

pytestmark = pytest.mark.inprocess

OFF = {"retrieval": {"other_speaker_penalty": 0.0, "assistant_penalty": 0.0}}


def _add(daemon, ns: str, lines: list[str], **extra) -> list[str]:
    return [daemon.call("memory.add", {"content": t, "type": "fact", "namespace": ns, **extra})["id"] for t in lines]


def _first(daemon, ns: str, query: str, k: int = 3) -> list[str]:
    return [h["content"] for h in daemon.call("memory.search", {"query": query, "namespace": ns, "k": k})["results"]]


# Melanie's lines echo the question's topic; only Caroline's answers it.
TWO_FRIENDS = [
    "Melanie: Pottery class sounds fun! What did you make at the pottery class?",
    "Melanie: I always wanted to try a pottery class, tell me about the pottery class.",
    "Caroline: I made a small blue bowl for my mum, it came out a bit wonky.",
    "Melanie: My kids made clay animals at school last week.",
]
ASKED_OF_CAROLINE = "What did Caroline make at the pottery class?"


@pytest.mark.parametrize("config, first", [(OFF, False), ({}, True)], ids=["off", "on"])
def test_a_question_that_names_a_person_prefers_their_words(in_process, config, first):
    daemon, ns = in_process(config), "friends"
    _add(daemon, ns, TWO_FRIENDS)
    order = _first(daemon, ns, ASKED_OF_CAROLINE)
    # Off (as before), Melanie's echo of the question ranks above Caroline's answer.
    assert (order[0] == TWO_FRIENDS[2]) is first, order


def test_said_by_names_the_speaker_without_a_prefix(in_process):
    """The same lines stored with ``said_by`` and no name in the text: the other person's lines
    lose similarity (signals.speaker), the named person's answer none."""
    daemon, ns = in_process(), "said-by"
    for text in TWO_FRIENDS:
        name, _, words = text.partition(": ")
        daemon.call("memory.add", {"content": words, "type": "fact", "namespace": ns, "said_by": name})
    hits = daemon.call("memory.search", {"query": ASKED_OF_CAROLINE, "namespace": ns, "k": 4})["results"]
    answer = TWO_FRIENDS[2].partition(": ")[2]
    lowered = {h["content"]: h["signals"]["speaker"] > 0 for h in hits}
    assert lowered == {t.partition(": ")[2]: not t.startswith("Caroline") for t in TWO_FRIENDS}, hits
    assert lowered.pop(answer) is False


# The assistant's follow-up questions share every word of the topic; the person's line holds the
# fact. Asked what the assistant recommended, its own line is the answer.
TRIP = [
    "assistant: How was Lisbon? What did you love most about Lisbon?",
    "assistant: Lisbon has wonderful food. What did you love eating in Lisbon?",
    "user: The custard tarts at the little bakery in Belem were the best thing we had there.",
    "user: We also took the old tram up the hill.",
]
RECOMMENDED = [
    "user: Our anniversary is coming up and we'll be in Rome. Any romantic restaurant for dinner?",
    "user: We'll be in Rome for our anniversary dinner.",
    "assistant: For a romantic dinner in Rome I'd book Il Pagliaccio near Campo de' Fiori.",
]
ASKED = {
    "the-person's-words": (TRIP, "What did I love eating in Lisbon?", TRIP[2]),
    "the-assistant's-words": (RECOMMENDED, "Which romantic restaurant in Rome did you recommend?", RECOMMENDED[2]),
}


@pytest.mark.parametrize("case", sorted(ASKED))
@pytest.mark.parametrize("config, first", [(OFF, False), ({}, True)], ids=["off", "on"])
def test_the_assistants_words_rank_below_peoples_unless_asked_for(in_process, case, config, first):
    lines, query, answer = ASKED[case]
    daemon, ns = in_process(config), "roles"
    _add(daemon, ns, lines)
    order = _first(daemon, ns, query)
    assert (order[0] == answer) is first, order


def test_an_episode_of_an_assistant_turn_counts_as_the_assistants(in_process):
    """Episodes name speakers "Ana said: ..."; an assistant's turn is tagged with its role."""
    daemon = in_process({"conversation": {"episodes_of_assistant": True}})
    ns = "episodes"
    for role, text in (
        ("user", "The custard tarts at the bakery in Belem were the best thing we had there."),
        ("assistant", "Lisbon has wonderful food! What did you love eating most in Lisbon?"),
    ):
        daemon.call("conversation.append", {"session": "s", "namespace": ns, "role": role, "content": text})
    daemon.services.episodes.catch_up()
    hits = daemon.call("memory.search", {"query": "What did I love eating in Lisbon?", "namespace": ns})["results"]
    by_role = {("tarts" in h["content"]): h for h in hits}
    assert by_role[False]["signals"]["speaker"] > 0 and by_role[True]["signals"]["speaker"] == 0, hits
    assert hits[0]["content"].endswith("the best thing we had there."), hits


@pytest.mark.parametrize(
    "content, speaker",
    [
        ("Caroline: hi", "Caroline"),
        ("Ana said: we moved", "Ana"),
        ("Mary Ann Lee: hello", "Mary Ann Lee"),
        ("user: hello", "user"),
        ("assistant: hello", "assistant"),
        ("Note: call the bank", None),
        ("Update: new phone number", None),
        ("remember this: x", None),
        ("We went to: Paris", None),
        ("no colon here", None),
    ],
)
def test_the_speaker_a_content_names(content, speaker):
    assert speaker_in(content) == speaker


def test_names_and_assistant_cues_in_questions():
    known = {"caroline", "melanie", "jon smith", "user"}
    assert speakers_named("What did Caroline research?", known) == {"caroline"}
    assert speakers_named("When did Jon start his business?", known) == {"jon smith"}
    assert speakers_named("What did the user say?", known) == set()
    for asked in ("What did you recommend?", "you mentioned three algorithms", "what was your advice"):
        assert asks_for_the_assistant(asked), asked
    for asked in ("What did I tell you about my dog?", "Do you remember what I said?"):
        assert not asks_for_the_assistant(asked), asked
