"""The webhook listener: chats' live messages in, each a turn of its chat's conversation.

    AGENTMEMD_TELEGRAM_SECRET=… AGENTMEMD_SLACK_SIGNING_SECRET=… agentmemd webhooks --listen 127.0.0.1:8790

    POST /telegram   a Telegram Bot API Update; X-Telegram-Bot-Api-Secret-Token must be the secret
                     given to setWebhook (secret_token)
    POST /slack      a Slack Events API request, signed with the app's signing secret;
                     url_verification is answered with its challenge
    POST /messages   the generic shape, for anything else, with `Authorization: Bearer <access
                     token>` (`agentmemd token create`): channels.ingest's params,
                     {"channel", "chat_id", "title", "kind", "messages": [{"sender", "ts", "text", …}]}

A request that fails its check gets 401 and reaches nothing; a route whose secret is not set
answers 404. Telegram and Slack messages go to ``--namespace`` through this listener's own
daemon connection (the owner's socket, or ``--token``'s); a generic request goes through the
daemon as its bearer token, so it reaches only that token's namespaces. The listener binds
loopback unless told otherwise: put a tunnel or a reverse proxy in front of it for Telegram
and Slack to reach it.
"""

from __future__ import annotations

import hmac
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from agentmemd.daemon.doors.calls import call_daemon, http_status
from agentmemd.daemon.doors.logs import reason
from agentmemd.daemon.doors.tokens import bearer_token
from agentmemd.daemon.socket.client import DaemonUnavailable, RpcCallError
from agentmemd.daemon.socket.rpc import validation_problems
from agentmemd.daemon.webhooks.slack import slack_batch, slack_correction, slack_signature_problem
from agentmemd.daemon.webhooks.telegram import telegram_batch, telegram_correction

log = logging.getLogger("agentmemd.webhooks")
TELEGRAM_SECRET_HEADER = "x-telegram-bot-api-secret-token"
MAX_BODY_BYTES = 1_000_000


@dataclass(frozen=True)
class WebhookSettings:
    socket_path: Path
    namespace: str | None = None  # Telegram and Slack messages' namespace (None: the daemon's default)
    token: str | None = None  # this listener's own daemon access (None: the owner's socket)
    telegram_secret: str | None = None
    slack_signing_secret: str | None = None
    owners: tuple[str, ...] = ()  # "telegram:user123", "slack:U01ANA": the accounts that are the user


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"ok": False, "error": message}, status_code=status)


class Webhooks:
    def __init__(self, settings: WebhookSettings):
        self.settings = settings

    def app(self) -> Starlette:
        routes = [
            Route("/telegram", self.telegram, methods=["POST"]),
            Route("/slack", self.slack, methods=["POST"]),
            Route("/messages", self.generic, methods=["POST"]),
        ]
        return Starlette(routes=routes)

    async def _body(self, request: Request) -> bytes | JSONResponse:
        """The body, read a chunk at a time and refused (413) as soon as it is over the limit: a
        100 MB request never sits in memory."""
        too_big = _error(413, f"the body is over {MAX_BODY_BYTES} bytes")
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
            return too_big
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > MAX_BODY_BYTES:
                return too_big
            chunks.append(chunk)
        return b"".join(chunks)

    async def telegram(self, request: Request) -> JSONResponse:
        secret = self.settings.telegram_secret
        if not secret:
            return _error(404, "Telegram is not set up: start the listener with AGENTMEMD_TELEGRAM_SECRET")
        given = request.headers.get(TELEGRAM_SECRET_HEADER, "")
        if not hmac.compare_digest(given.encode(), secret.encode()):
            return _error(401, f"missing or wrong {TELEGRAM_SECRET_HEADER}")
        body = await self._body(request)
        if isinstance(body, JSONResponse):
            return body
        update = _object(body, "a Telegram Update")
        if isinstance(update, JSONResponse):
            return update
        try:
            correction = telegram_correction(update)
            batch, why = telegram_batch(update)
        except ValidationError as exc:
            return _invalid(exc, "Telegram update")
        if correction is not None:
            return await self._correct(*correction)
        return await self._store(batch, why, "telegram")

    async def slack(self, request: Request) -> JSONResponse:
        secret = self.settings.slack_signing_secret
        if not secret:
            return _error(404, "Slack is not set up: start the listener with AGENTMEMD_SLACK_SIGNING_SECRET")
        body = await self._body(request)
        if isinstance(body, JSONResponse):
            return body
        problem = slack_signature_problem(
            secret, request.headers.get("x-slack-request-timestamp"), request.headers.get("x-slack-signature"), body
        )
        if problem:
            return _error(401, problem)
        payload = _object(body, "a Slack event")
        if isinstance(payload, JSONResponse):
            return payload
        try:
            correction = slack_correction(payload)
            batch, why = slack_batch(payload)
        except ValidationError as exc:
            return _invalid(exc, "Slack event")
        if payload.get("type") == "url_verification":
            return JSONResponse({"challenge": payload.get("challenge") or ""})
        if correction is not None:
            return await self._correct(*correction)
        return await self._store(batch, why, "slack")

    async def generic(self, request: Request) -> JSONResponse:
        token = bearer_token(request.headers.get("authorization"))
        if not token:
            return _error(401, "missing bearer token: `agentmemd token create NAME --namespace NS`, then "
                          "send `Authorization: Bearer <secret>`")  # fmt: skip
        body = await self._body(request)
        if isinstance(body, JSONResponse):
            return body
        params = _object(body, "channels.ingest's params: see `POST /messages` in docs/chats.md")
        if isinstance(params, JSONResponse):
            return params
        return await self._call(params, token)

    async def _store(self, batch: dict[str, Any] | None, why: str, channel: str) -> JSONResponse:
        if batch is None:
            return JSONResponse({"ok": True, "stored": 0, "ignored": why})
        owners = [o.split(":", 1)[1] for o in self.settings.owners if o.startswith(f"{channel}:")]
        if owners and batch["messages"][0].get("sender_id") in owners:
            batch["owner"] = batch["messages"][0]["sender_id"]
        if self.settings.namespace:
            batch["namespace"] = self.settings.namespace
        return await self._call(batch, self.settings.token)

    async def _correct(self, method: str, params: dict[str, Any]) -> JSONResponse:
        """An edit or a deletion of a stored message; one never stored is answered 200 with
        status "unknown message" (it may predate the bot), so the app does not send it again."""
        if self.settings.namespace:
            params["namespace"] = self.settings.namespace
        return await self._call(params, self.settings.token, method)

    async def _call(self, params: dict[str, Any], token: str | None, method: str = "channels.ingest") -> JSONResponse:
        try:
            done = await call_daemon(self.settings.socket_path, method, params, token=token, timeout=30)
        except RpcCallError as exc:
            # A refused token changes nothing: 401, as for a failed signature; a namespace the
            # token may not use: 403; params the daemon refuses: 400, naming the field; a store
            # refusing writes for now (a full disk): 503, so the platform sends it again later;
            # anything else 409, not a 5xx: the app would only send the same update again.
            return _error(http_status(exc, otherwise=409), exc.message)
        except DaemonUnavailable as exc:
            log.warning("webhooks: no daemon", extra={"error": reason(exc)})
            return _error(503, str(exc))
        if method != "channels.ingest":
            return JSONResponse({"ok": True, "status": done["status"], "chat": done["chat"]})
        if done.get("dry_run"):  # nothing stored: how many would be
            answer = {"ok": True, "stored": 0, "would_store": done["added"], "duplicates": done["duplicates"],
                      "chat": done["chat"], "dry_run": True}  # fmt: skip
            return JSONResponse(answer)
        answer = {"ok": True, "stored": done["added"], "duplicates": done["duplicates"], "chat": done["chat"]}
        # A resent message with the same id changes nothing unless it says it was edited: say what did.
        # And one whose words a person forgot before: stored as a tombstone, never searchable.
        answer.update({k: done[k] for k in ("edited", "deleted", "forgotten") if done.get(k)})
        return JSONResponse(answer)


def _invalid(exc: ValidationError, what: str) -> JSONResponse:
    first = validation_problems(exc)[0]
    return _error(400, f"not a valid {what}: {first['field']}: {first['message']}")


def _object(body: bytes, what: str) -> dict[str, Any] | JSONResponse:
    """The body as a JSON object; else a 400 saying what it should have been."""
    try:
        parsed = json.loads(body)
    # RecursionError: nesting too deep; ValueError: a number past Python's 4,300 digits (or bad JSON)
    except (ValueError, RecursionError):
        parsed = None
    return parsed if isinstance(parsed, dict) else _error(400, f"the body is not a JSON object ({what})")


def build_webhook_app(settings: WebhookSettings) -> Starlette:
    return Webhooks(settings).app()
