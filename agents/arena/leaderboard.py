"""``cardsuite leaderboard GAME --players N``: a duplicate round-robin of every registered agent.

Every pair of agents plays ``--deals`` duplicate deals
(`cardsuite.agents.arena.tournament.run_tournament` with ``duplicate=True``: each deal
once per rotation of the pair over the seats). On every deal the agent with
the higher mean return over its seats wins the comparison (equal: a tie).

Ratings do not depend on the order of the games: one Bradley-Terry
maximum-likelihood fit to every deal of every pair at once
(`cardsuite.agents.arena.ratings`), on the Elo scale with ``random`` = 0, with 95%
intervals by bootstrap over deals. Beside them, the head-to-head table (share
of deals the row agent beat the column agent, ties half), each share with its
95% bootstrap interval in the JSON output.

Agents: ``random``, ``greedy``, ``heuristic``, ISMCTS at the default budget
or at ``--ismcts`` parameters (``ismcts``; in Scandal ``ismcts-batched``,
whose compiled rollouts make a board of hundreds of deals affordable), every
shipped reference agent of a ``name`` kind whose loader
offers ``available(game, options)`` (``pretrained:scum4`` ...) and the
search over each (``search:pretrained:scum4``) where the game has one, or the
``--agents`` given. Rule options follow as ``--key value`` (after an optional
``--config`` preset), as in every command. Nothing is written unless asked:
``--out FILE.md`` (this game's section replaced or added, a PNG of the
ratings in ``img/`` beside it), ``--json FILE`` (every deal outcome, the
ratings, the head-to-head), ``--plot FILE.png``.

A run of hours can be spread over several sittings: ``--checkpoint FILE``
appends every finished pair's deal outcomes to ``FILE`` (JSON lines), and the
same command run again skips the pairs already there. A pair's games depend
only on its two specs (in order), the rule options, the seed and the deal
count, so the board is the one an uninterrupted run gives; a checkpoint line
of other settings is refused, never mixed in. Each line also records the
SHA-256 of the weights its two agents played (`weights_sha256`: a shipped
``pretrained:NAME``, a ``ppo:PATH`` directory, through ``search:``), so a
line whose agent now plays other weights (a name re-shipped, a run
retrained into the same folder) is refused by name too; lines written
before 2026-12-05 carry no such record and are taken as they are.
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite.agents.arena.ratings import PairDeals, Ratings, mean_interval, rate
from cardsuite.agents.registry import KINDS
from cardsuite.errors import ConfigError

#: Largest checkpoint file read (bytes): 200 deals x 100 pairs is about 1 MB.
MAX_CHECKPOINT_BYTES = 64 * 2**20

#: Bootstrap resamples behind the published intervals.
RESAMPLES = 1000


@dataclass
class Board:
    """A finished leaderboard: agents, every deal outcome, ratings and the head-to-head table.

    Attributes:
        game, players, deals, seed, options: how it was played.
        agents: agent specs.
        pairs: the deal outcomes of every pair (``a < b``; 1 = ``a`` won).
        ratings: the order-free Elo ratings with bootstrap intervals.
        head_to_head: ``h[a][b]``, share of deals ``a`` beat ``b`` (ties half).
        h2h_interval: ``(low, high)`` 95% bootstrap interval of each share.
    """

    game: str
    players: int
    deals: int
    seed: int
    agents: list[str]
    pairs: list[PairDeals]
    ratings: Ratings
    head_to_head: list[list[float | None]]
    h2h_interval: list[list[tuple[float, float] | None]]
    options: dict[str, Any] = field(default_factory=dict)

    def order(self) -> list[int]:
        """Agent indices, best rating first."""
        return self.ratings.order()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready board: settings, ratings, head-to-head and every deal outcome."""
        r = self.ratings
        return {
            "game": self.game,
            "players": self.players,
            "options": self.options,
            "deals_per_pair": self.deals,
            "seed": self.seed,
            "agents": self.agents,
            "rating_scale": f"Elo (400 points = 10:1 odds of winning a deal), {r.anchor} = 0",
            "ratings": {
                a: {"rating": r.rating[i], "low": r.low[i], "high": r.high[i]}
                for i, a in enumerate(self.agents)
            },
            "bootstrap_resamples": r.resamples,
            "rating_tiers": dict(zip(self.agents, r.tiers, strict=True)),
            "unmeasured": r.unmeasured(),
            "head_to_head": {
                self.agents[i]: {
                    self.agents[j]: {"share": v, "low": lo_hi[0], "high": lo_hi[1]}
                    for j, (v, lo_hi) in enumerate(zip(row, self.h2h_interval[i], strict=True))
                    if v is not None and lo_hi is not None
                }
                for i, row in enumerate(self.head_to_head)
            },
            "pairs": [
                {
                    "a": self.agents[p.a],
                    "b": self.agents[p.b],
                    "outcomes": [float(x) for x in p.outcomes],
                }
                for p in self.pairs
            ],
        }


def default_agents(game: str, options: dict[str, Any], ismcts: str) -> list[str]:
    """The baselines plus every shipped agent that fits ``game`` and ``options``.

    The ISMCTS baseline is the game's `SearchKind.baseline` (``ismcts``, or
    ``ismcts-batched`` in Scandal) with the ``ismcts`` parameters given.
    """
    from cardsuite.agents.search.guided import guided_specs
    from cardsuite.agents.search.reference import search_kind

    kind = search_kind(game).baseline
    specs = ["random", "greedy", "heuristic", f"{kind}:{ismcts}" if ismcts else kind]
    shipped = shipped_agents(game, options)
    return specs + shipped + guided_specs(game, shipped)


def shipped_agents(game: str, options: dict[str, Any]) -> list[str]:
    """Every shipped reference agent (a ``name`` kind) that fits ``game`` and ``options``.

    A name that plays another listed name's weights (``pretrained:party50`` is
    ``party20``'s network, its loader's ``shares``) is left out: it would
    only play its twin to a tie and repeat its every pair.
    """
    specs: list[str] = []
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
            names = available(game, options)
            shares = getattr(loader, "shares", lambda _name: None)
            specs += [f"{kind.name}:{n}" for n in names if shares(n) not in names]
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


def _checkpoint_key(
    game: str, players: int, options: dict[str, Any], seed: int, deals: int
) -> dict[str, Any]:
    return {"game": game, "players": players, "options": options, "seed": seed, "deals": deals}


def read_checkpoint(path: str | Path, key: dict[str, Any]) -> dict[tuple[str, str], np.ndarray]:
    """The finished pairs of a checkpoint file, ``{(spec_a, spec_b): outcomes}`` (module doc).

    A last line cut short (a run killed while writing it) is ignored; it is
    dropped from the file by the next `append_checkpoint`.

    Raises:
        ConfigError: a line that is not a pair of this run's settings (other
            game, players, options, seed or deal count), a line whose agent
            plays other weights now than it recorded, or a broken line.
    """
    from cardsuite.agents.registry import weights_sha256
    from cardsuite.safe_json import loads, read_bounded

    source = Path(path)
    if not source.exists():
        return {}
    text = read_bounded(source, "--checkpoint file", MAX_CHECKPOINT_BYTES, ConfigError).decode(
        "utf-8", errors="replace"
    )
    lines = text.split("\n")[:-1]  # the part after the last newline is unfinished
    done: dict[tuple[str, str], np.ndarray] = {}
    hashes: dict[str, str | None] = {}
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"--checkpoint {str(source)!r} line {number}"
        data = loads(line, where, error=ConfigError)
        if not isinstance(data, dict):
            raise ConfigError(f"{where}: not a JSON object")
        settings = {k: data.get(k) for k in key}
        if settings != loads(json.dumps(key), "the run's settings", error=ConfigError):
            raise ConfigError(
                f"{where} is from another run ({json.dumps(settings, sort_keys=True)}); "
                f"this run is {json.dumps(key, sort_keys=True)}: give a new --checkpoint file"
            )
        a, b, out = data.get("a"), data.get("b"), data.get("outcomes")
        if (
            not isinstance(a, str)
            or not isinstance(b, str)
            or not isinstance(out, list)
            or len(out) != key["deals"]
            or any(x not in (0, 0.5, 1) for x in out)
        ):
            raise ConfigError(f"{where}: needs a, b and {key['deals']} outcomes of 0, 0.5 or 1")
        recorded = data.get("weights", [None, None])
        if (
            not isinstance(recorded, list)
            or len(recorded) != 2
            or any(w is not None and not isinstance(w, str) for w in recorded)
        ):
            raise ConfigError(f"{where}: weights must be a list of two SHA-256 strings or null")
        for spec, then in zip((a, b), recorded, strict=True):
            if then is None:
                continue
            if spec not in hashes:
                hashes[spec] = weights_sha256(spec)
            if hashes[spec] != then:
                now = (hashes[spec] or "none")[:12]
                raise ConfigError(
                    f"{where}: {spec!r} played weights of SHA-256 {then[:12]}... then and "
                    f"plays {now}... now (re-shipped or retrained): delete that line to play "
                    "the pair again, or give a new --checkpoint file"
                )
        done[(a, b)] = np.asarray(out, dtype=np.float64)
    return done


def append_checkpoint(
    path: str | Path,
    key: dict[str, Any],
    a: str,
    b: str,
    outcomes: np.ndarray,
    weights: tuple[str | None, str | None] | None = None,
) -> None:
    """Append one finished pair to the checkpoint file (one line, flushed to disk).

    The line records the SHA-256 of the weights each agent played: ``weights``
    as hashed when the pair started, else `weights_sha256` now.
    """
    import os

    from cardsuite.agents.registry import weights_sha256

    target = Path(path)
    played = list(weights) if weights is not None else [weights_sha256(a), weights_sha256(b)]
    line = json.dumps({
        **key, "a": a, "b": b, "outcomes": [float(x) for x in outcomes], "weights": played,
    })  # fmt: skip
    try:
        with target.open("a+b") as fh:
            fh.seek(0, os.SEEK_END)
            if fh.tell():
                fh.seek(-1, os.SEEK_END)
                if fh.read(1) != b"\n":  # a line cut short by a killed run: drop it
                    fh.seek(0)
                    kept = fh.read().rpartition(b"\n")[0]
                    fh.truncate(0)
                    fh.write(kept + b"\n" if kept else b"")
            fh.write(line.encode("utf-8") + b"\n")
            fh.flush()
            os.fsync(fh.fileno())
    except OSError as err:
        raise ConfigError(
            f"cannot write --checkpoint {str(target)!r}: {err.strerror or err}"
        ) from None


def run_leaderboard(
    game: str,
    players: int,
    agents: list[str],
    *,
    deals: int,
    seed: int = 0,
    options: dict[str, Any] | None = None,
    workers: int = 1,
    progress: bool = False,
    resamples: int = RESAMPLES,
    checkpoint: str | Path | None = None,
) -> Board:
    """Play the round-robin and rate it (module doc).

    Args:
        game: registry name.
        players: seats at the table.
        agents: at least 2 agent specs.
        deals: duplicate deals per pair.
        seed: master seed of the deals (every pair plays the same deals).
        options: rule options.
        workers: worker processes per tournament.
        progress: tqdm bars (one over the pairs, one per pair's games).
        resamples: bootstrap resamples of the intervals.
        checkpoint: a JSON-lines file of finished pairs: those already in it
            are not played again, each new one is appended (module doc).

    Raises:
        ConfigError: fewer than 2 agents, a checkpoint of other settings, or
            anything `run_tournament` refuses.
    """
    from cardsuite.agents.arena.tournament import run_tournament
    from cardsuite.agents.registry import weights_sha256

    if len(agents) < 2:
        raise ConfigError("a leaderboard needs at least 2 agents")
    k = len(agents)
    combos = list(itertools.combinations(range(k), 2))
    pairs: list[PairDeals] = []
    h2h: list[list[float | None]] = [[None] * k for _ in range(k)]
    ci: list[list[tuple[float, float] | None]] = [[None] * k for _ in range(k)]
    key = _checkpoint_key(game, players, dict(options or {}), seed, deals)
    done: dict[tuple[str, str], np.ndarray] = {}
    if checkpoint is not None:
        done = read_checkpoint(checkpoint, key)
        try:  # writable before the first game, not an hour later
            with Path(checkpoint).open("ab"):
                pass
        except OSError as err:
            raise ConfigError(
                f"cannot write --checkpoint {str(checkpoint)!r}: {err.strerror or err}"
            ) from None
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(combos), desc=f"{game} leaderboard", unit="pair")
    try:
        for i, j in combos:
            if bar is not None:
                bar.set_postfix_str(f"{agents[i]} vs {agents[j]}")
            won = done.get((agents[i], agents[j]))
            if won is None:
                weights = (weights_sha256(agents[i]), weights_sha256(agents[j]))
                res = run_tournament(
                    game,
                    [agents[i], agents[j]],
                    games=deals,
                    players=players,
                    options=dict(options or {}),
                    duplicate=True,
                    seed=seed,
                    workers=workers,
                    progress=progress,
                )
                won = deal_outcomes(res)
                if checkpoint is not None:
                    append_checkpoint(checkpoint, key, agents[i], agents[j], won, weights)
            pairs.append(PairDeals(i, j, won))
            share, low, high = mean_interval(won, resamples=resamples, seed=seed)
            h2h[i][j], h2h[j][i] = share, 1.0 - share
            ci[i][j], ci[j][i] = (low, high), (1.0 - high, 1.0 - low)
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    ratings = rate(agents, pairs, resamples=resamples, seed=seed)
    return Board(
        game, players, deals, seed, list(agents), pairs, ratings, h2h, ci, dict(options or {})
    )


def pilot(
    game: str,
    players: int,
    agents: list[str],
    *,
    pilot_deals: int,
    deals: int,
    seed: int = 0,
    options: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Time a few deals of every pair and project the CPU time of a ``deals``-deal run.

    Every agent is built once first (imports, weights), then every pair plays
    the first ``pilot_deals`` deals of the run's seed in this
    process (one worker), timed by `time.process_time` (CPU seconds, so a
    loaded machine slows the wall clock but not the figure much). The
    projection scales each pair's CPU seconds per game to ``deals`` deals;
    hands differ in length from deal to deal, so a pilot of a few deals is a
    rough guide (say so when you quote it).

    Returns:
        One row per pair: ``a``, ``b``, ``games``, ``cpu_s`` (the pilot's),
        ``cpu_s_per_game`` and ``projected_cpu_s``.
    """
    import time

    from cardsuite.agents.arena.tournament import run_tournament

    if pilot_deals < 1 or deals < 1:
        raise ConfigError(f"--pilot and --deals must be at least 1, got {pilot_deals}, {deals}")
    from cardsuite.agents.registry import make_agent

    for spec in agents:  # imports and first loads outside the timed pairs
        agent = make_agent(spec, game)
        close = getattr(agent, "close", None)
        if callable(close):
            close()
    rows = []
    for i, j in itertools.combinations(range(len(agents)), 2):
        start = time.process_time()
        res = run_tournament(
            game,
            [agents[i], agents[j]],
            games=pilot_deals,
            players=players,
            options=dict(options or {}),
            duplicate=True,
            seed=seed,
        )
        cpu = time.process_time() - start
        games = len(res.results)
        rows.append(
            {
                "a": agents[i],
                "b": agents[j],
                "games": games,
                "cpu_s": cpu,
                "cpu_s_per_game": cpu / games,
                "projected_cpu_s": cpu / pilot_deals * deals,
            }
        )
    return rows


def pilot_text(rows: list[dict[str, Any]], pilot_deals: int, deals: int) -> str:
    """The pilot's table and its total projection."""
    lines = [
        f"pilot: {pilot_deals} duplicate deal(s) per pair, CPU seconds in one process; "
        f"projected to {deals} deals per pair",
        "",
        "| pair | pilot games | CPU s/game | projected CPU |",
        "|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| `{r['a']}` vs `{r['b']}` | {r['games']} | {r['cpu_s_per_game']:.2f} "
            f"| {r['projected_cpu_s'] / 60:.0f} min |"
        )
    total = sum(r["projected_cpu_s"] for r in rows)
    lines += ["", f"projected total: {total / 3600:.1f} CPU-hours ({total / 60:.0f} CPU-min)"]
    return "\n".join(lines) + "\n"


def to_markdown(board: Board, command: str) -> str:
    """The leaderboard as a markdown section (ratings, then head-to-head)."""
    order = board.order()
    r = board.ratings
    lines = [
        f"### {board.game}, {board.players} players",
        "",
        f"{board.deals} duplicate deals per pair, seed {board.seed}: `{command}`",
        "",
        f"Rating: Elo scale (400 points = 10:1 odds of winning a deal), `{r.anchor}` = 0; "
        "Bradley-Terry fit to all deals at once, "
        + (
            f"95% interval by bootstrap over deals ({r.resamples} resamples)."
            if r.resamples
            else "no intervals (--resamples 0)."
        ),
        "",
        "| rank | agent | rating | 95% interval | beats the others (mean) |",
        "|---|---|---|---|---|",
    ]
    for rank, i in enumerate(order, 1):
        beats = [v for v in board.head_to_head[i] if v is not None]
        lines.append(
            f"| {rank} | `{board.agents[i]}` | {r.rating[i]:.0f} "
            f"| {r.low[i]:.0f} to {r.high[i]:.0f} "
            f"| {100 * float(np.mean(beats)):.1f}% |"
        )
    if not r.identified:
        lines += ["", f"{r.unmeasured()}."]
    widths = [
        (hi - lo) / 2 for row in board.h2h_interval for lo_hi in row if lo_hi for lo, hi in [lo_hi]
    ]
    widest = 100 * max(widths, default=0.0)
    bound = f"; 95% bootstrap intervals at most ±{widest:.1f} points" if r.resamples else ""
    lines += [
        "",
        f"Head-to-head: share of deals the row agent beat the column agent (ties half{bound}).",
        "",
        "| | " + " | ".join(f"`{board.agents[j]}`" for j in order) + " |",
        "|---|" + "---|" * len(order),
    ]
    for i in order:
        cells = [
            "—"
            if board.head_to_head[i][j] is None
            else f"{100 * float(board.head_to_head[i][j] or 0):.0f}%"
            for j in order
        ]
        lines.append(f"| `{board.agents[i]}` | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


HEADER = (
    "# Leaderboard\n\nGenerated by `cardsuite leaderboard` (`agents/arena/leaderboard.py`): a duplicate\n"
    "round-robin of every registered agent, rated by one Bradley-Terry maximum-likelihood\n"
    "fit to every deal at once (Elo scale, random = 0; the order of the games does not\n"
    "matter). Regenerate a section with the command under its heading.\n"
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
    """Ratings with their 95% bootstrap intervals, best first (the caller's backend is kept)."""
    from matplotlib.figure import Figure

    order = board.order()
    r = board.ratings
    fig = Figure(figsize=(7, 0.5 * len(order) + 1.2))
    ax = fig.subplots()
    y = np.arange(len(order))[::-1]
    x = np.array([r.rating[i] for i in order])
    err = np.array(
        [[r.rating[i] - r.low[i] for i in order], [r.high[i] - r.rating[i] for i in order]]
    )
    ax.errorbar(x, y, xerr=np.maximum(err, 0.0), fmt="o", capsize=3)
    ax.set_yticks(y, [board.agents[i] for i in order])
    ax.set_xlabel(f"Elo rating, {r.anchor} = 0 (bars: 95% bootstrap interval)")
    ax.set_title(f"{board.game}, {board.players} players: {board.deals} duplicate deals per pair")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    out_png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out_png, dpi=100)
    return out_png


def rule_options(game: Any, config: str | None, extra: list[str]) -> dict[str, Any]:
    """Rule options from a ``--config`` preset (file or shipped name), then ``--key value`` flags."""
    from cardsuite.config import read_yaml_mapping
    from cardsuite.games import parse_options

    base: dict[str, Any] = {}
    if config:
        base = read_yaml_mapping(config)
        game.config_class().from_dict(base, source=str(config))  # unknown keys named
    return {**base, **parse_options(game, extra)}


def add_command(sub: Any) -> tuple[str, Any]:
    """The ``cardsuite leaderboard`` subcommand (``cardsuite.commands`` entry point)."""
    p = sub.add_parser(
        "leaderboard",
        help="duplicate round-robin of every agent, order-free ratings",
        description=__doc__.split("\n\n")[0] + " Rule options follow as --key value.",
    )
    p.add_argument("game", help="scum, scum_party or scandal")
    p.add_argument("--players", type=int, required=True, help="seats at the table")
    p.add_argument("--deals", type=int, default=100, help="duplicate deals per pair")
    p.add_argument("--seed", type=int, default=0, help="master seed of the deals")
    p.add_argument("--agents", nargs="+", help="agent specs (default: every registered agent)")
    p.add_argument("--ismcts", default="", help="ISMCTS parameters, e.g. budget=100")
    p.add_argument("--workers", type=int, default=1, help="worker processes")
    p.add_argument(
        "--config",
        default=None,
        help="rule preset: a YAML file or a shipped name (scum/six_players)",
    )
    p.add_argument(
        "--out",
        default=None,
        help="markdown file: this game's section replaced or added, other sections kept "
        "(and a PNG in img/ beside it); default: print only",
    )
    p.add_argument(
        "--plot",
        default=None,
        help="PNG of the ratings (default with --out: img/leaderboard_GAME_N.png beside it)",
    )
    p.add_argument(
        "--json", default=None, help="a new JSON file: ratings, head-to-head, every deal outcome"
    )
    p.add_argument(
        "--resamples", type=int, default=RESAMPLES, help="bootstrap resamples of the intervals"
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.add_argument(
        "--pilot",
        type=int,
        default=0,
        metavar="N",
        help="only time N deals of every pair (one process) and project the CPU time "
        "of --deals deals per pair; writes nothing",
    )
    p.add_argument(
        "--checkpoint",
        default=None,
        help="JSON-lines file of finished pairs: appended after each pair; the same "
        "command run again skips the pairs already in it",
    )

    def run(ns: argparse.Namespace, extra: list[str]) -> int:
        from cardsuite.agents.arena.records import check_new_file
        from cardsuite.games import get_game

        spec = get_game(ns.game)
        options = rule_options(spec, ns.config, extra)
        if options.get(spec.players_key, ns.players) != ns.players:
            raise ConfigError(
                f"--players {ns.players} contradicts {spec.players_key}="
                f"{options[spec.players_key]} of the rule options"
            )
        options[spec.players_key] = ns.players
        if ns.resamples < 0:
            raise ConfigError(f"--resamples must be at least 0, got {ns.resamples}")
        if ns.json:
            check_new_file(ns.json, "--json file")  # before any game is played
        agents = ns.agents or default_agents(spec.name, options, ns.ismcts)
        if ns.pilot:
            if ns.out or ns.json or ns.checkpoint or ns.plot:
                raise ConfigError(
                    "--pilot only times and prints: drop --out/--json/--plot/--checkpoint"
                )
            rows = pilot(
                spec.name,
                ns.players,
                agents,
                pilot_deals=ns.pilot,
                deals=ns.deals,
                seed=ns.seed,
                options=options,
            )
            print(pilot_text(rows, ns.pilot, ns.deals))
            return 0
        board = run_leaderboard(
            spec.name,
            ns.players,
            agents,
            deals=ns.deals,
            seed=ns.seed,
            options=options,
            workers=ns.workers,
            progress=not ns.no_progress,
            resamples=ns.resamples,
            checkpoint=ns.checkpoint,
        )
        flags = "".join(
            f" --{k} {json.dumps(v) if not isinstance(v, str) else v}"
            for k, v in options.items()
            if k != spec.players_key
        )
        command = (
            f"cardsuite leaderboard {spec.name} --players {ns.players} --deals {ns.deals} "
            f"--seed {ns.seed}"
            + (f" --ismcts {ns.ismcts}" if ns.ismcts else "")
            + (" --agents " + " ".join(ns.agents) if ns.agents else "")
            + flags
        )
        text = to_markdown(board, command)
        written: list[Path] = []
        png = Path(ns.plot) if ns.plot else None
        if png is None and ns.out:
            png = Path(ns.out).parent / "img" / f"leaderboard_{spec.name}_{ns.players}.png"
        if png is not None:
            written.append(plot(board, png))
        if ns.out:
            out = Path(ns.out)
            section = text
            if png is not None:
                try:
                    rel = png.resolve().relative_to(out.parent.resolve())
                    section += f"\n![{spec.name}, {ns.players} players]({rel.as_posix()})\n"
                except ValueError:
                    pass
            out.parent.mkdir(parents=True, exist_ok=True)
            old = out.read_text(encoding="utf-8") if out.exists() else ""
            out.write_text(merge_section(old, section), encoding="utf-8")
            written.append(out)
        if ns.json:
            data = dict(board.to_dict(), command=command)
            Path(ns.json).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
            written.append(Path(ns.json))
        print(text)
        if written:
            print("wrote " + ", ".join(str(w) for w in written))
        return 0

    return "leaderboard", run
