"""`agentmemd` command line: `serve` runs the daemon; every other command is a socket client.

Human output by default, the raw JSON-RPC result with --json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
from pathlib import Path
from typing import Any, Callable

from agentmemd.daemon import __version__
from agentmemd.daemon.socket.client import Client, RpcCallError, default_socket
from agentmemd.memory.core.config import ConfigError, load_config, load_config_text
from agentmemd.memory.core.vocabulary import MEMORY_TYPES, REINFORCE_EVENTS

EVENTS = REINFORCE_EVENTS


def _print_kv(data: dict[str, Any]) -> None:
    width = max((len(k) for k in data), default=0)
    for key, value in data.items():
        if isinstance(value, (dict, list)):
            value = json.dumps(value, ensure_ascii=False)
        print(f"{key:<{width}}  {value}")


def _human_search(result: dict[str, Any]) -> None:
    if not result["results"]:
        print("no results")
    for hit in result["results"]:
        s = hit["signals"]
        print(f"{hit['score']:.3f}  {hit['id']}  [{hit['type']}/{hit['tier']}]  {hit['content']}")
        print(f"       sim={s['similarity']:.3f} prio={s['priority']:.2f} decay={s['decay']:.3f} freq={s['frequency']:.3f}"
              + (f"  source={hit['source']}" if hit["source"] else ""))


def _human_pack(result: dict[str, Any]) -> None:
    print(result["text"] or "(empty pack)")
    print(f"\n{result['tokens']} tokens, {len(result['items'])} items, pack_id {result['pack_id']}", file=sys.stderr)


def _human_explain(result: dict[str, Any]) -> None:
    print(f"pack {result['pack_id']}  query={result['query']!r}  namespace={result['namespace']}  at {result['at']}")
    print(f"{result['tokens']}/{result['budget_tokens']} tokens, {len(result['chosen'])} chosen of {len(result['candidates'])} candidates")
    print(f"{'':2}{'score':>7}  {'id':<16} {'type':<10} {'tier':<8} {'mmr':>4}  signals")
    for c in result["candidates"]:
        sig = c["signals"]
        mark = "*" if c["chosen"] else " "
        print(f"{mark} {c['score']:7.4f}  {c['id']:<16} {c['type']:<10} {c['tier']:<8} {str(c['mmr_rank'] if c['mmr_rank'] is not None else '-'):>4}"
              f"  sim={sig['similarity']:.3f} prio={sig['priority']:.2f} decay={sig['decay']:.3f} freq={sig['frequency']:.3f}")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="agentmemd", description="Persistent memory daemon for personal AI agents.")
    parser.add_argument("--version", action="version", version=f"agentmemd {__version__}")
    parser.add_argument("--socket", default=None, help="daemon socket (default: $AGENTMEMD_SOCKET or ~/.agentmemd/agentmemd.sock)")
    parser.add_argument("--json", action="store_true", help="print the raw JSON result")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("serve", help="run the daemon in the foreground")
    p.add_argument("--data-dir", required=True, type=Path)
    p.add_argument("--socket", dest="serve_socket", type=Path, help="socket path (default: DATA_DIR/agentmemd.sock)")
    p.add_argument("--config", type=Path, help="TOML config (default: built-in defaults)")
    p.add_argument("--workspace", type=Path, help="Markdown workspace directory")

    p = sub.add_parser("init", help="create a workspace from the template (never overwrites) and a config for it")
    p.add_argument("dir", nargs="?", type=Path, default=Path("workspace"), help="workspace directory (default: ./workspace)")
    p.add_argument("--config", dest="init_config", type=Path,
                   help="config file to write if absent (default: DIR/../agentmemd.toml)")

    p = sub.add_parser("workspace", help="indexed workspace files (and skipped ones, with why)")
    p.add_argument("--sync", action="store_true", help="re-index every changed file now")

    sub.add_parser("health", help="is the daemon up?")
    p = sub.add_parser("stats", help="counts by type, tier and namespace")
    p.add_argument("--namespace")

    p = sub.add_parser("add", help="store a memory")
    p.add_argument("content")
    p.add_argument("--type", required=True, choices=MEMORY_TYPES)
    p.add_argument("--priority", type=float)
    p.add_argument("--namespace", default="default")
    p.add_argument("--source")
    p.add_argument("--created", help="ISO-8601 time the remembered thing happened")
    p.add_argument("--tag", action="append", default=[], dest="tags")
    p.add_argument("--context", help="text indexed with the memory but not stored as it (e.g. the previous turn)")

    p = sub.add_parser("search", help="scored hybrid search")
    p.add_argument("query")
    p.add_argument("-k", type=int, default=10)
    p.add_argument("--namespace", default="default")
    p.add_argument("--type", action="append", choices=MEMORY_TYPES, dest="types")
    p.add_argument("--include-archived", action="store_true", help="deep search: Cold tier and the archive too")

    p = sub.add_parser("pack", help="build a Memory Pack within a token budget")
    p.add_argument("query")
    p.add_argument("--budget", type=int, required=True, dest="budget_tokens")
    p.add_argument("--namespace", default="default")

    p = sub.add_parser("get", help="show one memory")
    p.add_argument("id")
    p = sub.add_parser("reinforce", help="record an access event")
    p.add_argument("id")
    p.add_argument("event", choices=EVENTS)
    p = sub.add_parser("update", help="write a new version of a memory")
    p.add_argument("id")
    p.add_argument("content")
    p = sub.add_parser("archive", help="move a memory to the archive")
    p.add_argument("id")
    p = sub.add_parser("explain", help="show how a pack was chosen")
    p.add_argument("pack_id")
    sub.add_parser("sweep", help="archive memories that decayed below the Cold tier")
    sub.add_parser("costs", help="language-model calls, tokens and cost (the ledger), response-cache hits")
    p = sub.add_parser("append", help="store one conversation turn (the Observer runs in the background when due)")
    p.add_argument("session")
    p.add_argument("role", choices=("user", "assistant"))
    p.add_argument("content")
    p.add_argument("--namespace", default="default")
    p.add_argument("--speaker", help="display name, e.g. the user's name")
    p.add_argument("--ts", help="ISO-8601 time it was said (default: now)")
    p = sub.add_parser("context", help="the context for the next model call: stable prefix, recent turns, Memory Pack")
    p.add_argument("session")
    p.add_argument("--budget", type=int, dest="budget_tokens")
    p.add_argument("--anchors-as", choices=("system", "user"), default=None,
                   help="persona anchors as system messages (default) or inside user turns")
    p = sub.add_parser("observe", help="run the Observer and Reflector on a conversation now and wait")
    p.add_argument("session")
    p.add_argument("--when-due", action="store_true", help="only what the thresholds call for (default: every turn)")
    p.add_argument("--reflect", action="store_true", help="also run the Reflector now (default: only when due)")
    p = sub.add_parser("observations", help="observations, oldest first, with their source turns")
    p.add_argument("--session")
    p.add_argument("--namespace")
    p.add_argument("--all", action="store_true", dest="include_replaced", help="also merged/superseded/dropped ones")
    p = sub.add_parser("conversation", help="a conversation's turns, tokens and Observer/Reflector runs")
    p.add_argument("session")
    sub.add_parser("jobs", help="scheduled jobs: cron, next run, last run and result")
    p = sub.add_parser("run-job", help="run one scheduled job now (decay_sweep, consolidate, daily_log)")
    p.add_argument("name")
    p = sub.add_parser("consolidated", help="consolidated memories (patterns, principles, insights) and their sources")
    p.add_argument("--namespace", default="default")
    p.add_argument("--level", type=int, choices=(1, 2, 3))
    p = sub.add_parser("clock", help="show, or advance a manual, clock")
    p.add_argument("--advance-hours", type=float)

    p = sub.add_parser("persona", help="the agent's PersonaState: traits as adjectives, voice, stance, rules, record")
    p.add_argument("--namespace", default="default")
    p.add_argument("--history", action="store_true", help="every version, why it changed and its evidence")
    p = sub.add_parser("score", help="SyncScore one response against the persona (five dimensions, EWMA, action)")
    p.add_argument("response")
    p.add_argument("--session", help="count it in this session's EWMA; judge it against its last turns and pack")
    p.add_argument("--context", help="text the response was given (memories, notes) to judge groundedness against")
    p.add_argument("--pack-id", help="the Memory Pack the response was given")
    p.add_argument("--namespace")
    p = sub.add_parser("scores", help="SyncScore history of a session (or a namespace), oldest first")
    p.add_argument("--session")
    p.add_argument("--namespace")
    p.add_argument("--limit", type=int, default=100)
    p = sub.add_parser("rule", help="hard rules: propose add/remove (then confirm), confirm, reject, list")
    p.add_argument("action", choices=("add", "remove", "confirm", "reject", "list"))
    p.add_argument("text", nargs="?", help="the rule (add/remove) or the proposal id (confirm/reject)")
    p.add_argument("--namespace", default="default")
    p.add_argument("--yes", action="store_true", help="confirm the proposal without asking")
    p = sub.add_parser("calibrate", help="correlate SyncScore with human labels per dimension (JSON)")
    p.add_argument("--labels", type=Path, required=True, help="JSONL of {persona, response, context?, labels}")
    p.add_argument("--min-correlation", type=float, default=0.7, help="flag dimensions under this")
    p.add_argument("--decode", type=Path, help="also: DECODE human-bot.jsonl, contradiction vs grounded")
    p.add_argument("--decode-limit", type=int, default=0, help="only this many DECODE dialogues (balanced; 0: all)")
    p.add_argument("--work-dir", type=Path)

    p = sub.add_parser("bench", help="benchmarks that print JSON")
    bench = p.add_subparsers(dest="bench", required=True)
    b = bench.add_parser("pack", help="context.pack latency at scale, against a numpy flat scan")
    b.add_argument("--memories", type=int, default=100_000)
    b.add_argument("--queries", type=int, default=200)
    b.add_argument("--budget", type=int, default=1000)
    b.add_argument("--work-dir", type=Path, help="keep the bench data dir here (default: a temp dir)")
    b = bench.add_parser("locomo", help="evidence Recall@k of memory.search on LoCoMo")
    b.add_argument("--data", type=Path, required=True)
    b.add_argument("--conversations", type=int, default=None, help="only the first N conversations")
    b.add_argument("--context-turns", type=int, default=2, metavar="N",
                   help="store each turn with up to N previous turns of its session as `context` (0: none)")
    b.add_argument("--work-dir", type=Path)
    b = bench.add_parser("observe", help="Observer/Reflector compression, evidence survival, prefix reuse on LoCoMo")
    b.add_argument("--data", type=Path, required=True)
    b.add_argument("--conversations", type=int, default=None, help="only the first N conversations")
    b.add_argument("--observer-tokens", type=int, default=2000, help="[conversation] observer_threshold_tokens")
    b.add_argument("--reflector-tokens", type=int, default=4000, help="[conversation] reflector_threshold_tokens")
    b.add_argument("--budget", type=int, default=8000, help="conversation.context budget_tokens")
    b.add_argument("--work-dir", type=Path)
    b = bench.add_parser("persona", help="scripted drifting conversation: SyncScore EWMA, escalation, AUC, PNG")
    b.add_argument("--png", type=Path, default=Path(".bench/syncscore_trace.png"), help="where to draw the EWMA trace")
    b.add_argument("--work-dir", type=Path)
    return parser


COMMANDS: dict[str, tuple[str, Callable[[argparse.Namespace], dict], Callable[[Any], None] | None]] = {
    "health": ("health", lambda a: {}, _print_kv),
    "stats": ("stats", lambda a: {"namespace": a.namespace} if a.namespace else {}, _print_kv),
    "add": ("memory.add", lambda a: {k: v for k, v in {
        "content": a.content, "type": a.type, "context": a.context, "priority": a.priority, "namespace": a.namespace,
        "source": a.source, "created": a.created, "tags": a.tags or None}.items() if v is not None},
        lambda r: print(r["id"])),
    "search": ("memory.search", lambda a: {k: v for k, v in {
        "query": a.query, "k": a.k, "namespace": a.namespace, "types": a.types,
        "include_archived": a.include_archived}.items() if v is not None}, _human_search),
    "pack": ("context.pack", lambda a: {"query": a.query, "budget_tokens": a.budget_tokens, "namespace": a.namespace}, _human_pack),
    "get": ("memory.get", lambda a: {"id": a.id}, _print_kv),
    "reinforce": ("memory.reinforce", lambda a: {"id": a.id, "event": a.event}, _print_kv),
    "update": ("memory.update", lambda a: {"id": a.id, "content": a.content}, _print_kv),
    "archive": ("memory.archive", lambda a: {"id": a.id}, _print_kv),
    "explain": ("context.explain", lambda a: {"pack_id": a.pack_id}, _human_explain),
    "sweep": ("memory.sweep", lambda a: {}, _print_kv),
    "workspace": ("workspace.status", lambda a: {}, lambda r: _human_workspace(r)),
    "jobs": ("jobs.list", lambda a: {}, lambda r: _human_jobs(r)),
    "costs": ("costs", lambda a: {}, lambda r: _human_costs(r)),
    "append": ("conversation.append", lambda a: {k: v for k, v in {
        "session": a.session, "role": a.role, "content": a.content, "namespace": a.namespace, "speaker": a.speaker,
        "ts": a.ts}.items() if v is not None}, _print_kv),
    "context": ("conversation.context", lambda a: {k: v for k, v in {
        "session": a.session, "budget_tokens": a.budget_tokens, "anchors_as": a.anchors_as}.items() if v is not None},
        lambda r: _human_context(r)),
    "observe": ("conversation.observe", lambda a: {"session": a.session, "force": not a.when_due, "reflect": a.reflect}, _print_kv),
    "observations": ("observations.list", lambda a: {k: v for k, v in {
        "session": a.session, "namespace": a.namespace, "include_replaced": a.include_replaced or None}.items()
        if v is not None}, lambda r: _human_observations(r)),
    "conversation": ("conversation.status", lambda a: {"session": a.session}, lambda r: _human_conversation(r)),
    "persona": ("persona.get", lambda a: {"namespace": a.namespace}, lambda r: _human_persona(r)),
    "score": ("persona.score", lambda a: {k: v for k, v in {
        "response": a.response, "session": a.session, "context": a.context, "pack_id": a.pack_id,
        "namespace": a.namespace}.items() if v is not None}, lambda r: _human_score(r)),
    "scores": ("persona.scores", lambda a: {k: v for k, v in {
        "session": a.session, "namespace": a.namespace, "limit": a.limit}.items() if v is not None},
        lambda r: _human_scores(r)),
    "run-job": ("jobs.run", lambda a: {"name": a.name}, lambda r: _human_run(r)),
    "consolidated": ("consolidation.list", lambda a: {k: v for k, v in {
        "namespace": a.namespace, "level": a.level}.items() if v is not None}, lambda r: _human_consolidated(r)),
}


def _human_persona(result: dict[str, Any]) -> None:
    print(f"{result['name'] or '(unnamed)'}  namespace {result['namespace']}  version {result['version']}"
          f"  ({result['reason']}, {result['updated_at']})")
    print("\ntraits")
    for t in result["readable_traits"]:
        bar = "#" * round(t["score"] / 5)
        print(f"  {t['name']:<18} {t['score']:>3}  {bar:<20}  {t['adjective']}   ({t['low']} 0 - 100 {t['high']})")
    for key, title in (("voice_markers", "voice markers"), ("relational_stance", "relational stance"),
                       ("formatting_prefs", "formatting"), ("emotional_register", "emotional register")):
        if result[key]:
            print(f"\n{title}")
            for w in result[key]:
                print(f"  {w['weight']:5.2f}  {w['text']}")
    print("\nhard rules" + ("" if result["hard_rules"] else ": none"))
    for r in result["hard_rules"]:
        print(f"  - {r['rule']}  ({r['source']})")
    for prop in result["pending_rules"]:
        print(f"  ? proposal {prop['id']}: {prop['action']} {prop['rule']!r}  (agentmemd rule confirm {prop['id']})")
    style = result["style"]
    print(f"\nstyle: about {style['words']:.0f} words; bullets {style['bullets']:.0%}, headers {style['headers']:.0%}, "
          f"code {style['code']:.0%}, emoji {style['emoji']:.0%} of replies ({style['replies']} measured)")
    print(f"\nrecord (injected into the system prompt)\n{result['record']}")
    if result["evidence"]:
        print("\nevidence for this version")
        for e in result["evidence"]:
            print(f"  {e['source']}: {e['snippet'][:120]}")


def _human_score(result: dict[str, Any]) -> None:
    dims = "  ".join(f"{k} {v:.2f}" for k, v in result["dimensions"].items())
    print(f"{result['composite']:.3f}  {dims}")
    print(f"ewma {result['ewma']:.3f}  trend {result['trend']}  action {result['action']}")
    for rule in result["details"].get("rules", []):
        if rule["ok"] is False:
            print(f"  broken: {rule['rule']} ({rule['why']})")


def _human_scores(result: dict[str, Any]) -> None:
    for r in result["scores"]:
        d = r["dimensions"]
        print(f"{r['at'][:19]}  turn {r['turn_seq'] if r['turn_seq'] is not None else '-':>4}  {r['composite']:.3f}  "
              f"ewma {r['ewma']:.3f} {r['trend']:<10} {r['action']:<9}  v{d['voice']:.2f} r{d['relational']:.2f} "
              f"g{d['grounded']:.2f} s{d['style']:.2f} c{d['constraint']:.2f}")


def _human_history(result: dict[str, Any]) -> None:
    for v in result["versions"]:
        traits = " ".join(f"{k}={round(x * 100)}" for k, x in v["traits"].items())
        print(f"v{v['version']:<3} {v['created'][:19]}  {v['reason']}\n      {traits}")
        for e in v["evidence"]:
            print(f"      evidence {e['source']}: {e['snippet'][:100]}")


def _human_rules(result: dict[str, Any]) -> None:
    print("hard rules in force" + ("" if result["hard_rules"] else ": none"))
    for r in result["hard_rules"]:
        print(f"  - {r['rule']}  ({r['source']}, {r['added_at'][:10]})")
    for p in result["proposals"]:
        print(f"proposal {p['id']} [{p['status']}]: {p['action']} {p['rule']!r} ({p['origin']}, {p['created'][:19]})")


def _rule_command(client: Client, args: argparse.Namespace) -> tuple[dict, Callable[[Any], None]]:
    """`rule add|remove TEXT` proposes and asks for confirmation; a rule never changes unconfirmed."""
    if args.action == "list":
        return client.call("persona.rules.list", {"namespace": args.namespace, "status": "all"}), _human_rules
    if not args.text:
        raise RpcCallError(-32602, f"rule {args.action} needs {'an id' if args.action in ('confirm', 'reject') else 'the rule text'}")
    if args.action in ("confirm", "reject"):
        if not args.text.isdigit():
            raise RpcCallError(-32602, f"rule {args.action} takes a proposal id (a number), not {args.text!r}")
        return client.call(f"persona.rules.{args.action}", {"id": int(args.text)}), _print_kv
    proposal = client.call("persona.rules.propose", {"namespace": args.namespace, "action": args.action,
                                                     "rule": args.text})
    confirmed = args.yes
    if not confirmed and sys.stdin.isatty():
        answer = input(f"{args.action} the hard rule {proposal['rule']!r} for namespace {args.namespace}? [y/N] ")
        confirmed = answer.strip().lower() in ("y", "yes")
    if confirmed:
        return client.call("persona.rules.confirm", {"id": proposal["id"]}), _print_kv
    print(f"proposal {proposal['id']} is pending; confirm it with `agentmemd rule confirm {proposal['id']}`",
          file=sys.stderr)
    return proposal, _print_kv


def _human_costs(result: dict[str, Any]) -> None:
    print(f"provider {result['provider']}: {result['calls']} calls, ${result['cost_usd']:.6f}")
    for r in result["by_task"]:
        print(f"  {r['provider']}/{r['model']} {r['task']}: {r['calls']} calls ({r['ok']} ok, {r['rejected']} rejected, "
              f"{r['errors']} errors), in {r['input_tokens']} out {r['output_tokens']} cache write "
              f"{r['cache_creation_input_tokens']} read {r['cache_read_input_tokens']} tokens, ${r['cost_usd']:.6f}")
    c = result["cache"]
    print(f"response cache: {c['hits_exact']} exact hits, {c['hits_semantic']} semantic hits, {c['misses']} misses, "
          f"{c['bypassed']} uncacheable, {c['tokens_saved']} tokens saved")
    for r in c["by_task"]:
        print(f"  {r['task']}: {r['hits_exact']} exact, {r['hits_semantic']} semantic, {r['misses']} misses, "
              f"{r['bypassed']} bypassed, {r['tokens_saved']} tokens saved")


def _human_context(result: dict[str, Any]) -> None:
    print("=== system (stable prefix) ===")
    print(result["system"] or "(empty)")
    for m in result["messages"]:
        print(f"=== {m['role']} ===")
        print(m["content"])
    parts = result["parts"]
    print(f"\n{result['tokens']}/{result['budget_tokens']} tokens (system {parts['system']}, history {parts['history']}, "
          f"memories {parts['memories']}, persona {parts.get('persona', 0)}); prefix_hash {result['prefix_hash'][:16]}",
          file=sys.stderr)
    drift = result.get("drift") or {}
    if drift.get("ewma") is not None:
        print(f"SyncScore EWMA {drift['ewma']:.3f} ({drift['trend']}): drift action {result['drift_action']}"
              + (f" (due: {drift['due']})" if drift["due"] != result["drift_action"] else ""), file=sys.stderr)


def _human_observations(result: dict[str, Any]) -> None:
    if not result["observations"]:
        print("no observations yet (they appear once a conversation passes observer_threshold_tokens, "
              "or after agentmemd observe SESSION)")
    for o in result["observations"]:
        ref = f" (refers to {o['referenced_date']}, \"{o['relative_date']}\")" if o["referenced_date"] else ""
        status = "" if o["status"] == "live" else f"  [{o['status']}{' -> ' + o['replaced_by'] if o['replaced_by'] else ''}]"
        print(f"{o['date'][:16].replace('T', ' ')} ({o['priority']}) [{o['category']}] {o['content']}{ref}{status}")
        print(f"{'':17}{o['id']}  turns {','.join(map(str, o['source_turns']))}  memory {o['memory_id']}")


def _human_conversation(result: dict[str, Any]) -> None:
    print(f"{result['turns']} turns, {result['observed']} observed, {result['unobserved_tokens']} unobserved tokens, "
          f"{result['observation_tokens']} observation tokens, {result['reflected']} reflections"
          + ("" if result["idle"] else "  (compaction running)"))
    for r in result["runs"]:
        print(f"  {r['kind']:<8} [{r['trigger']}] {r['status']:<11} {r['started']}  {r['items_in']} -> {r['items_out']} "
              f"items, {r['tokens_in']} -> {r['tokens_out']} tokens" + (f"  {r['error']}" if r["error"] else ""))


def _human_run(run: dict[str, Any]) -> None:
    outcome = json.dumps(run["result"], ensure_ascii=False) if run["status"] == "ok" else run["error"]
    print(f"{run['name']} [{run['trigger']}] {run['status']} {run['started']} -> {run['finished']}  {outcome}")


def _human_jobs(result: dict[str, Any]) -> None:
    print(f"cron times in {result['timezone']}")
    for job in result["jobs"]:
        print(f"{job['name']:<12} {job['cron'] or '(manual only)':<16} next {job['next_run'] or '-':<28} "
              f"runs {job['runs']}{'  RUNNING' if job['running'] else ''}")
        print(f"{'':12} {job['description']}")
        if job["last_run"]:
            print(f"{'':12} last: ", end="")
            _human_run(job["last_run"])


def _human_consolidated(result: dict[str, Any]) -> None:
    if not result["nodes"]:
        print("nothing consolidated yet (agentmemd run-job consolidate)")
    for node in result["nodes"]:
        print(f"L{node['level']} {node['id']}  {node['content']}")
        print(f"   built from {len(node['sources'])} ({node['leaves']} level-0 memories): {' '.join(node['sources'][:12])}"
              + (" ..." if len(node["sources"]) > 12 else ""))


def _human_workspace(result: dict[str, Any]) -> None:
    if "files" not in result or not isinstance(result["files"], list):  # workspace.sync's report
        _print_kv(result)
        return
    print(f"workspace {result['root']} (namespace {result['namespace']})")
    for f in result["files"]:
        print(f"  {f['status']:<8} {f['path']}" + (f"  ({f['reason']})" if f["reason"] else ""))


# The shipped defaults ride in the template package (a link to the repository's agentmemd.toml),
# so `agentmemd init` writes them from a wheel too; they are not copied into the workspace.
DEFAULT_CONFIG = "agentmemd.toml"
NOT_COPIED = {"__init__.py", DEFAULT_CONFIG}


def template_dir() -> Path:
    """workspace_template/, the package data `agentmemd init` copies (a source checkout or a wheel)."""
    from importlib.resources import files

    return Path(str(files("agentmemd.workspace_template")))


def init_workspace(target: Path, config_path: Path | None = None) -> tuple[list[Path], Path | None]:
    """Copy the template into target without overwriting; write a config if none exists.

    Returns (files created, config written or None)."""
    import shutil

    template = template_dir()
    created: list[Path] = []
    for src in sorted(p for p in template.rglob("*") if p.name not in NOT_COPIED and "__pycache__" not in p.parts):
        dest = target / src.relative_to(template)
        if src.is_dir():
            dest.mkdir(parents=True, exist_ok=True)
        elif not dest.exists():
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest)
            created.append(dest)
    config_path = config_path or target.resolve().parent / "agentmemd.toml"
    if config_path.exists():
        return created, None
    defaults = template / DEFAULT_CONFIG
    text = defaults.read_text() if defaults.is_file() else ""
    workspace_path = json.dumps(str(target.resolve()))  # a JSON string is a valid TOML basic string
    section = re.search(r"(?m)^\[workspace\][^\n]*\n(?:(?!\[)[^\n]*\n)*", text)
    if section and re.search(r"(?m)^path\s*=", section.group(0)):
        body = re.sub(r"(?m)^path\s*=\s*\"[^\"\n]*\"", lambda _: f"path = {workspace_path}", section.group(0), count=1)
        text = text[: section.start()] + body + text[section.end():]
    else:
        text += f"\n[workspace]\npath = {workspace_path}\n"
    if load_config_text(text).workspace.path != str(target.resolve()):
        raise ConfigError(f"could not point the new config at {target.resolve()}; edit [workspace] path by hand")
    config_path.write_text(text)
    return created, config_path


def _tune_threads_for_serving() -> None:
    """Set before torch, numpy or tokenizers load (each reads these once).

    The daemon's CPU work alternates between torch (query embedding, vector scan),
    numpy (MMR, scores), the Rust tokenizer and SQLite on few cores. Worker threads
    that spin after each call starved the next step: a 13 ms query embedding took
    30-80 ms inside a pack. numpy's matrices here are ~200 x 384: one BLAS thread is
    plenty. Only the server does this; a library user keeps their own settings.
    """
    import os

    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def _serve(args: argparse.Namespace) -> int:
    _tune_threads_for_serving()
    from agentmemd.daemon.cli.logs import setup_logging
    from agentmemd.daemon.socket.server import Daemon, StartupError

    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(f"agentmemd: {exc}", file=sys.stderr)
        return 2
    setup_logging(config.server.log_level)
    socket_path = args.serve_socket or args.socket or (args.data_dir / "agentmemd.sock")
    daemon = Daemon(config, args.data_dir, Path(socket_path), args.workspace)
    try:
        asyncio.run(daemon.serve())
    except StartupError as exc:
        print(f"agentmemd: {exc}", file=sys.stderr)
        return 1
    return 0


BENCH_EXTRA = ("matplotlib", "scipy")


def _missing_bench_extra() -> list[str]:
    """The `bench` extra's packages that are not installed (the daemon itself never needs them)."""
    from importlib.util import find_spec

    return [name for name in BENCH_EXTRA if find_spec(name) is None]


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "serve":
        return _serve(args)
    if args.command == "init":
        created, config_written = init_workspace(args.dir, args.init_config)
        print(f"workspace {args.dir.resolve()}: {len(created)} file(s) created, existing files left alone")
        if config_written:
            print(f"config {config_written} (its [workspace] path points at the workspace)")
        return 0
    if args.command in ("bench", "calibrate") and (missing := _missing_bench_extra()):
        print(f"agentmemd {args.command} needs the bench extra ({', '.join(missing)} not installed): "
              "pip install 'agentmemd[bench]'", file=sys.stderr)
        return 2
    if args.command == "bench":
        from agentmemd.daemon.bench.benchmarks import run_bench

        print(json.dumps(run_bench(args), indent=2))
        return 0
    if args.command == "calibrate":
        from agentmemd.daemon.bench.calibrate import LabelsError, run_calibration

        try:
            print(json.dumps(run_calibration(args), indent=2))
        except LabelsError as exc:
            print(f"agentmemd: {exc}", file=sys.stderr)
            return 2
        return 0
    try:
        with Client(args.socket or default_socket()) as client:
            if args.command == "workspace" and args.sync:
                result = client.call("workspace.sync")
                printer = _human_workspace
            elif args.command == "persona" and args.history:
                result = client.call("persona.history", {"namespace": args.namespace})
                printer = _human_history
            elif args.command == "rule":
                result, printer = _rule_command(client, args)
            elif args.command == "clock":
                result = client.call("clock.advance", {"hours": args.advance_hours}) if args.advance_hours is not None else client.call("clock.now")
                printer: Callable[[Any], None] | None = _print_kv
            else:
                method, make_params, printer = COMMANDS[args.command]
                result = client.call(method, make_params(args))
    except ConnectionError as exc:
        print(f"agentmemd: {exc}", file=sys.stderr)
        return 3
    except RpcCallError as exc:
        print(f"agentmemd: {exc.message}", file=sys.stderr)
        return 1
    if args.json or printer is None:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        printer(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
