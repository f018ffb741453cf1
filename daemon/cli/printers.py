"""How the CLI shows each result to a person (``--json`` prints the raw result instead)."""

from __future__ import annotations

import json
import sys
from typing import Any

from agentmemd.memory.core.clock import shown_time
from agentmemd.memory.core.signals import signals_line
from agentmemd.memory.safety.secrets import mask
from agentmemd.persona.identity.graph import NODE_KIND_LABELS
from agentmemd.persona.impressions.impressions import render_impression


def print_kv(data: dict[str, Any]) -> None:
    width = max((len(k) for k in data), default=0)
    for key, value in data.items():
        if isinstance(value, (dict, list)):
            value = json.dumps(value, ensure_ascii=False)
        print(f"{key:<{width}}  {value}")


def human_health(result: dict[str, Any]) -> None:
    """What is set of it: nothing printed as None (a store that cannot be asked has no count)."""
    shown = {k: v for k, v in result.items() if v not in (None, [], {}) and k != "process"}
    if result.get("memories") is None:
        shown["memories"] = "unknown (the store cannot be asked now)"
    process = result.get("process")
    if process:
        shown["pid"], shown["store"] = process["pid"], process["store"]
        shown["data_dir"] = process["data_dir"]
    print_kv(shown)


def human_search(result: dict[str, Any]) -> None:
    """Best first, numbered in that order: a search ranks by relevance (similarity, to 0.01), the
    score only ordering near-ties, and later statements of a subject above earlier ones, so no one
    number of a hit says its place; both are shown."""
    if not result["results"]:
        print("no results")
    for rank, hit in enumerate(result["results"], 1):
        s = hit["signals"]
        print(f"{rank:>2}. {hit['id']}  [{hit['type']}/{hit['tier']}]  {one_line(hit['content'])}")
        print(
            f"    score={hit['score']:.3f} {signals_line(s)}"
            + (f" ({hit['emotion']})" if s.get("affect") else "")
            + (f"  source={hit['source']}" if hit["source"] else "")
        )


def one_line(text: str) -> str:
    """A text on one line of a list: its line breaks shown as ⏎."""
    return " ⏎ ".join(part.strip() for part in text.strip().splitlines() if part.strip())


def human_add(result: dict[str, Any]) -> None:
    """The id on stdout (what a script captures); a duplicate and the similar memories on stderr."""
    print(result["id"])
    if result.get("duplicate"):
        print("already stored: nothing new was stored", file=sys.stderr)
    for m in result.get("similar", []):
        print(f"similar  {m['similarity']:.2f}  {m['id']}  [{m['type']}]  {mask(m['content'])}", file=sys.stderr)


def human_pack(result: dict[str, Any]) -> None:
    print(result["text"] or "(empty pack)")
    print(f"\n{result['tokens']} tokens, {len(result['items'])} items, pack_id {result['pack_id']}", file=sys.stderr)


def human_explain(result: dict[str, Any]) -> None:
    print(
        f"pack {result['pack_id']}  query={mask(result['query'])!r}  namespace={result['namespace']}  at {result['at']}"
    )
    print(
        f"{result['tokens']}/{result['budget_tokens']} tokens, {len(result['chosen'])} chosen of {len(result['candidates'])} candidates"
    )
    if result.get("stages_ms"):  # none logged before stages were
        stages = result["stages_ms"]
        print(f"{sum(stages.values()):.1f} ms: " + ", ".join(f"{name} {ms:.1f}" for name, ms in stages.items()))
    print(f"{'':2}{'score':>7}  {'id':<16} {'type':<10} {'tier':<8} {'mmr':>4}  signals")
    for c in result["candidates"]:
        sig = c["signals"]
        mark = "*" if c["chosen"] else " "
        print(
            f"{mark} {c['score']:7.4f}  {c['id']:<16} {c['type']:<10} {c['tier']:<8} {str(c['mmr_rank'] if c['mmr_rank'] is not None else '-'):>4}"
            f"  {signals_line(sig)}"
        )
        text = c.get("content") or "(forgotten since)"
        print(f"{'':11}{text[:100]}" + (f"\n{'':11}not packed: {c['why_not']}" if c.get("why_not") else ""))


def human_memories(result: dict[str, Any]) -> None:
    shown = len(result["items"])
    first = result["offset"] + 1
    print(f"{result['total']} memories" + (f", {first}-{first + shown - 1} shown" if shown else ""))
    for m in result["items"]:
        feeling = "" if m.get("emotion", "neutral") == "neutral" else f" {m['emotion']}"
        held = f" secret: {', '.join(m['secrets'])}" if m.get("secrets") else ""
        content = (m.get("shown") or mask(m["content"])) if held else m["content"]  # a list on screen shows no secret
        print(
            f"{m['id']}  [{m['namespace']} {m['type']}/{m['tier']} {m['retention']:.2f}{feeling}{held}]  "
            + one_line(content)[:100]
        )


def human_memory_history(result: dict[str, Any]) -> None:
    print(f"{result['id']} in {result['namespace']}; origin: {result['origin']['kind']}")
    for v in result["versions"]:
        mark = "*" if v["id"] == result["id"] else " "
        print(f"{mark} v{v['version']}  {v['id']}  {shown_time(v['created'], seconds=True)}  {v['content'][:90]}")
    for e in result["events"]:
        count = "" if e["access_count"] is None else f"  (access count {e['access_count']:g})"
        print(f"  {shown_time(e['at'], seconds=True)}  {e['kind']}  {e['detail'] or ''}{count}")
    now = result["retention"][-1] if result["retention"] else None
    if now:
        end = result["projected"][-1]
        print(
            f"retention now {now['retention']:.3f}; {end['retention']:.3f} by {end['at'][:10]} if nothing reinforces it"
        )


def human_forget(result: dict[str, Any]) -> None:
    verb = "forgot" if result["forgotten"] else "would forget (run again with --yes)"
    print(f"{verb}: {len(result['versions'])} version(s) {', '.join(result['versions'])}")
    for also in result["also"]:
        print(
            f"  and {also['id']} [{also['type']}] ({also['why']}): {(also.get('shown') or mask(also['content']))[:100]}"
        )
    if result["turns"]:
        print(
            f"  the words of {result['turns']} conversation turn(s) in {', '.join(result['sessions'])}: "
            "each becomes a tombstone in the transcript (its time and speaker stay), out of search and "
            "never observed again; a later import or resent message with the same words stays forgotten"
        )
    for key in (
        "search_index_entries",
        "windows",
        "events",
        "turn_links",
        "observations",
        "consolidation_nodes",
        "reindexed",
        "impressions",
        "packs_logged",
        "cached_responses",
    ):
        print(f"  {key.replace('_', ' ')}: {result[key]}")
    for path in result["workspace_sections"]:
        print(f"  the lines of agentmemd's section of {path} that quote it")
    for goal in result.get("goals", []):
        print(f"  goal {goal}: the secret it states, masked (the goal stays)")
    stays = "the conversations' other turns"
    unwritten = result.get("workspace_unwritten", [])
    print(f"  stays: {stays}" + ("; a person's Markdown (below)" if result["workspace_files"] or unwritten else ""))
    for path in result["workspace_files"]:
        print(
            f"  an item of {path}: it stays in the file, not read again while its words are unchanged (edit or delete it)"
        )
    for why in unwritten:
        print(f"  the lines of agentmemd's section that quote it, not rewritten: {why}; delete them by hand")


def human_packs(result: dict[str, Any]) -> None:
    print(f"{result['total']} packs logged")
    for p in result["packs"]:
        print(
            f"{p['pack_id']}  {shown_time(p['at'], seconds=True)}  [{p['namespace']}] {p['chosen']} chosen, {p['tokens']}/{p['budget_tokens']}  {mask(p['query'])[:70]}"
        )


def human_persona(result: dict[str, Any]) -> None:
    print(
        f"{result['name'] or '(unnamed)'}  namespace {result['namespace']}  version {result['version']}"
        f"  ({result['reason']}, {result['updated_at']})"
    )
    print("\ntraits")
    for t in result["readable_traits"]:
        bar = "#" * round(t["score"] / 5)
        print(f"  {t['name']:<18} {t['score']:>3}  {bar:<20}  {t['adjective']}   ({t['low']} 0 - 100 {t['high']})")
    for key, title in (
        ("voice_markers", "voice markers"),
        ("relational_stance", "relational stance"),
        ("formatting_prefs", "formatting"),
        ("emotional_register", "emotional register"),
    ):
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
    print(
        f"\nstyle: about {style['words']:.0f} words; bullets {style['bullets']:.0%}, headers {style['headers']:.0%}, "
        f"code {style['code']:.0%}, emoji {style['emoji']:.0%} of replies ({style['replies']} measured)"
    )
    print(f"\nrecord (injected into the system prompt)\n{result['record']}")
    if result["evidence"]:
        print("\nevidence for this version")
        for e in result["evidence"]:
            print(f"  {e['source']}: {e['snippet'][:120]}")


def human_score(result: dict[str, Any]) -> None:
    dims = "  ".join(f"{k} {v:.2f}" for k, v in result["dimensions"].items())
    print(f"{result['composite']:.3f}  {dims}")
    print(f"ewma {result['ewma']:.3f}  trend {result['trend']}  action {result['action']}")
    for rule in result["details"].get("rules", []):
        if rule["ok"] is False:
            print(f"  broken: {rule['rule']} ({rule['why']})")


def human_scores(result: dict[str, Any]) -> None:
    for r in result["scores"]:
        d = r["dimensions"]
        print(
            f"{shown_time(r['at'], seconds=True)}  turn {r['turn_seq'] if r['turn_seq'] is not None else '-':>4}  {r['composite']:.3f}  "
            f"ewma {r['ewma']:.3f} {r['trend']:<10} {r['action']:<9}  v{d['voice']:.2f} r{d['relational']:.2f} "
            f"g{d['grounded']:.2f} s{d['style']:.2f} c{d['constraint']:.2f}"
        )


def human_history(result: dict[str, Any]) -> None:
    for v in result["versions"]:
        traits = " ".join(f"{k}={round(x * 100)}" for k, x in v["traits"].items())
        print(f"v{v['version']:<3} {shown_time(v['created'], seconds=True)}  {v['reason']}\n      {traits}")
        for e in v["evidence"]:
            print(f"      evidence {e['source']}: {e['snippet'][:100]}")


def human_rules(result: dict[str, Any]) -> None:
    print("hard rules in force" + ("" if result["hard_rules"] else ": none"))
    for r in result["hard_rules"]:
        print(f"  - {r['rule']}  ({r['source']}, {r['added_at'][:10]})")
    for p in result["proposals"]:
        print(
            f"proposal {p['id']} [{p['status']}]: {p['action']} {p['rule']!r} ({p['origin']}, {shown_time(p['created'], seconds=True)})"
        )


def _where(item: dict[str, Any]) -> str:
    if item["file"]:
        return f"{item['file']} L{item['line']}"
    return f"memory {item['memory_id']}" if item.get("memory_id") else "a relation's words (below)"


def human_identity_graph(result: dict[str, Any]) -> None:
    nodes = result["nodes"]
    print(f"identity graph of {result['agent']}: {len(nodes)} nodes, {len(result['edges'])} relations")
    for kind, label in NODE_KIND_LABELS.items():
        named = [n["name"] for n in nodes if n["kind"] == kind and not n["owner"]]
        if named:
            print(f"  {label}: {', '.join(named)}")
    for edge in result["edges"]:
        print(f"  - {edge['text']}  [{edge['kind']}; {_where(edge)}]")
    for problem in result["problems"]:
        print(f"left out: {problem['file']} L{problem['line']}: {problem['message']}")


def human_identity_node(result: dict[str, Any]) -> None:
    node = result["node"]
    print(
        f"{node['name']} ({node['kind']}; first named in {_where(node)})"
        + (f": {node['description']}" if node["description"] else "")
    )
    for n in result["neighbours"]:
        print(f"  {'  ' * (n['hops'] - 1)}{n['hops']} hop{'s' if n['hops'] > 1 else ''}: {n['name']} ({n['kind']})")
    for edge in result["edges"]:
        print(f"  - {edge['text']}  [{edge['kind']}; {_where(edge)}]")


def human_goal(goal: dict[str, Any]) -> None:
    due = f", due {shown_time(goal['due'])}" if goal["due"] else ""
    trigger = f", when asked about {goal['trigger']!r}" if goal["trigger"] else ""
    # a list on screen shows no secret (--json keeps the text as stored)
    print(f"{goal['id']} [{goal['status']}, {goal['priority']}{due}{trigger}] {mask(goal['text'])}")
    for note in goal["notes"]:
        print(f"    {shown_time(note['at'])} ({note['origin']}): {mask(note['text'])}")


def human_goals(result: dict[str, Any]) -> None:
    for goal in result["goals"]:
        human_goal(goal)
    if not result["goals"]:
        print("no goal")


def human_costs(result: dict[str, Any]) -> None:
    print(f"provider {result['provider']}: {result['calls']} calls, ${result['cost_usd']:.6f}")
    for r in result["by_task"]:
        print(
            f"  {r['provider']}/{r['model']} {r['task']}: {r['calls']} calls ({r['ok']} ok, {r['rejected']} rejected, "
            f"{r['errors']} errors), in {r['input_tokens']} out {r['output_tokens']} cache write "
            f"{r['cache_creation_input_tokens']} read {r['cache_read_input_tokens']} tokens, ${r['cost_usd']:.6f}"
        )
    c = result["cache"]
    print(
        f"response cache: {c['hits_exact']} exact hits, {c['hits_semantic']} semantic hits, {c['misses']} misses, "
        f"{c['bypassed']} uncacheable, {c['tokens_saved']} tokens saved"
    )
    for r in c["by_task"]:
        print(
            f"  {r['task']}: {r['hits_exact']} exact, {r['hits_semantic']} semantic, {r['misses']} misses, "
            f"{r['bypassed']} bypassed, {r['tokens_saved']} tokens saved"
        )


def human_context(result: dict[str, Any]) -> None:
    print("=== system (stable prefix) ===")
    print(result["system"] or "(empty)")
    for m in result["messages"]:
        print(f"=== {m['role']} ===")
        print(m["content"])
    parts = result["parts"]
    print(
        f"\n{result['tokens']}/{result['budget_tokens']} tokens (system {parts['system']}, history {parts['history']}, "
        f"memories {parts['memories']}, persona {parts.get('persona', 0)}); prefix_hash {result['prefix_hash'][:16]}",
        file=sys.stderr,
    )
    drift = result.get("drift") or {}
    if drift.get("ewma") is not None:
        print(
            f"SyncScore EWMA {drift['ewma']:.3f} ({drift['trend']}): drift action {result['drift_action']}"
            + (f" (due: {drift['due']})" if drift["due"] != result["drift_action"] else ""),
            file=sys.stderr,
        )


def human_observations(result: dict[str, Any]) -> None:
    if not result["observations"]:
        print(
            "no observations yet (they appear once a conversation passes observer_threshold_tokens, "
            "or after agentmemd observe SESSION)"
        )
    for o in result["observations"]:
        ref = f' (refers to {o["referenced_date"]}, "{o["relative_date"]}")' if o["referenced_date"] else ""
        status = (
            "" if o["status"] == "live" else f"  [{o['status']}{' -> ' + o['replaced_by'] if o['replaced_by'] else ''}]"
        )
        print(
            f"{shown_time(o['date'])} ({o['priority']}) [{o['category']}] {o.get('shown') or mask(o['content'])}{ref}{status}"
        )
        print(f"{'':17}{o['id']}  turns {','.join(map(str, o['source_turns']))}  memory {o['memory_id']}")


def human_conversation(result: dict[str, Any]) -> None:
    print(
        f"{result['turns']} turns, {result['observed']} observed, {result['unobserved_tokens']} unobserved tokens, "
        f"{result['observation_tokens']} observation tokens, {result['reflected']} reflections"
        + ("" if result["idle"] else "  (compaction running)")
    )
    for r in result["runs"]:
        print(
            f"  {r['kind']:<8} [{r['trigger']}] {r['status']:<11} {r['started']}  {r['items_in']} -> {r['items_out']} "
            f"items, {r['tokens_in']} -> {r['tokens_out']} tokens" + (f"  {r['error']}" if r["error"] else "")
        )


def human_run(run: dict[str, Any]) -> None:
    outcome = json.dumps(run["result"], ensure_ascii=False) if run["status"] == "ok" else run["error"]
    print(f"{run['name']} [{run['trigger']}] {run['status']} {run['started']} -> {run['finished']}  {outcome}")


def human_jobs(result: dict[str, Any]) -> None:
    print(f"cron times in {result['timezone']}")
    for job in result["jobs"]:
        print(
            f"{job['name']:<12} {job['cron'] or '(manual only)':<16} next {job['next_run'] or '-':<28} "
            f"runs {job['runs']}{'  RUNNING' if job['running'] else ''}"
        )
        print(f"{'':12} {job['description']}")
        if job["last_run"]:
            print(f"{'':12} last: ", end="")
            human_run(job["last_run"])


def human_consolidated(result: dict[str, Any]) -> None:
    if not result["nodes"]:
        print("nothing consolidated yet (agentmemd job run consolidate)")
    for node in result["nodes"]:
        print(f"L{node['level']} {node['id']}  {mask(node['content'])}")  # a list on screen shows no secret
        print(
            f"   built from {len(node['sources'])} ({node['leaves']} level-0 memories): {' '.join(node['sources'][:12])}"
            + (" ..." if len(node["sources"]) > 12 else "")
        )


def human_workspace(result: dict[str, Any]) -> None:
    if "files" not in result or not isinstance(result["files"], list):  # workspace.sync's report
        print_kv(result)
        return
    print(f"workspace {result['root']} (namespace {result['namespace']})")
    for f in result["files"]:
        print(f"  {f['status']:<8} {f['path']}" + (f"  ({f['reason']})" if f["reason"] else ""))


def human_tokens(result: dict[str, Any]) -> None:
    if not result["tokens"]:
        print("no access tokens (agentmemd token create NAME --namespace NS)")
    for t in result["tokens"]:
        reach = "every namespace" if t["namespaces"] is None else ", ".join(t["namespaces"])
        if t.get("hears"):
            reach += f" (hears {t['hears']} only)"
        state = f"revoked {t['revoked']}" if t["revoked"] else "live"
        used = t.get("last_used")
        last = f"last {t['last_method']} via {t['last_door']} {shown_time(used)}" if used else "never used"
        print(f"{t['name']:<24} {state:<34} {reach:<24} {last}")


def _day(ts: str | None) -> str:
    return ts[:10] if ts else "-"


def _human_imported_chat(chat: dict[str, Any]) -> None:
    print(
        f"  {chat['added']} added, {chat['duplicates']} already stored, {len(chat['sessions'])} sessions"
        + (f", Observer queued for {len(chat['observing'])}" if chat["observing"] else "")
    )
    if chat.get("forgotten"):
        print(
            f"  {chat['forgotten']} messages whose words you forgot before: stored as tombstones "
            "(never searched, observed or packed)"
        )
    if chat.get("edited") or chat.get("deleted"):
        print(
            f"  since the last import: {chat.get('edited', 0)} stored messages edited (their memories get "
            f"new versions), {chat.get('deleted', 0)} deleted (tombstones; what was made only from them is forgotten)"
        )


def human_import(report: dict[str, Any]) -> None:
    verb = "would import" if report["dry_run"] else "imported"
    print(
        f"{report['format']} {report['path']}: {len(report['chats'])} chats, {report['messages']} messages "
        f"({_day(report['first'])} to {_day(report['last'])}), {report['skipped']} lines skipped"
    )
    for note in report["notes"]:
        print(f"  note: {note}")
    if report.get("zone"):
        print(f"  times without a zone are read in {report['zone']}")
    for chat in report["chats"]:
        print(f"\n{chat['title']}  ({chat['kind']}, {chat['chat']})  {_day(chat['first'])} to {_day(chat['last'])}")
        if report["dry_run"]:
            counted = f"{chat['new']} new of " if chat.get("new") is not None else ""
            stored = f" ({chat['stored']} already stored)" if chat.get("new") is not None else ""
            print(f"  {verb} {counted}{chat['messages']} messages{stored}")
        else:
            _human_imported_chat(chat)
        for moved in chat.get("remapped") or []:
            print(
                f"  corrected: {moved['name']!r} is now {_person_label(moved['now'])} (was {_person_label(moved['was'])}), "
                f"{moved['turns']} messages moved"
            )
        if chat.get("retimed"):
            r = chat["retimed"]
            print(
                f"  warning: {r['messages']} messages were stored by an earlier import that read their times at "
                f"{r['earlier_offset']}; this one reads them at {r['this_offset']}. They keep their first times. "
                f"Import with the --tz of that first import (a zone at {r['earlier_offset']} then) so that new "
                "messages match them."
            )
        for sender, count in chat["senders"].items():
            person = chat.get("people", {}).get(sender)
            print(f"    {count:>6}  {sender}" + (f"  -> {person}" if person else ""))
        reasons: dict[str, int] = {}
        for skipped in chat["skipped"]:
            reasons[skipped["reason"]] = reasons.get(skipped["reason"], 0) + 1
        for reason, count in sorted(reasons.items(), key=lambda kv: -kv[1]):
            print(f"  skipped {count:>4}  {reason}")
    shown = [(c["title"], s) for c in report["chats"] for s in c["skipped"]][:20]
    if shown:
        print("\nskipped lines (the first 20; --json lists all):")
        for title, s in shown:
            print(f"  {title} line {s['line']}: {s['reason']}: {s['text'][:70]!r}")
    if not report["dry_run"]:
        print(f"\n{report['added']} messages added, {report['duplicates']} already stored")


def _person_label(person: str) -> str:
    return "the user" if person == "user" else person


def human_chats(result: dict[str, Any]) -> None:
    if not result["chats"]:
        print("no chats")
    for c in result["chats"]:
        print(
            f"{c['chat']:<40} {c['kind']:<8} {c['messages']:>7} msgs {c['sessions']:>4} sessions  "
            f"{_day(c['first'])} to {_day(c['last'])}  {c['title']}"
        )


def human_turns(result: dict[str, Any]) -> None:
    if not result["turns"]:
        print("no messages match")
    shown = [t.get("shown") or mask(t["content"]) for t in result["turns"]]  # a list on screen shows no secret
    for t, text in zip(result["turns"], shown):
        where = t["chat_title"] or t["session"]
        print(f"{shown_time(t['ts'])}  {where}  {t['speaker']}: {text[:200]}")
    _say_masked(result["turns"], shown)


def _say_masked(turns: list[dict[str, Any]], shown: list[str]) -> None:
    if any(text != t["content"] for t, text in zip(turns, shown)):
        print("(a secret in these messages is masked here; --json shows them as stored)")


def human_people(result: dict[str, Any]) -> None:
    if not result["people"]:
        print("no people yet: import a chat (`agentmemd import`) or connect a channel")
    for p in result["people"]:
        print(f"{p['id']:<16} {p['messages']:>7} msgs  last {shown_time(p['last_seen'])[:10] or '-'}  {p['name']}")


def human_person(p: dict[str, Any]) -> None:
    merged = f"  (asked for {p['requested']}, merged into this person)" if p.get("requested") else ""
    print(f"{p['name']}  {p['id']}{merged}")
    print(
        f"  {p['messages']} messages, {shown_time(p['first_seen'])[:10] or '-'} to {shown_time(p['last_seen'])[:10] or '-'}"
    )
    for a in p["accounts"]:
        print(f"  account  {a['channel']}: {a['account']}  ({a['name']})")
    for c in p["chats"]:
        print(f"  chat     {c['title']}  ({c['kind']}, {c['messages']} messages)")
    for imp in p.get("impressions", []):
        print(f"\n  impression heard in {imp['audience']} (version {imp['version']}, {shown_time(imp['updated'])})")
        for line in render_impression(imp["content"]).splitlines()[1:]:
            print(f"    {line}")


def human_sessions(result: dict[str, Any]) -> None:
    print(f"{result['total']} conversations")
    for s in result["sessions"]:
        chat = f"  chat {s['chat']}" if s["chat"] else ""
        print(
            f"{s['session']}  {s['turns']} turns ({s['observed']} observed)  {shown_time(s['first'])} .. {shown_time(s['last'])}{chat}"
        )


def human_turn_page(result: dict[str, Any]) -> None:
    print(f"{result['total']} turns")
    shown = [t.get("shown") or mask(t["content"]) for t in result["turns"]]
    for t, text in zip(result["turns"], shown):
        print(f"{t['seq']:>6}  {shown_time(t['ts'])}  {t['speaker'] or t['role']}: {text}")
    _say_masked(result["turns"], shown)


def human_contexts(result: dict[str, Any]) -> None:
    for build in result["contexts"]:
        print(f"build {build['id']} at {build['at']}  drift action {build['drift_action']}  pack {build['pack_id']}")
        c = build["context"]
        if c is None:
            print("  (its text is no longer kept)")
            continue
        print(f"--- stable prefix (system), {c['parts']['system']} tokens, sha256 {c['prefix_hash'][:16]}")
        print(c["system"])
        for m in c["messages"]:
            print(f"--- {m['role']}")
            print(m["content"])
