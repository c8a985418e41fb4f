"""Load test of ``cardsuite serve``: many clients play and watch games at once.

Each of ``--clients`` asyncio clients (``httpx``, the web extra's) loops for ``--seconds``,
alternately playing a seat and watching agents, over Scum 4p, Scum Party 8p and Scandal
2p. By default it starts its own server on a free 127.0.0.1 port and reads its resident
memory from ``/proc``; ``--url`` tests a running server (no memory figures). Report:
requests/s, p50/p99 latency, errors by kind (goal: none), the server's RSS idle, after a
warm-up and at the end (goal: flat)::

    nice -n 10 python benchmarks/web_load.py --clients 50 --seconds 600
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import numpy as np

GAMES = (
    ("scum", {}),
    ("scum_party", {"num_players": 8}),
    ("scandal", {"num_players": 2}),
)
AGENTS = (["random"], ["greedy"], ["heuristic"], ["heuristic", "greedy"])
JSON = {"content-type": "application/json"}


class Stats:
    """Latencies and errors of every request."""

    def __init__(self) -> None:
        """Empty."""
        self.latencies: list[float] = []
        self.errors: Counter[str] = Counter()
        self.games = 0

    async def call(
        self, client: httpx.AsyncClient, method: str, path: str, body: Any = None
    ) -> Any:
        """One request, timed; its JSON, or None on an error (counted by kind)."""
        start = time.perf_counter()
        try:
            response = await client.request(
                method, path, json=body, headers=JSON if body is not None else None
            )
        except httpx.HTTPError as err:
            self.errors[type(err).__name__] += 1
            return None
        finally:
            self.latencies.append(time.perf_counter() - start)
        if response.status_code >= 400:
            self.errors[f"HTTP {response.status_code}"] += 1
            return None
        return response.json()


async def one_game(
    client: httpx.AsyncClient, stats: Stats, rng: random.Random, stop: float, play: bool
) -> None:
    """One game to the end: play a seat (legal moves chosen at random, a view now and
    then) or watch agents (five moves a request)."""
    game, options = rng.choice(GAMES)
    body = {"game": game, "agents": rng.choice(AGENTS), "options": options}
    view = await stats.call(client, "POST", "/api/play" if play else "/api/watch",
                            {**body, "seat": 0} if play else body)  # fmt: skip
    while view is not None and not view["over"] and time.monotonic() < stop:
        session = f"/api/session/{view['id']}"
        if not play:
            view = await stats.call(client, "POST", f"{session}/advance", {"moves": 5})
            continue
        if rng.random() < 0.1:
            await stats.call(client, "GET", session)
        action = rng.choice(view["moves"])["id"]
        view = await stats.call(client, "POST", f"{session}/move", {"action": action})
    if play and view is not None:  # a watched game is left to expire
        stats.games += bool(view["over"])
        await stats.call(client, "DELETE", f"/api/session/{view['id']}")


async def client_loop(url: str, index: int, stop: float, stats: Stats) -> None:
    """One client: play and watch games in turn until ``stop``."""
    rng = random.Random(index)
    async with httpx.AsyncClient(base_url=url, timeout=120) as client:
        while time.monotonic() < stop:
            await one_game(client, stats, rng, stop, play=bool((index + stats.games) % 2))


def rss_mb(pid: int | None) -> float | None:
    """The resident memory of process ``pid`` in MB (Linux ``/proc``)."""
    if pid is None:
        return None
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return None


def start_server() -> tuple[subprocess.Popen[bytes], str]:
    """``cardsuite serve`` on a free port, ready to answer."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "cardsuite.agents.play.web.cli", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            httpx.get(f"{url}/api/info", timeout=2).raise_for_status()
            return proc, url
        except httpx.HTTPError:
            if proc.poll() is not None or time.monotonic() > deadline:
                err = proc.stderr.read().decode() if proc.stderr else ""
                raise SystemExit(f"the server did not start: {err[-2000:]}") from None
            time.sleep(0.2)


async def run(url: str, clients: int, seconds: float, pid: int | None) -> dict[str, Any]:
    """Run the clients; the report.

    The server's RSS is read before the clients start (idle), after a
    warm-up of a tenth of the run (at most 60 s: every client has a game
    going, the steady state) and then every ``seconds / 20`` (at most 30 s)
    to the end; "flat" compares the warm-up reading with the last one.
    """
    stats = Stats()
    rss_idle = rss_mb(pid)
    started = time.monotonic()
    stop = started + seconds
    tasks = [asyncio.create_task(client_loop(url, i, stop, stats)) for i in range(clients)]
    warmup = min(60.0, seconds / 10)
    await asyncio.sleep(warmup)
    rss_start = rss_mb(pid)
    samples = [(round(time.monotonic() - started, 1), rss_start)]
    period = min(30.0, max(1.0, seconds / 20))
    while not all(t.done() for t in tasks):
        await asyncio.wait(tasks, timeout=period)
        samples.append((round(time.monotonic() - started, 1), rss_mb(pid)))
    await asyncio.gather(*tasks)
    elapsed = time.monotonic() - started
    lat = np.array(stats.latencies) * 1000
    return {
        "clients": clients,
        "seconds": round(elapsed, 1),
        "requests": len(lat),
        "requests_per_s": round(len(lat) / elapsed, 1),
        "p50_ms": round(float(np.percentile(lat, 50)), 1) if len(lat) else None,
        "p99_ms": round(float(np.percentile(lat, 99)), 1) if len(lat) else None,
        "games": stats.games,
        "errors": dict(stats.errors),
        "server_rss_mb_idle": rss_idle,
        "server_rss_mb_start": rss_start,
        "server_rss_mb_end": samples[-1][1],
        "rss_samples": samples,
    }


def main(argv: list[str] | None = None) -> int:
    """Command line."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--clients", type=int, default=50, help="concurrent clients (default 50)")
    p.add_argument("--seconds", type=float, default=600, help="duration (default 600)")
    p.add_argument("--url", default=None, help="a running server (default: start one)")
    p.add_argument("--out", default=None, help="also write the report as JSON here")
    args = p.parse_args(argv)
    if args.clients < 1 or args.seconds <= 0:
        p.error("--clients and --seconds must be positive")
    proc = None
    url = args.url
    if url is None:
        proc, url = start_server()
    try:
        report = asyncio.run(run(url, args.clients, args.seconds, proc.pid if proc else None))
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=30)
    text = json.dumps(report, indent=1)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    return 1 if report["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
