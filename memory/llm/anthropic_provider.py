"""The ``anthropic`` provider: the official SDK against the Messages API.

* The model, ``base_url`` (any server that speaks the Messages API), timeout and retry
  count come from ``[llm]``; the SDK retries 408/409/429/5xx, timeouts and connection
  errors with exponential backoff (honouring ``retry-after``).
* The stable part of every prompt (task instructions, output schema) is sent as a system
  block marked ``cache_control: ephemeral``, so repeated calls of one task hit the
  provider's prompt cache; only the variable part is new input.
* Every call, failed ones included, lands in the ledger with the exact usage the API
  reported (input, output, cache-creation and cache-read tokens) and its cost.
* A JSON task's reply must validate against its pydantic schema. A reply that does not is
  recorded as ``rejected``, the model is told what was wrong and asked again (up to
  ``json_repair_attempts``), and if it still fails :class:`LLMOutputError` is raised:
  garbage is never returned to be stored.
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass
from typing import TypeVar

import anthropic
from pydantic import BaseModel, ValidationError

from agentmemd.memory.core.config import LLMConfig
from agentmemd.memory.core.errors import LLMError
from agentmemd.memory.llm.ledger import Ledger, Usage
from agentmemd.memory.llm.tasks import (
    IMPRESSION_PROMPT,
    OBSERVER_PROMPT,
    REFLECTOR_PROMPT,
    SUMMARY_PROMPT,
    ImpressionResult,
    ObservationIn,
    ObserveResult,
    ReflectResult,
    SummaryResult,
    TurnIn,
)
from agentmemd.memory.safety.neutraliser import as_data_lines, as_data_text

T = TypeVar("T", bound=BaseModel)
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)


class LLMUnavailable(LLMError):
    """No answer: no key, the API kept failing after its retries, or it timed out."""


class LLMOutputError(LLMError):
    """The model answered, but not in the required shape, even after being asked again."""


@dataclass(frozen=True)
class Completion:
    text: str
    model: str
    usage: Usage
    call_id: int  # its ledger row


def _usage(raw) -> Usage:
    return Usage(
        input_tokens=raw.input_tokens or 0,
        output_tokens=raw.output_tokens or 0,
        cache_creation_input_tokens=getattr(raw, "cache_creation_input_tokens", 0) or 0,
        cache_read_input_tokens=getattr(raw, "cache_read_input_tokens", 0) or 0,
    )


def parse_json_reply(text: str, schema: type[T]) -> T:
    """The reply as ``schema``; a ```json fence around it is tolerated, nothing else is."""
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1)
    return schema.model_validate_json(body)


class AnthropicProvider:
    name = "anthropic"
    answers_prompts = True  # the persona's tasks are prompts to it (persona/tracking/model.py)
    samples_judgements = True  # a sampled judge: near a threshold, a second sample is worth its cost

    def __init__(self, cfg: LLMConfig, ledger: Ledger, *, api_key: str | None = None):
        key = api_key or os.environ.get(cfg.api_key_env)
        if not key:
            raise LLMUnavailable(f"[llm] provider is 'anthropic' but ${cfg.api_key_env} is not set")
        self.cfg = cfg
        self.ledger = ledger
        self.client = anthropic.Anthropic(
            api_key=key, base_url=cfg.base_url or None, timeout=cfg.timeout_seconds, max_retries=cfg.max_retries
        )

    def complete(
        self,
        task: str,
        *,
        stable: str,
        prompt: str | list[dict],
        namespace: str | None = None,
        max_tokens: int | None = None,
    ) -> Completion:
        """One call. ``stable``: the cached system prefix; ``prompt``: the user turn (or whole messages)."""
        messages = [{"role": "user", "content": prompt}] if isinstance(prompt, str) else prompt
        started = time.monotonic()
        try:
            reply = self.client.messages.create(
                model=self.cfg.model,
                max_tokens=max_tokens or self.cfg.max_output_tokens,
                system=[{"type": "text", "text": stable, "cache_control": {"type": "ephemeral"}}],
                messages=messages,
            )
        except anthropic.APIError as exc:
            latency = (time.monotonic() - started) * 1000
            message = f"{type(exc).__name__}: {getattr(exc, 'message', exc)}"
            self.ledger.record(
                provider=self.name,
                model=self.cfg.model,
                task=task,
                namespace=namespace,
                status="error",
                usage=Usage(),
                latency_ms=latency,
                error=message,
            )
            raise LLMUnavailable(
                f"anthropic {task} call failed after {self.cfg.max_retries} retries: {message}"
            ) from exc
        latency = (time.monotonic() - started) * 1000
        usage = _usage(reply.usage)
        text = "".join(block.text for block in reply.content if getattr(block, "type", "") == "text")
        call_id = self.ledger.record(
            provider=self.name,
            model=reply.model or self.cfg.model,
            task=task,
            namespace=namespace,
            status="ok",
            usage=usage,
            latency_ms=latency,
        )
        return Completion(text=text, model=reply.model or self.cfg.model, usage=usage, call_id=call_id)

    def complete_json(self, task: str, schema: type[T], *, stable: str, prompt: str, namespace: str | None = None) -> T:
        """A reply validated against ``schema``, re-asked on a malformed one, or LLMOutputError."""
        stable = (
            f"{stable}\n\nReply with one JSON object and nothing else. Its JSON schema:\n"
            f"{json.dumps(schema.model_json_schema(), sort_keys=True)}"
        )
        messages: list[dict] = [{"role": "user", "content": prompt}]
        problem = ""
        for _attempt in range(self.cfg.json_repair_attempts + 1):
            reply = self.complete(task, stable=stable, prompt=messages, namespace=namespace)
            try:
                return parse_json_reply(reply.text, schema)
            except ValidationError as exc:
                problem = "; ".join(
                    f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in exc.errors()[:5]
                )
            self.ledger.mark_rejected(reply.call_id, f"invalid JSON: {problem}")
            messages = messages + [
                {"role": "assistant", "content": reply.text or "(empty)"},
                {
                    "role": "user",
                    "content": f"That reply is not valid: {problem}. "
                    "Reply again with only the JSON object the schema describes.",
                },
            ]
        raise LLMOutputError(
            f"anthropic {task}: no valid JSON after {self.cfg.json_repair_attempts + 1} replies; "
            f"last problem: {problem}"
        )

    # ---- the memory's tasks (memory/llm/tasks.py) ---------------------------------------

    def observe(self, turns: list[TurnIn], *, namespace: str) -> ObserveResult:
        prompt = "\n".join(
            f"[seq {t.seq}] {t.ts} {as_data_text(t.speaker)} ({t.role}): {as_data_text(t.content)}" for t in turns
        )
        return self.complete_json("observe", ObserveResult, stable=OBSERVER_PROMPT, prompt=prompt, namespace=namespace)

    def reflect(self, observations: list[ObservationIn], *, namespace: str, target_ratio: float) -> ReflectResult:
        lines = []
        for o in observations:
            ref = f' (refers to {o.referenced_date}, "{as_data_text(o.relative_date)}")' if o.referenced_date else ""
            lines.append(f"[{o.id}] {o.date} ({o.priority}) [{o.category}] {as_data_text(o.content)}{ref}")
        stable = f"{REFLECTOR_PROMPT}\nAim for about {round(target_ratio * 100)}% of the input's size."
        return self.complete_json("reflect", ReflectResult, stable=stable, prompt="\n".join(lines), namespace=namespace)

    def summarise(self, texts: list[str], *, namespace: str) -> SummaryResult:
        prompt = "\n".join(f"- {as_data_text(t)}" for t in texts)
        return self.complete_json("summarise", SummaryResult, stable=SUMMARY_PROMPT, prompt=prompt, namespace=namespace)

    def impression(self, name: str, current: str, memories: list[str], *, namespace: str) -> ImpressionResult:
        """Seed 004's theory-of-mind prompt (figure L.2) for one person, from what the agent remembers of them."""
        listed = "\n".join(f"- {as_data_text(m)}" for m in memories) or "(none)"
        prompt = (
            f"Target person: {as_data_text(name)}\n"
            + (f"Current theory of mind for {as_data_text(name)}:\n{as_data_lines(current)}\n" if current else "")
            + f"Memories to consider when developing this impression:\n{listed}"
        )
        return self.complete_json(
            "impression", ImpressionResult, stable=IMPRESSION_PROMPT, prompt=prompt, namespace=namespace
        )
