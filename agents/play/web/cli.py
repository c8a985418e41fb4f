"""``cardsuite serve``: start the web table on this machine."""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import sys
from typing import Any

from cardsuite.agents.arena.cli import add_arguments
from cardsuite.agents.play.web.limits import Limits
from cardsuite.cli import main as cli_main
from cardsuite.errors import ConfigError

#: Seconds the server waits for requests under way when asked to stop.
GRACEFUL_SECONDS = 2


def add_command(sub: Any) -> tuple[str, Any]:
    """Register the subcommand; returns its name and runner."""
    d = Limits()
    p = sub.add_parser(
        "serve",
        help="a web table in your browser: play a seat, watch agents, replay records",
        description="Serve the web table (needs the web extra: pip install cardsuite[web]). "
        "It listens on 127.0.0.1 (this machine only) unless --host says otherwise. "
        "Ctrl-C or SIGTERM stops it within a few seconds.",
    )
    add_arguments(
        p,
        host=("address to listen on (default 127.0.0.1)", {"default": "127.0.0.1"}),
        port=("port (default 8000)", {"type": int, "default": 8000}),
        record=(
            "append every finished play and watch game to FILE (a new file, or an existing "
            "record file; any other file is refused); the page replays its games",
            {"metavar": "FILE"},
        ),
        replay=("a record file whose games the page replays (read only)", {"metavar": "FILE"}),
        agents=(
            "extra agents the page may choose: checkpoints (ppo:PATH) or your own "
            "module:Class / file.py:Class (the page offers the installed kinds otherwise)",
            {"default": [], "metavar": "SPEC"},
        ),
        move_seconds=(
            f"time limit of one agent move; a move past it stops its game "
            f"(default {d.move_seconds:g})",
            {"type": float, "default": d.move_seconds},
        ),
        max_budget=(
            f"highest search budget a page may ask for, e.g. ismcts:budget=N "
            f"(default {d.caps['budget']})",
            {"type": int, "default": d.caps["budget"]},
        ),
        workers=(f"threads that run game work (default {d.workers})", {"default": d.workers}),
        max_sessions=(
            f"games held at once; the least recently used goes (default {d.max_sessions})",
            {"type": int, "default": d.max_sessions},
        ),
    )
    return "serve", run


def limits_from(args: argparse.Namespace) -> Limits:
    """The server's [Limits][cardsuite.agents.play.web.limits.Limits] from the flags."""
    return Limits(
        move_seconds=args.move_seconds,
        workers=args.workers,
        caps={"budget": args.max_budget},
        max_sessions=args.max_sessions,
    )


def run(args: argparse.Namespace, extra: list[str]) -> int:
    """Serve until interrupted (Ctrl-C or SIGTERM)."""
    if extra:
        raise ConfigError(f"serve takes no game options, got {' '.join(extra)[:200]}")
    if not 0 < args.port < 65536:
        raise ConfigError(f"--port must be 1..65535, got {args.port}")
    try:
        import uvicorn

        from cardsuite.agents.play.web.app import create_app
    except ModuleNotFoundError as err:
        raise ConfigError(
            f"cardsuite serve needs the web extra (pip install cardsuite[web]); "
            f"module {err.name!r} not found"
        ) from None
    loopback = _is_loopback(args.host)  # then refuse other Host headers (DNS rebinding)
    hosts = ["127.0.0.1", "localhost", "[::1]", "::1", args.host] if loopback else None
    app = create_app(
        args.replay,
        list(args.agents),
        allowed_hosts=hosts,
        record_to=args.record,
        limits=limits_from(args),
    )
    if not loopback:
        print(
            f"warning: listening on {args.host}: anyone who can reach this machine can open "
            "the table (there is no login)"
        )
    if args.record:
        print(f"recording every finished game to {args.record}")
    print(f"cardsuite serve: open http://{args.host}:{args.port}/ (Ctrl-C to stop)", flush=True)
    config = uvicorn.Config(
        app,
        host=args.host,
        port=args.port,
        log_level="warning",
        timeout_graceful_shutdown=GRACEFUL_SECONDS,
    )
    server = uvicorn.Server(config)
    exit_now = server.handle_exit

    def handle_exit(sig: int, frame: Any) -> None:  # also stop every game move under way
        app.state.workers.stop()  # requests under way answer 503 at once
        exit_now(sig, frame)

    server.handle_exit = handle_exit  # type: ignore[method-assign]
    with contextlib.suppress(KeyboardInterrupt):  # a second Ctrl-C while stopping
        server.run()
    print("cardsuite serve: stopped", flush=True)
    return 0


def _is_loopback(host: str) -> bool:
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def main(argv: list[str] | None = None) -> int:
    """``cardsuite serve`` on its own (``python -m cardsuite.agents.play.web.cli``)."""
    return cli_main(["serve", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
