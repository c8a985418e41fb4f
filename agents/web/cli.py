"""``cardsuite serve``: start the web table on this machine."""

from __future__ import annotations

import argparse
import ipaddress
from typing import Any

from cardsuite.errors import ConfigError


def add_command(sub: Any) -> tuple[str, Any]:
    """Register the subcommand; returns its name and runner."""
    p = sub.add_parser(
        "serve",
        help="a web table in your browser: play a seat, watch agents, replay records",
        description="Serve the web table (needs the web extra: pip install cardsuite[web]). "
        "It listens on 127.0.0.1 (this machine only) unless --host says otherwise.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--record", default=None, help="a --record file whose games the page replays")
    p.add_argument(
        "--agents",
        nargs="+",
        default=[],
        metavar="SPEC",
        help="extra agents the page may choose: checkpoints (ppo:PATH) or your own "
        "module:Class / file.py:Class (the page offers the installed kinds otherwise)",
    )
    return "serve", run


def run(args: argparse.Namespace, extra: list[str]) -> int:
    """Serve until interrupted."""
    if extra:
        raise ConfigError(f"serve takes no game options, got {' '.join(extra)}")
    if not 0 < args.port < 65536:
        raise ConfigError(f"--port must be 1..65535, got {args.port}")
    try:
        import uvicorn

        from cardsuite.agents.web.app import create_app
    except ModuleNotFoundError as err:
        raise ConfigError(
            f"cardsuite serve needs the web extra (pip install cardsuite[web]); "
            f"module {err.name!r} not found"
        ) from None
    hosts = None
    if _is_loopback(args.host):  # refuse other Host headers (DNS rebinding)
        hosts = ["127.0.0.1", "localhost", "[::1]", "::1", args.host]
    app = create_app(args.record, list(args.agents), allowed_hosts=hosts)
    if not _is_loopback(args.host):
        print(
            f"warning: listening on {args.host}: anyone who can reach this machine can open "
            "the table (there is no login)"
        )
    print(f"cardsuite serve: open http://{args.host}:{args.port}/ (Ctrl-C to stop)")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
