"""The Persona page: traits on their scales, hard rules and proposals to confirm or reject, the
version history with diffs, the SyncScore EWMA of a session with the action thresholds and the
drift actions applied, each scored reply's dimensions, and scoring any reply."""

from __future__ import annotations

import asyncio
import difflib
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from agentmemd.daemon.dashboard.charts import time_chart
from agentmemd.daemon.dashboard.forms import chosen_namespace, form_fields
from agentmemd.daemon.dashboard.link import PageError

if TYPE_CHECKING:
    from agentmemd.daemon.dashboard.app import Dashboard, Handler

ROUTES = [
    ("/persona", "persona", ["GET"]),
    ("/persona/score", "persona_score", ["POST"]),
    ("/persona/rules", "rule_propose", ["POST"]),
    ("/persona/rules/{id}/confirm", "rule_confirm", ["POST"]),
    ("/persona/rules/{id}/reject", "rule_reject", ["POST"]),
]


def version_text(version: dict[str, Any]) -> list[str]:
    """A PersonaState version as lines a diff can compare: its traits, then its hard rules."""
    traits = [f"trait {name}: {value:.2f}" for name, value in sorted(version["traits"].items())]
    return traits + [f"rule: {rule}" for rule in version["hard_rules"]]


def diffs(versions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each version with what changed from the one before (newest first)."""
    out, previous = [], None
    for v in versions:
        lines = version_text(v)
        changed: list[str] = (
            []
            if previous is None
            else [
                line
                for line in difflib.unified_diff(previous, lines, lineterm="", n=0)
                if line[:1] in "+-" and line[:3] not in ("+++", "---")
            ]
        )
        out.append({**v, "diff": changed})
        previous = lines
    return out[::-1]


def ewma_chart(scores: list[dict[str, Any]], applied: list[dict[str, Any]], thresholds: dict[str, float], session: str):
    """The session's EWMA, a point per scored reply, the action thresholds, the applied actions."""
    mine = [s for s in scores if s["session"] == session and s["at"]]
    return time_chart(
        {"ewma": [(s["at"], s["ewma"]) for s in mine]},
        rules=[(value, f"{action} below {value:g}") for action, value in thresholds.items()],
        marks=[(a["at"], a["action"]) for a in applied if a["session"] == session],
    )


def persona(d: "Dashboard") -> "Handler":
    async def page(request: Request) -> Response:
        return await persona_page(d, request)

    return page


async def persona_page(
    d: "Dashboard", request: Request, *, scored: dict | None = None, error: str | None = None, status: int = 200
) -> Response:
    namespace = chosen_namespace(request)
    ns = {"namespace": namespace}
    state, rules, history, scores = await asyncio.gather(
        d.call("persona.get", ns),
        d.call("persona.rules.list", {**ns, "status": "all"}),
        d.call("persona.history", {**ns, "limit": 50}),
        d.call("persona.scores", {**ns, "limit": 2000}),
    )
    sessions = list(dict.fromkeys(s["session"] for s in reversed(scores["scores"]) if s["session"]))
    session = request.query_params.get("session") or (sessions[0] if sessions else None)
    chart = ewma_chart(scores["scores"], scores["applied"], scores["thresholds"], session) if session else None
    return d.render(
        request,
        "persona.html",
        status=status,
        namespace=namespace,
        state=state,
        rules=rules,
        versions=diffs(history["versions"]),
        sessions=sessions,
        session=session,
        chart=chart,
        session_scores=[s for s in scores["scores"] if s["session"] == session][::-1],
        applied=[a for a in scores["applied"] if a["session"] == session],
        scored=scored,
        error=error,
    )


def persona_score(d: "Dashboard") -> "Handler":
    """Score any reply (not into a session's EWMA): its five dimensions and composite."""

    async def page(request: Request) -> Response:
        form = await form_fields(request)
        params = {"response": form.get("response", ""), "namespace": chosen_namespace(request)}
        if form.get("context"):
            params["context"] = form["context"]
        try:
            scored = await d.call("persona.score", params)
        except PageError as exc:
            return await persona_page(d, request, error=exc.message, status=exc.status)
        return await persona_page(d, request, scored=scored)

    return page


def _back(request: Request) -> RedirectResponse:
    namespace = chosen_namespace(request)
    return RedirectResponse(f"/persona?namespace={namespace}#rules", status_code=303)


def rule_propose(d: "Dashboard") -> "Handler":
    async def page(request: Request) -> Response:
        form = await form_fields(request)
        namespace = chosen_namespace(request)
        params = {"rule": form.get("rule", ""), "action": form.get("action") or "add", "namespace": namespace}
        try:
            await d.call("persona.rules.propose", params)
        except PageError as exc:
            return await persona_page(d, request, error=exc.message, status=exc.status)
        return _back(request)

    return page


def _decision(method: str):
    def handler(d: "Dashboard") -> "Handler":
        async def page(request: Request) -> Response:
            namespace = chosen_namespace(request)
            await d.call(method, {"id": request.path_params["id"], "namespace": namespace})
            return _back(request)

        return page

    return handler


rule_confirm = _decision("persona.rules.confirm")
rule_reject = _decision("persona.rules.reject")
