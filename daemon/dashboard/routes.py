"""Every page's routes in one Starlette app, behind the Host check and the signed session cookie:
``build_dashboard_app(settings)``. The pages (pages.py and the *_pages.py beside it) take the
Dashboard (app.py) and return their handlers; this module is the one place that knows them all."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from agentmemd.daemon.dashboard import (
    chat_pages,
    conversation_pages,
    identity_pages,
    pages,
    people_pages,
    persona_pages,
    token_pages,
)
from agentmemd.daemon.dashboard.access import session_cookie, session_secret
from agentmemd.daemon.dashboard.app import STATIC, Dashboard, DashboardSettings

SESSION_DAYS = 30
PAGE_MODULES = (pages, conversation_pages, persona_pages, identity_pages, people_pages, chat_pages, token_pages)


def dashboard_app(dashboard: Dashboard) -> Starlette:
    routes: list[BaseRoute] = [
        Route(path, dashboard.guarded(getattr(module, name)(dashboard)), methods=methods)
        for module in PAGE_MODULES
        for path, name, methods in module.ROUTES
    ]
    routes.append(Mount("/static", StaticFiles(directory=STATIC), name="static"))
    return Starlette(
        routes=routes,
        middleware=[
            Middleware(TrustedHostMiddleware, allowed_hosts=dashboard.hosts),
            Middleware(
                SessionMiddleware,
                secret_key=session_secret(dashboard.settings.token),
                session_cookie=session_cookie(dashboard.settings.port),
                max_age=SESSION_DAYS * 86400,
                same_site="strict",
                https_only=False,  # loopback HTTP; the cookie is HttpOnly and SameSite=Strict
            ),
        ],
    )


def build_dashboard_app(settings: DashboardSettings) -> Starlette:
    return dashboard_app(Dashboard(settings))
