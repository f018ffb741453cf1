"""`agentmemd bench …` and `agentmemd calibrate`: the benches' commands, which the `agentmemd`
command adds where the benches are (a clone installed with the `bench` extra; the wheel holds
none of daemon/bench). Nothing of the product imports them."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import click

from agentmemd.daemon.cli.calls import fail
from agentmemd.daemon.cli.paths import HomePath
from agentmemd.memory.channels.formats import FORMATS
from agentmemd.memory.core.config import EMBEDDING_MODELS, EmbeddingConfig

BENCH_EXTRA = ("matplotlib", "scipy", "tomlkit")


def register(cli: click.Group) -> None:
    """Add `bench` and `calibrate` to the `agentmemd` command."""
    cli.add_command(bench)
    cli.add_command(calibrate)


def _require_bench_extra(command: str) -> None:
    """The benches' own dependencies come with the bench extra."""
    from importlib.util import find_spec

    missing = [name for name in BENCH_EXTRA if find_spec(name) is None]
    if missing:
        fail(f"{command} needs the bench extra ({', '.join(missing)} not installed): pip install -e '.[bench]'", 2)


@click.command()
@click.option(
    "--labels",
    type=HomePath(path_type=Path),
    required=True,
    help="JSON of {persona, response, context?, labels} pairs.",
)
@click.option("--min-correlation", type=float, default=0.7, show_default=True, help="Flag dimensions under this.")
@click.option(
    "--decode", type=HomePath(path_type=Path), help="Also: DECODE human-bot.jsonl, contradiction vs grounded."
)
@click.option("--decode-limit", type=int, default=0, help="Only this many DECODE dialogues (balanced; 0: all).")
@click.option("--work-dir", type=HomePath(path_type=Path))
def calibrate(**options: Any) -> None:
    """Correlate SyncScore with human labels per dimension (JSON).

    \b
        agentmemd calibrate --labels tests/data/persona_labels.json
    """
    _require_bench_extra("calibrate")
    from agentmemd.daemon.bench.calibrate import LabelsError, run_calibration

    try:
        click.echo(json.dumps(run_calibration(SimpleNamespace(**options)), indent=2))
    except LabelsError as exc:
        fail(str(exc), 2)


@click.group()
def bench() -> None:
    """Benchmarks that start a real daemon and print JSON."""
    _require_bench_extra("bench")


def bench_config(example: str, why: str = "to measure a choice"):
    """A bench's --config: settings for the daemons it starts."""
    return click.option(
        "--config",
        "config_file",
        type=HomePath(exists=True, dir_okay=False, path_type=Path),
        help=f"A TOML file of settings for the bench's daemon (e.g. {example}), {why}.",
    )


BENCH_STORE_URL = click.option(
    "--store-url",
    default="",
    help="Run on PostgreSQL: each daemon gets a new database on this server (postgresql://USER@HOST/DB; "
    "created and dropped, so the user needs CREATEDB). Default: SQLite.",
)


def _run_bench(kind: str, options: dict[str, Any]) -> None:
    from agentmemd.daemon.bench.benchmarks import run_bench

    click.echo(json.dumps(run_bench(SimpleNamespace(bench=kind, **options)), indent=2))


@bench.command("pack")
@click.option(
    "--memories", type=int, multiple=True, default=(2_000, 20_000, 100_000), show_default=True, help="Repeatable."
)
@click.option("--queries", type=int, default=200, show_default=True)
@click.option("--budget", type=int, default=1000, show_default=True)
@click.option("--work-dir", type=HomePath(path_type=Path), help="Keep the bench data dir here (default: a temp dir).")
@click.option(
    "--model",
    type=click.Choice(EMBEDDING_MODELS),
    default=EmbeddingConfig().model,
    show_default=True,
    help="The daemon's [embedding] model (the floor's query embedding is that model's too).",
)
@BENCH_STORE_URL
def bench_pack(**options: Any) -> None:
    """context.pack latency at each size, next to its floor (query embedding + numpy flat scan) in the same run.

    Example: `agentmemd bench pack --memories 2000 --memories 20000`
    """
    _run_bench("pack", options)


@bench.command("clients")
@click.option("--memories", type=int, default=2000, show_default=True, help="Memories in the daemon.")
@click.option("--queries", type=int, default=200, show_default=True, help="Packs each client sends.")
@click.option("--budget", type=int, default=1000, show_default=True, help="Each pack's token budget.")
@click.option("--work-dir", type=HomePath(path_type=Path), help="Keep the bench data dir here (default: a temp dir).")
def bench_clients(**options: Any) -> None:
    """What the typed clients add to a call: the same packs by name, as typed calls and through
    AsyncClient, interleaved over one daemon; and reading an answer into its model.

    Example: `agentmemd bench clients --queries 200`
    """
    _run_bench("clients", options)


@bench.command("identity")
@click.option(
    "--memories",
    type=int,
    multiple=True,
    default=(1_000, 10_000, 100_000),
    show_default=True,
    help="Competing memories at each step (repeatable).",
)
@click.option("--agent", multiple=True, help="Only this agent of the bench's world (repeatable; default: all four).")
@click.option("--budget", type=int, default=1000, show_default=True, help="Each pack's token budget.")
@bench_config("[identity] budget_share")
@click.option(
    "--work-dir",
    type=HomePath(path_type=Path),
    help="Keep the bench data dirs (and the competitors' embeddings) here.",
)
def bench_identity(**options: Any) -> None:
    """Identity recall and action alignment as memories grow, with the identity block and without.

    Example: `agentmemd bench identity --memories 1000 --memories 10000 --agent juno`
    """
    _run_bench("identity", options)


@bench.command("society")
@click.option(
    "--filler",
    type=int,
    default=1000,
    show_default=True,
    help="Competing memories added to every agent's namespace each round (the world grows).",
)
@click.option("--budget", type=int, default=1000, show_default=True, help="Each pack's token budget.")
@bench_config("[identity] retrieval = false")
@click.option("--work-dir", type=HomePath(path_type=Path), help="Keep the bench data dir (and embeddings) here.")
def bench_society(**options: Any) -> None:
    """Eight agents in one daemon over a scripted season: identity recall, impressions, goals, leaks, drift.

    Example: `agentmemd bench society --filler 0`
    """
    _run_bench("society", options)


@bench.command("dashboard")
@click.option("--memories", type=int, default=100_000, show_default=True)
@click.option("--repeat", type=int, default=20, show_default=True, help="Fetches of each page.")
@click.option("--work-dir", type=HomePath(path_type=Path), help="Keep the bench data dir here (default: a temp dir).")
def bench_dashboard(**options: Any) -> None:
    """Each dashboard page's render time (p50/p95 over HTTP) at a store's size; the target is 300 ms.

    Example: `agentmemd bench dashboard --memories 100000`
    """
    _run_bench("dashboard", options)


@bench.command("load")
@click.option("--memories", type=int, default=20_000, show_default=True)
@click.option("--clients", type=int, default=8, show_default=True)
@click.option("--seconds", type=float, default=60.0, show_default=True, help="Of each of the three runs.")
@bench_config("[embedding] workers")
@click.option("--work-dir", type=HomePath(path_type=Path), help="Keep the bench data dir here (default: a temp dir).")
@BENCH_STORE_URL
@click.option(
    "--daemons",
    type=click.IntRange(1, 8),
    default=1,
    show_default=True,
    help="With --store-url: after the usual runs, the clients spread over this many daemons sharing the store "
    "(and over one, to compare), then every write is counted back.",
)
def bench_load(**options: Any) -> None:
    """Concurrent clients, mixed workload: throughput against one client, p50/p99 per method, errors,
    and pack p95 while a consolidation runs.

    Example: `agentmemd bench load --memories 20000 --clients 8 --seconds 60`
    """
    _run_bench("load", options)


@bench.command("vectors")
@click.option("--vectors", type=int, multiple=True, default=(20_000, 100_000), show_default=True, help="Repeatable.")
@click.option("--queries", type=int, default=50, show_default=True)
@click.option("-k", "k", type=int, default=50, show_default=True, help="Nearest vectors asked for.")
@BENCH_STORE_URL
def bench_vectors(**options: Any) -> None:
    """pgvector's indexes for the PostgreSQL store: exact scan, HNSW and IVFFlat, latency and recall@k.

    Example: `agentmemd bench vectors --store-url postgresql://postgres@/postgres?host=/tmp/pg`
    """
    _run_bench("vectors", options)


@bench.command("ingest")
@click.option("--locomo", required=True, type=HomePath(exists=True, dir_okay=False, path_type=Path))
@click.option("--longmemeval", required=True, type=HomePath(exists=True, dir_okay=False, path_type=Path))
@click.option("--locomo-turns", type=int, default=2000, show_default=True, help="Short turns to ingest.")
@click.option("--longmemeval-turns", type=int, default=1000, show_default=True, help="Long turns to ingest.")
@click.option("--work-dir", type=HomePath(path_type=Path), help="Keep the bench data dir here (default: a temp dir).")
def bench_ingest(**options: Any) -> None:
    """memory.add_many of real text against the bare model's embedding time (the floor); health and
    search latency meanwhile.

    Example: `agentmemd bench ingest --locomo ../shared/bench/locomo/locomo10.json --longmemeval ../shared/bench/longmemeval/longmemeval_s_60.json`
    """
    _run_bench("ingest", options)


@bench.command("agents")
@click.option("--agents", type=int, default=100, show_default=True, help="Namespaces, each an agent.")
@click.option("--memories", type=int, default=1000, show_default=True, help="Memories per agent.")
@click.option("--clients", type=int, default=8, show_default=True)
@click.option("--seconds", type=float, default=60.0, show_default=True, help="Of mixed traffic across agents.")
@click.option("--work-dir", type=HomePath(path_type=Path), help="Keep the bench data dir here (default: a temp dir).")
def bench_agents(**options: Any) -> None:
    """One daemon, many agents: pack latency per agent, RSS by part and per 1,000 memories, restart time.

    Example: `agentmemd bench agents --agents 100 --memories 1000`
    """
    _run_bench("agents", options)


@bench.command("stalls")
@click.option("--memories", type=int, default=4000, show_default=True, help="Memories the consolidation runs over.")
@click.option("--edit-bullets", type=int, default=400, show_default=True, help="Size of the edit killed mid-sync.")
@click.option("--ops", type=int, default=60, show_default=True, help="Requests per client in the mixed load.")
@click.option(
    "--data",
    type=HomePath(exists=True, dir_okay=False, path_type=Path),
    help="LoCoMo's locomo10.json (the import case).",
)
@click.option(
    "--import-messages", type=int, default=10_000, show_default=True, help="Messages in the import case's export."
)
@click.option(
    "--only",
    multiple=True,
    type=click.Choice(("start", "consolidation", "mixed_load", "huge_edits", "growth", "import")),
    help="Run only these cases (repeat; default: all; the import case only with --data).",
)
@click.option("--work-dir", type=HomePath(path_type=Path))
def bench_stalls(**options: Any) -> None:
    """Start after a killed edit, latency during consolidation, an import and huge workspace edits, mixed load, growth.

    \b
        agentmemd bench stalls --only huge_edits
        agentmemd bench stalls --only import --data ../shared/bench/locomo/locomo10.json
    """
    if "import" in options["only"] and not options["data"]:
        raise click.UsageError("the import case needs --data (LoCoMo's locomo10.json)")
    _run_bench("stalls", options)


@bench.command("proxy")
@click.option("--memories", type=int, default=2000, show_default=True, help="Memories in the store the packs draw on.")
@click.option("--turns", type=int, default=120, show_default=True, help="Turns of the scripted session.")
@click.option(
    "--paced-turns", type=int, default=20, show_default=True, help="Turns sent again with a 2 s pause before each."
)
@click.option("--budget", type=int, default=2000, show_default=True, help="compact mode's context budget.")
@click.option("--work-dir", type=HomePath(path_type=Path))
def bench_proxy(**options: Any) -> None:
    """Latency the proxy adds over direct calls, and tokens sent per turn (augment, compact, full).

    \b
        agentmemd bench proxy --turns 120
    """
    _run_bench("proxy", options)


@bench.command("start")
@click.option(
    "--rounds", type=click.IntRange(1, 100), default=5, show_default=True, help="Daemons started, one at a time."
)
def bench_start(**options: Any) -> None:
    """How long a fresh daemon takes to answer, to be ready (its model loaded) and to stop, and its CPU time.

    \b
        agentmemd bench start --rounds 5
    """
    _run_bench("start", options)


@bench.command("injection")
@click.option("--locomo", type=HomePath(exists=True, path_type=Path), help="LoCoMo JSON: false positives on its turns.")
@click.option(
    "--longmemeval", type=HomePath(exists=True, path_type=Path), help="LongMemEval_S JSON: the same on its turns."
)
def bench_injection(**options: Any) -> None:
    """The neutraliser's catch rate on its corpus and false positives on ordinary turns.

    \b
        agentmemd bench injection --locomo ../shared/bench/locomo/locomo10.json
    """
    _run_bench("injection", options)


@bench.command("import")
@click.option(
    "--data", type=HomePath(exists=True, dir_okay=False, path_type=Path), required=True, help="LoCoMo's locomo10.json."
)
@click.option("--messages", type=int, default=10_000, show_default=True, help="At least this many per export.")
@click.option(
    "--format",
    type=click.Choice(["all", *(f.name for f in FORMATS)]),
    default="all",
    show_default=True,
    help="The export format LoCoMo is rendered as (the bench renders whatsapp, telegram, slack and discord).",
)
@click.option("--work-dir", type=HomePath(path_type=Path), help="Keep the exports and data dirs here.")
@click.option(
    "--model", type=click.Choice(EMBEDDING_MODELS), help="The daemons' [embedding] model (default: the default)."
)
def bench_import(**options: Any) -> None:
    """`agentmemd import` rate: LoCoMo rendered as each app's export, imported twice; with the
    seconds until every message is searchable (searchable_s).

    \b
        agentmemd bench import --data ../shared/bench/locomo/locomo10.json
    """
    _run_bench("import", options)


@bench.command("locomo")
@click.option("--data", type=HomePath(exists=True, dir_okay=False, path_type=Path), required=True)
@click.option("--conversations", type=int, help="Only the first N conversations.")
@click.option(
    "--context-turns",
    type=int,
    default=2,
    show_default=True,
    metavar="N",
    help="Store each turn with up to N previous turns of its session as `context` (0: none).",
)
@click.option(
    "--work-dir",
    type=HomePath(path_type=Path),
    help="Keep the turns' embeddings here, so a rerun (a fresh store each time) does not embed them again.",
)
@bench_config("[retrieval] weights")
@click.option(
    "--via",
    type=click.Choice(["add", "append"]),
    default="add",
    show_default=True,
    help="add: each turn a memory through memory.add_many; append: the conversations streamed through "
    "conversation.append, found as episodes (then again after the Observer has run).",
)
@click.option(
    "--tree",
    is_flag=True,
    help="Also build the consolidation tree over what was stored (jobs.run consolidate) and ask again.",
)
@click.option(
    "--lookup/--no-lookup",
    default=True,
    show_default=True,
    help="With --via add, also ask each of LoCoMo's observations and score finding the turn it was drawn from.",
)
@click.option(
    "--rankings",
    type=HomePath(dir_okay=False),
    help="Write each question's top 10 turns per system here (JSON lines), to read a miss.",
)
@BENCH_STORE_URL
def bench_locomo(**options: Any) -> None:
    """Evidence Recall@k of memory.search on LoCoMo.

    \b
        agentmemd bench locomo --data ../shared/bench/locomo/locomo10.json
        agentmemd bench locomo --data ../shared/bench/locomo/locomo10.json --via append
    """
    _run_bench("locomo", options)


@bench.command("centre")
@click.option("--locomo", type=HomePath(exists=True, dir_okay=False, path_type=Path), required=True)
@click.option("--longmemeval", type=HomePath(exists=True, dir_okay=False, path_type=Path), required=True)
@click.option("--out", type=HomePath(dir_okay=False, path_type=Path), help="Default: the file the model reads.")
def bench_centre(**options: Any) -> None:
    """Write the mean vector multilingual-e5-small's vectors are centred on, from English chats.

    \b
        agentmemd bench centre --locomo ../shared/bench/locomo/locomo10.json \\
            --longmemeval ../shared/bench/longmemeval/longmemeval_s_60.json
    """
    _run_bench("centre", options)


@bench.command("languages")
@click.option(
    "--probes",
    type=HomePath(exists=True, dir_okay=False, path_type=Path),
    default=Path("tests/data/language_probes/probes.json"),
    show_default=True,
    help="Chats in several languages with questions in the chat's language and in English.",
)
@click.option(
    "--model",
    "models",
    type=click.Choice(EMBEDDING_MODELS),
    multiple=True,
    help="Measure this model (repeatable; default: every one).",
)
def bench_languages(**options: Any) -> None:
    """Cross-language recall: each chat's messages stored through memory.add_many, each question asked
    through memory.search, with each model, beside BM25 and a 0.7/0.3 hybrid of the same model.

    \b
        agentmemd bench languages --model multilingual-e5-small
    """
    _run_bench("languages", options)


@bench.command("longmemeval")
@click.option("--data", type=HomePath(exists=True, dir_okay=False, path_type=Path), required=True)
@click.option("--questions", type=int, help="Only the first N questions (the first 6k hold k of each type).")
@click.option(
    "--work-dir",
    type=HomePath(path_type=Path),
    help="Keep the store here; a rerun searches the haystacks already ingested in it instead of embedding them again.",
)
@bench_config("[retrieval] newer_margin = 0", "to measure without it")
def bench_longmemeval(**options: Any) -> None:
    """Session and turn Recall@k of memory.search on LongMemEval_S, each haystack in its own namespace.

    \b
        agentmemd bench longmemeval --data ../shared/bench/longmemeval/longmemeval_s_60.json
    """
    _run_bench("longmemeval", options)


@bench.command("observe")
@click.option("--data", type=HomePath(exists=True, dir_okay=False, path_type=Path), required=True)
@click.option("--conversations", type=int, help="Only the first N conversations.")
@click.option(
    "--observer-tokens", type=int, default=2000, show_default=True, help="[conversation] observer_threshold_tokens."
)
@click.option(
    "--reflector-tokens", type=int, default=4000, show_default=True, help="[conversation] reflector_threshold_tokens."
)
@click.option("--budget", type=int, default=8000, show_default=True, help="conversation.context budget_tokens.")
@click.option("--work-dir", type=HomePath(path_type=Path))
def bench_observe(**options: Any) -> None:
    """Observer/Reflector compression, evidence survival and prefix reuse on LoCoMo.

    \b
        agentmemd bench observe --data ../shared/bench/locomo/locomo10.json --conversations 2
    """
    _run_bench("observe", options)


@bench.command("persona")
@click.option(
    "--png",
    type=HomePath(path_type=Path),
    default=Path(".bench/syncscore_trace.png"),
    show_default=True,
    help="Where to draw the EWMA trace.",
)
@click.option("--work-dir", type=HomePath(path_type=Path))
def bench_persona(**options: Any) -> None:
    """A scripted drifting conversation: SyncScore EWMA, escalation, AUC, the trace as a PNG.  `agentmemd bench persona`"""
    _run_bench("persona", options)
