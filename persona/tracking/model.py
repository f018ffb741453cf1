"""The persona's two tasks for the language model (seed 002, 5.2 and 5.3): the Persona
Preservation Record of a batch of the agent's turns, and the SyncScore judge of one reply.

They are the persona's, whatever the provider. A provider that answers prompts (``anthropic``,
memory/llm/tasks.py's PromptedModel) is asked them with the prompts declared beside them
(persona/drift/record.py, persona/syncscore/judge.py); with the ``local`` provider they are
measured: stylometry for the record, embeddings and stylometry for the judge. Hard rules a rule
can check are checked by rule either way; a model judge's constraint score counts only for the
rules it cannot check.
"""

from __future__ import annotations

from agentmemd.memory.llm.tasks import LanguageModel, TurnIn
from agentmemd.memory.retrieval.embeddings import Embedder
from agentmemd.memory.safety.neutraliser import as_data_lines, as_data_text
from agentmemd.persona.drift.record import PERSONA_RECORD, PERSONA_RECORD_PROMPT, local_record
from agentmemd.persona.identity.state import PersonaRecord, PersonaState
from agentmemd.persona.syncscore.judge import (
    JUDGE,
    JUDGE_PROMPT,
    Dimensions,
    Judged,
    JudgeRequest,
    constraint_score,
    score_locally,
)
from agentmemd.persona.syncscore.rules import check_all


class PersonaModel:
    """The persona's tasks on the daemon's provider (``provider``) and embedder."""

    record_task = PERSONA_RECORD  # as the response cache sees each task
    judge_task = JUDGE

    def __init__(self, provider: LanguageModel, embedder: Embedder | None):
        self.provider = provider
        self.embedder = embedder

    @property
    def samples_judgements(self) -> bool:
        """Whether a second judgement may differ from the first (a model's, sampled)."""
        return self.provider.samples_judgements

    def persona_record(self, turns: list[TurnIn], *, namespace: str, session: str) -> PersonaRecord:
        if self.provider.answers_prompts:
            lines = [f"[seq {t.seq}] {as_data_text(t.speaker)} ({t.role}): {as_data_text(t.content)}" for t in turns]
            return self.provider.complete_json(  # type: ignore[attr-defined]
                "persona_record",
                PersonaRecord,
                stable=PERSONA_RECORD_PROMPT,
                prompt="\n".join(lines),
                namespace=namespace,
            )
        record = local_record([t.model_dump() for t in turns], session=session)
        if record is None:
            raise ValueError("no assistant turns to make a persona record from")
        return record

    def judge(self, request: JudgeRequest, state: PersonaState, *, namespace: str) -> Judged:
        if not self.provider.answers_prompts:  # every dimension from embeddings and stylometry
            return score_locally(
                state,
                request.response,
                turns=[t.model_dump() for t in request.turns],
                memories=request.memories,
                embedder=self.embedder,
            )
        memories = "\n".join(f"- {as_data_text(m)}" for m in request.memories) or "(none)"
        context = "\n".join(f"{t.role}: {as_data_text(t.content)}" for t in request.turns) or "(none)"
        prompt = (
            f"<persona_spec>\n{as_data_lines(request.persona)}\n</persona_spec>\n\n<injected_memories>\n{memories}\n"
            f"</injected_memories>\n\n<response>\n{as_data_lines(request.response)}\n</response>\n\n"
            f"<conversation_context>\n{context}\n</conversation_context>"
        )
        scores = self.provider.complete_json(  # type: ignore[attr-defined]
            "judge", Dimensions, stable=JUDGE_PROMPT, prompt=prompt, namespace=namespace
        )
        checks = check_all(state.rules(), request.response)
        by_rule = constraint_score([c for c in checks if c.checkable])
        constraint = by_rule if all(c.checkable for c in checks) else min(by_rule, scores.constraint)
        dims = Dimensions(**{**scores.model_dump(), "constraint": constraint})
        return Judged(dims, {"judge": scores.model_dump(), "rules": [c.as_dict() for c in checks]})
