"""Standing constraints (issue 16): what a person cannot or will not have, relevant to any advice.

"Gluten makes me ill" shares no word with "which bakery should we order the birthday cake from?"
and MiniLM puts them nowhere near each other (cosine 0.04; a word-level "gluten" to "cake" is no
closer than "cake" to "knee"), so no similarity finds it. What makes it relevant is what it is: a
standing constraint (an allergy, an intolerance, a diet, something that makes the person ill or
that they cannot stand), and what the query is: a request for advice or a plan (query_kind
"planning"). For such a query the namespace's constraints are candidates whatever they say,
ranked among themselves by their own match.

Lexical rules, English only, like the local Observer's cues; the phrases below find candidates
through FTS5 and the pattern confirms them. On LongMemEval's 30,000 turns about one user turn in
600 states one, so the lift crowds little else out.
"""

from __future__ import annotations

import re

# FTS5 phrases (Porter-stemmed like the index) that find a constraint's memory; the pattern
# below then decides. Kept apart so that the search reads postings of rare words only.
CONSTRAINT_PHRASES: tuple[str, ...] = (
    "allergic",
    "allergy",
    "intolerant",
    "intolerance",
    "celiac",
    "coeliac",
    "makes me ill",
    "makes me sick",
    "made me ill",
    "made me sick",
    "gluten",
    "lactose",
    "vegan",
    "vegetarian",
    "pescatarian",
    "teetotal",
    "diabetic",
    "kosher",
    "halal",
    "cannot stand",
    "can't stand",
    "can't eat",
    "cannot eat",
    "can't drink",
    "cannot drink",
    "don't eat",
    "don't drink",
    "never eat",
    "never drink",
    "phobia",
    "afraid of",
)

# In the first person: what the person says of themselves. An assistant's "I don't have personal
# preferences" or its recipe "for a gluten-free crust" is no constraint (measured on LongMemEval: an
# earlier pattern without the person lifted assistant turns into preference questions' top 10).
_CONSTRAINT = re.compile(
    r"\b((i'm|i am|we're|we are)\s+(severely\s+|very\s+|really\s+|strictly\s+|a\s+|an\s+|fully\s+)?"
    r"(allergic to|(lactose |gluten |\w+ )?intolerant|celiac|coeliac|vegan|vegetarian|pescatarian|teetotal|"
    r"diabetic|sober|kosher|halal|(afraid|scared|terrified) of)|"
    r"(i|we) (have|got) (a |an )?(severe |bad |\w+ )?(allergy|allergies|intolerance|phobia|celiac|coeliac)|"
    r"my (\w+ )?(allergy|allergies|intolerance|phobia|diet)\b|"
    r"(makes?|made|make) me (feel )?(ill|sick|nauseous|queasy|bloated)|"
    r"(i|we) (can't|cannot|can not|don't|do not|never|won't|no longer) (eat|drink|stand|tolerate|digest)|"
    r"(i|we) (avoid|keep off|stay away from) (gluten|dairy|meat|alcohol|sugar|caffeine|nuts|pork|fish))\b",
    re.IGNORECASE,
)


def states_constraint(text: str) -> bool:
    """Does ``text`` state a standing constraint: an allergy, an intolerance, a diet, something
    that makes its speaker ill or that they cannot have?

    >>> states_constraint("Gluten makes me ill, sadly.")
    True
    >>> states_constraint("I'm lactose intolerant")
    True
    >>> states_constraint("I had a great cake at the bakery")
    False
    >>> states_constraint("As an AI, I don't have preferences; try a gluten-free crust.")
    False
    """
    return bool(_CONSTRAINT.search(text))
