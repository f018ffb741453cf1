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

from . import __version__
from .client import Client, RpcCallError, default_socket
from .config import MEMORY_TYPES, ConfigError, load_config, load_config_text

EVENTS = ("direct", "indirect", "used", "retrieved_unused")


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
        "session": a.session, "budget_tokens": a.budget_tokens}.items() if v is not None}, lambda r: _human_context(r)),
    "observe": ("conversation.observe", lambda a: {"session": a.session, "force": not a.when_due, "reflect": a.reflect}, _print_kv),
    "observations": ("observations.list", lambda a: {k: v for k, v in {
        "session": a.session, "namespace": a.namespace, "include_replaced": a.include_replaced or None}.items()
        if v is not None}, lambda r: _human_observations(r)),
    "conversation": ("conversation.status", lambda a: {"session": a.session}, lambda r: _human_conversation(r)),
    "run-job": ("jobs.run", lambda a: {"name": a.name}, lambda r: _human_run(r)),
    "consolidated": ("consolidation.list", lambda a: {k: v for k, v in {
        "namespace": a.namespace, "level": a.level}.items() if v is not None}, lambda r: _human_consolidated(r)),
}


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
          f"memories {parts['memories']}); prefix_hash {result['prefix_hash'][:16]}", file=sys.stderr)


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


def template_dir() -> Path:
    """workspace_template/ from a source checkout (editable install) or beside the package."""
    here = Path(__file__).resolve().parent
    for candidate in (here.parent / "workspace_template", here / "workspace_template"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("workspace_template/ not found next to the agentmemd package")


def init_workspace(target: Path, config_path: Path | None = None) -> tuple[list[Path], Path | None]:
    """Copy the template into target without overwriting; write a config if none exists.

    Returns (files created, config written or None)."""
    import shutil

    template = template_dir()
    created: list[Path] = []
    for src in sorted(template.rglob("*")):
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
    defaults = template.parent / "agentmemd.toml"
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
    from .logs import setup_logging
    from .server import Daemon, StartupError

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
    if args.command == "bench":
        from .bench import run_bench

        print(json.dumps(run_bench(args), indent=2))
        return 0
    try:
        with Client(args.socket or default_socket()) as client:
            if args.command == "workspace" and args.sync:
                result = client.call("workspace.sync")
                printer = _human_workspace
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
