"""Migration 048: turns appended to a chat's session."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations

# The session's chat and audience: its first turn that names a chat (an import's or a webhook's).
_CHAT_OF_SESSION = (
    "SELECT f.{column} FROM conversation_turns f WHERE f.session = {turn}.session AND f.chat IS NOT NULL "
    "ORDER BY f.seq LIMIT 1"
)
_MISFILED = "chat IS NULL AND session IN (SELECT session FROM conversation_turns WHERE chat IS NOT NULL)"


@migrations()
def m048_appended_turns_of_chats(db):
    """A turn an agent appended to a chat's session (`conversation.append`) was filed as the user's
    own: no chat, audience "user", and its episode heard in every conversation of the user's.
    Such turns take their session's chat and audience, and their episodes that audience."""
    db.execute(
        "UPDATE memories SET audience = ("
        + _CHAT_OF_SESSION.format(column="audience", turn="t")
        + ") FROM conversation_turns t WHERE t.episode = memories.id AND t."
        + _MISFILED.replace("session IN", "t.session IN")
    )
    db.execute(
        "UPDATE conversation_turns SET audience = ("
        + _CHAT_OF_SESSION.format(column="audience", turn="conversation_turns")
        + "), chat = ("
        + _CHAT_OF_SESSION.format(column="chat", turn="conversation_turns")
        + ") WHERE "
        + _MISFILED
    )
