"""What Claude Code runs for each hook: `python -m agentmemd.daemon.claude_code HOOK [options]`, the
event's JSON on stdin, the context (if any) on stdout. It loads only what a hook needs (not the
whole CLI: a prompt waits for it), and always exits 0, saying on stderr what went wrong, so a
prompt is never blocked."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agentmemd.daemon.claude_code.hooks import DEFAULT_BUDGET, HOOKS, HookSettings, run_hook
from agentmemd.daemon.socket.client import default_socket, default_token


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agentmemd.daemon.claude_code", description=__doc__)
    parser.add_argument("hook", choices=HOOKS)
    parser.add_argument("--socket", help="the daemon's socket (default: as the CLI finds it)")
    parser.add_argument("--namespace", help="the namespace its memories and transcripts are in")
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET, help="tokens of memory a prompt gets")
    parser.add_argument("--timeout", type=float, default=8.0, help="seconds to wait for the daemon")
    args = parser.parse_args(argv)
    settings = HookSettings(
        Path(args.socket or default_socket()).expanduser(), default_token(), args.namespace, args.budget, args.timeout
    )
    try:
        said = run_hook(args.hook, sys.stdin.read(), settings)
    except Exception as exc:  # noqa: BLE001 (a hook must never fail Claude Code's turn)
        print(f"agentmemd {args.hook} hook: {exc}", file=sys.stderr)
        return 0
    if said:
        sys.stdout.write(said + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
