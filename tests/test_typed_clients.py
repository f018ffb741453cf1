"""The typed clients an app uses (daemon/socket/typed.py, generated from the declarations): real
daemon, real socket. Each call returns its result model; a refusal raises as the error tree's
class; an argument left out is not sent, so a scoped token's namespace applies; the async client
keeps a bounded pool of connections."""

from __future__ import annotations

import asyncio
import inspect
import typing

import pytest
from conftest import served_daemon

from agentmemd.daemon.socket.async_client import AsyncClient
from agentmemd.daemon.socket.client import Client, DaemonUnavailable, RpcCallError
from agentmemd.daemon.socket.methods import METHODS
from agentmemd.daemon.socket.typed import AsyncTypedCalls, TypedCalls
from agentmemd.memory.core import models as m
from agentmemd.memory.core import results as r
from agentmemd.memory.core.errors import AgentmemdError, Forbidden, InvalidParams, NotFound

pytestmark = pytest.mark.process  # the tier (pyproject.toml)


@pytest.fixture(scope="module")
def served():
    with served_daemon() as d:
        yield d


def test_each_declared_method_is_a_typed_call_taking_its_params_by_keyword():
    for d in METHODS:
        name = d.name.replace(".", "_")
        for calls in (TypedCalls, AsyncTypedCalls):
            signature = inspect.signature(getattr(calls, name))
            taken = [p for p in signature.parameters if p != "self"]
            assert sorted(taken) == sorted(d.params.model_fields), d.name
            assert all(p.kind is p.KEYWORD_ONLY for n, p in signature.parameters.items() if n != "self")
        assert inspect.iscoroutinefunction(getattr(AsyncTypedCalls, name))


def test_an_argument_left_none_can_be_left_out():
    """A typed call sends only what was given (None: not sent, the daemon's default applies). That
    is the same as sending None only if no field takes None to mean something else than its default."""
    for d in METHODS:
        for name, info in d.params.model_fields.items():
            default = info.get_default(call_default_factory=True)
            takes_none = type(None) in typing.get_args(info.annotation)
            assert info.is_required() or default is None or not takes_none, f"{d.name} {name}"


def test_typed_calls_return_their_models(served):
    with Client(served.socket) as agentmemd:
        added = agentmemd.memory_add(content="Ana moved to Porto in May", type="fact", namespace="typed")
        assert isinstance(added, m.AddResult) and added.id
        hits = agentmemd.memory_search(query="where does Ana live", namespace="typed")
        assert isinstance(hits, m.SearchResult) and hits.results[0].id == added.id
        assert hits.results[0].signals.match > 0
        pack = agentmemd.context_pack(query="where does Ana live", namespace="typed", budget_tokens=300)
        assert isinstance(pack, m.PackResult) and "Porto" in pack.text
        explained = agentmemd.context_explain(pack_id=pack.pack_id, namespace="typed")
        assert isinstance(explained, r.ExplainResult) and explained.candidates
        many = agentmemd.memory_add_many(
            items=[
                m.AddParams(content="Ana's cat is Miso", type="fact", namespace="typed"),
                {"content": "x", "type": "fact"},
            ]
        )
        assert len(many.ids) == 2


def test_a_refusal_raises_as_the_error_it_is(served):
    with Client(served.socket) as agentmemd:
        with pytest.raises(NotFound) as missing:
            agentmemd.memory_get(id="m_nothing_here", namespace="typed")
        assert isinstance(missing.value, RpcCallError) and isinstance(missing.value, AgentmemdError)
        assert missing.value.code == -32001 and "m_nothing_here" in str(missing.value)
        with pytest.raises(InvalidParams) as bad:
            agentmemd.memory_search(query="x", k=0)
        assert "k" in bad.value.message


def test_a_scoped_token_s_namespace_applies_when_none_is_given(served):
    with Client(served.socket) as owner:
        secret = owner.access_tokens_create(name="family-app", namespaces=["family"]).secret
    with Client(served.socket, token=secret) as app:
        added = app.memory_add(content="Grandma's birthday is on 3 March", type="fact")  # no namespace: the token's
        app.memory_add_many(items=[m.AddParams(content="Dad likes jazz", type="preference")])
        assert app.memory_get(id=added.id).namespace == "family"
        assert {h.content for h in app.memory_search(query="birthday jazz").results} >= {
            "Grandma's birthday is on 3 March"
        }
        with pytest.raises(Forbidden):
            app.memory_search(query="Porto", namespace="typed")


def test_the_async_client_runs_calls_side_by_side_on_a_bounded_pool(served):
    async def scenario():
        async with AsyncClient(served.socket, max_connections=2) as agentmemd:
            await agentmemd.memory_add(content="Ana's favourite band is Radiohead", type="preference", namespace="aio")
            results = await asyncio.gather(
                *(agentmemd.memory_search(query="Ana's favourite band", namespace="aio") for _ in range(8))
            )
            assert all(isinstance(x, m.SearchResult) and x.results for x in results)
            assert len(agentmemd._idle) <= 2  # eight calls, two connections, each kept for the next
            with pytest.raises(NotFound):
                await agentmemd.memory_get(id="m_nothing_here", namespace="aio")
            assert (await agentmemd.health()).status == "ok"  # the refusal left its connection usable
        async with AsyncClient(served.socket, token="amt_not_a_token") as refused:
            with pytest.raises(Forbidden):
                await refused.health()

    asyncio.run(scenario())


def test_no_daemon_is_said_plainly(tmp_path):
    async def scenario():
        async with AsyncClient(tmp_path / "none.sock", timeout=5) as agentmemd:
            with pytest.raises(DaemonUnavailable, match="none.sock"):
                await agentmemd.health()

    asyncio.run(scenario())
    with pytest.raises(ConnectionError, match="none.sock"):
        Client(tmp_path / "none.sock")


def test_the_async_client_goes_on_after_the_daemon_restarts(spawn):
    """A connection kept in the pool dies with its daemon (an upgrade, `service stop` and `start`):
    the next call goes on a new one instead of failing once."""
    d = spawn()

    async def scenario():
        async with AsyncClient(d.socket, timeout=60) as agentmemd:
            first = (await agentmemd.health()).process.pid
            assert d.terminate() == 0
            d.start()
            await asyncio.sleep(0.5)  # the old connection's close has reached this loop
            second = (await agentmemd.health()).process.pid
            assert second != first

    asyncio.run(scenario())


def test_a_doors_calls_share_a_kept_connection_and_a_revoked_token_is_refused_as_new(served):
    from agentmemd.daemon.doors import calls

    with Client(served.socket) as owner:
        secret = owner.access_tokens_create(name="door-pool", namespaces=["pool"]).secret

    async def scenario():
        for _ in range(3):
            await calls.call_daemon(served.socket, "memory.search", {"query": "x"}, token=secret, timeout=30)
        [pool] = [p for p in calls._POOLS[asyncio.get_running_loop()].values() if p.token == secret]
        assert len(pool._idle) == 1  # three calls, one connection, one `auth`
        with Client(served.socket) as owner:
            owner.access_tokens_revoke(name="door-pool")
        with pytest.raises(Forbidden) as refused:
            await calls.call_daemon(served.socket, "memory.search", {"query": "x"}, token=secret, timeout=30)
        assert calls.http_status(refused.value) == 401  # as a new caller's would be, not the kept connection's 403
        with pytest.raises(Forbidden):
            await calls.check_token(served.socket, secret, timeout=30)

    asyncio.run(scenario())
