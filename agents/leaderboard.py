"""``cardsuite leaderboard GAME --players N``: a duplicate round-robin of every registered agent.

Every pair of agents plays ``--deals`` duplicate deals
(:func:`~cardsuite.agents.arena.run_tournament` with ``duplicate=True``: each
deal once per rotation of the pair over the seats). On every deal the agent
with the higher mean reward over its seats wins the comparison (equal: a
draw). Ratings: openskill's Plackett-Luce model updated with every deal
comparison of every pair (``mu``, ``sigma``; ranked by the ordinal ``mu - 3
sigma``), beside the head-to-head table (share of deals the row agent beat
the column agent, ties half).

Agents: ``random``, ``greedy``, ``heuristic``, ``ismcts`` (at ``--ismcts``
parameters) and every shipped reference agent of a ``name`` kind whose
loader offers ``available(game, options)`` (``pretrained:scum4`` ...), or
the ``--agents`` given. Writes ``--out`` (markdown) and a PNG beside it.
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite.agents.registry import KINDS
from cardsuite.errors import ConfigError


@dataclass
class Board:
    """A finished leaderboard: agents ranked, ratings and the head-to-head table."""

    game: str
    players: int
    deals: int
    seed: int
    agents: list[str]
    mu: list[float]
    sigma: list[float]
    head_to_head: list[list[float | None]]

    def ordinal(self, i: int) -> float:
        """``mu - 3 sigma`` of agent ``i``."""
        return self.mu[i] - 3 * self.sigma[i]

    def order(self) -> list[int]:
        """Agent indices, best ordinal first."""
        return sorted(range(len(self.agents)), key=lambda i: -self.ordinal(i))


def default_agents(game: str, options: dict[str, Any], ismcts: str) -> list[str]:
    """The baselines plus every shipped agent that fits ``game`` and ``options``."""
    specs = ["random", "greedy", "heuristic", f"ismcts:{ismcts}" if ismcts else "ismcts"]
    for kind in KINDS.values():
        if kind.argument != "name":
            continue
        module, attr = kind.target.split(":")
        try:
            loader = getattr(importlib.import_module(module), attr)
        except ModuleNotFoundError:
            continue  # its extra is not installed
        available = getattr(loader, "available", None)
        if available is not None:
            specs += [f"{kind.name}:{name}" for name in available(game, options)]
    return specs


def deal_outcomes(result: Any) -> np.ndarray:
    """Per deal of a 2-agent duplicate tournament: 1 (agent 0 won), 0.5, 0."""
    deals = int(result.deals)
    score = np.zeros((deals, 2))
    seats = np.zeros((deals, 2))
    for g in result.results:
        for seat, who in enumerate(g.seating):
            score[g.deal, who] += g.rewards[seat]
            seats[g.deal, who] += 1
    mean = score / np.maximum(seats, 1)
    diff = mean[:, 0] - mean[:, 1]
    return np.asarray((diff > 0) + 0.5 * (diff == 0), dtype=np.float64)


def run_leaderboard(
    game: str, players: int, agents: list[str], *, deals: int, seed: int = 0,
    options: dict[str, Any] | None = None, workers: int = 1,
) -> Board:  # fmt: skip
    """Play the round-robin and rate it (module doc)."""
    from openskill.models import PlackettLuce

    from cardsuite.agents.arena import run_tournament

    if len(agents) < 2:
        raise ConfigError("a leaderboard needs at least 2 agents")
    model = PlackettLuce()
    ratings = [model.rating(name=a) for a in agents]
    k = len(agents)
    h2h: list[list[float | None]] = [[None] * k for _ in range(k)]
    for i, j in itertools.combinations(range(k), 2):
        res = run_tournament(game, [agents[i], agents[j]], games=deals, players=players,
                             options=dict(options or {}), duplicate=True, seed=seed,
                             workers=workers)  # fmt: skip
        won = deal_outcomes(res)
        h2h[i][j], h2h[j][i] = float(won.mean()), float(1 - won.mean())
        for w in won.tolist():
            ranks = [0.0, 0.0] if w == 0.5 else ([0.0, 1.0] if w == 1 else [1.0, 0.0])
            (a,), (b,) = model.rate([[ratings[i]], [ratings[j]]], ranks=ranks)
            ratings[i], ratings[j] = a, b
    return Board(game, players, deals, seed, list(agents), [r.mu for r in ratings],
                 [r.sigma for r in ratings], h2h)  # fmt: skip


def to_markdown(board: Board, command: str) -> str:
    """The leaderboard as a markdown section (ratings, then head-to-head)."""
    order = board.order()
    lines = [f"### {board.game}, {board.players} players", "",
             f"{board.deals} duplicate deals per pair, seed {board.seed}: `{command}`", "",
             "| rank | agent | ordinal (mu - 3 sigma) | mu | sigma | beats the others (mean) |",
             "|---|---|---|---|---|---|"]  # fmt: skip
    for rank, i in enumerate(order, 1):
        beats = [v for v in board.head_to_head[i] if v is not None]
        lines.append(f"| {rank} | `{board.agents[i]}` | {board.ordinal(i):.2f} | {board.mu[i]:.2f} "
                     f"| {board.sigma[i]:.2f} | {100 * float(np.mean(beats)):.1f}% |")  # fmt: skip
    half = 1.96 * math.sqrt(0.25 / board.deals)
    lines += ["", f"Head-to-head: share of deals the row agent beat the column agent "
              f"(ties half; 95% interval at most ±{100 * half:.1f} points).", "",
              "| | " + " | ".join(f"`{board.agents[j]}`" for j in order) + " |",
              "|---|" + "---|" * len(order)]  # fmt: skip
    for i in order:
        cells = ["—" if board.head_to_head[i][j] is None else
                 f"{100 * float(board.head_to_head[i][j] or 0):.0f}%" for j in order]  # fmt: skip
        lines.append(f"| `{board.agents[i]}` | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


HEADER = (
    "# Leaderboard\n\nGenerated by `cardsuite leaderboard` (`agents/leaderboard.py`): a duplicate\n"
    "round-robin of every registered agent, rated with openskill (Plackett-Luce) from\n"
    "every deal comparison. Regenerate a section with the command under its heading.\n"
)


def merge_section(old: str, section: str) -> str:
    """``old`` markdown with ``section`` (headed ``### ...``) replacing its namesake or appended."""
    head = section.splitlines()[0]
    if not old.strip():
        return HEADER + "\n" + section
    parts = old.split("\n### ")
    out, found = [parts[0]], False
    for part in parts[1:]:
        if "### " + part.splitlines()[0] == head:
            out.append(section[4:].rstrip("\n") + "\n")
            found = True
        else:
            out.append(part)
    text = "\n### ".join(out)
    if not found:
        text = text.rstrip("\n") + "\n\n" + section
    return text


def plot(board: Board, out_png: Path) -> Path:
    """Ratings with ``mu ± 3 sigma`` bars, best first."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    order = board.order()
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(order) + 1.2))
    y = np.arange(len(order))[::-1]
    ax.errorbar([board.mu[i] for i in order], y, xerr=[3 * board.sigma[i] for i in order],
                fmt="o", capsize=3)  # fmt: skip
    ax.set_yticks(y, [board.agents[i] for i in order])
    ax.set_xlabel("openskill mu (bars: ± 3 sigma)")
    ax.set_title(f"{board.game}, {board.players} players: {board.deals} duplicate deals per pair")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    out_png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out_png, dpi=100)
    plt.close(fig)
    return out_png


def add_command(sub: Any) -> tuple[str, Any]:
    """The ``cardsuite leaderboard`` subcommand (``cardsuite.commands`` entry point)."""
    p = sub.add_parser("leaderboard", help="duplicate round-robin of every agent, rated by openskill",
                       description=__doc__.split("\n\n")[0])  # fmt: skip
    p.add_argument("game", help="scum, scum_party or scandal")
    p.add_argument("--players", type=int, required=True, help="seats at the table")
    p.add_argument("--deals", type=int, default=100, help="duplicate deals per pair")
    p.add_argument("--seed", type=int, default=0, help="master seed of the deals")
    p.add_argument("--agents", nargs="+", help="agent specs (default: every registered agent)")
    p.add_argument("--ismcts", default="", help="ISMCTS parameters, e.g. budget=100")
    p.add_argument("--workers", type=int, default=1, help="worker processes")
    p.add_argument(
        "--out",
        default="leaderboard.md",
        help="markdown file; this game's section is replaced or added, other sections kept",
    )
    p.add_argument(
        "--plot", help="PNG of the ratings (default: img/leaderboard_GAME_N.png beside --out)"
    )

    def run(ns: argparse.Namespace, extra: list[str]) -> int:
        from cardsuite.games import get_game

        if extra:
            raise ConfigError(f"unknown arguments: {' '.join(extra)}")
        spec = get_game(ns.game)
        options = {spec.players_key: ns.players}
        agents = ns.agents or default_agents(spec.name, options, ns.ismcts)
        board = run_leaderboard(spec.name, ns.players, agents, deals=ns.deals, seed=ns.seed,
                                options=options, workers=ns.workers)  # fmt: skip
        command = (f"cardsuite leaderboard {ns.game} --players {ns.players} --deals {ns.deals} "
                   f"--seed {ns.seed}" + (f" --ismcts {ns.ismcts}" if ns.ismcts else ""))  # fmt: skip
        out = Path(ns.out)
        png = (
            Path(ns.plot)
            if ns.plot
            else (out.parent / "img" / f"leaderboard_{spec.name}_{ns.players}.png")
        )
        plot(board, png)
        text = to_markdown(board, command)
        try:
            rel = png.resolve().relative_to(out.parent.resolve())
            text += f"\n![{spec.name}, {ns.players} players]({rel.as_posix()})\n"
        except ValueError:
            pass
        out.parent.mkdir(parents=True, exist_ok=True)
        old = out.read_text(encoding="utf-8") if out.exists() else ""
        out.write_text(merge_section(old, text), encoding="utf-8")
        print(text)
        print(f"wrote {out} and {png}")
        return 0

    return "leaderboard", run
