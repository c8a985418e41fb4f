"""The games of a batched trainer: one `GameTable` per player count in flight (with ``sizes``,
several, on the game's size-generic layout) and the heuristic's games of the warm start
(`warm_start_data`: batched PPO imitates them, Deep Monte-Carlo fits its Q-values to them)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from cardsuite.agents.learned.layout import pad_mask, pad_observation
from cardsuite.agents.learned.netspec import Snapshot, obs_scale
from cardsuite.agents.learned.size_generic import GenericSnapshot
from cardsuite.batched.policies import RandomPolicy, call_policy
from cardsuite.errors import ConfigError
from cardsuite.train.core.evaluate import evaluate_against
from cardsuite.train.core.games import train_game
from cardsuite.train.core.league import League
from cardsuite.train.core.state import engine_state, restore_engine_state

T = TypeVar("T", bound="GameTable")


@dataclass(eq=False, kw_only=True)
class GameTable:
    """One player count's games in flight: engine, league, seats and the current state
    (``generic``: pad into the size-generic layout; ``key``: its checkpoint arrays' prefix)."""

    players: int
    config: dict[str, Any]
    eng: Any
    league: League
    eval_opponents: dict[str, Any]
    eval_names: tuple[str, ...] = ()
    selfplay: np.ndarray
    learner_seat: np.ndarray
    opp: np.ndarray
    generic: str
    key: str
    learns: np.ndarray | None = None  # (games, players) learner seats; None: learner_seat only
    learner_count: int = 1  # learner seats per league game (args.learner_seats)
    obs: Any = None
    mask: Any = None
    to_act: Any = None

    def net_obs(self, obs: Any) -> np.ndarray:
        """The network's (unscaled) input of table observations: padded if generic."""
        if not self.generic:
            return np.asarray(obs, dtype=np.float32)
        return pad_observation(obs, self.eng.obs_spec, self.generic)

    def net_mask(self, mask: Any) -> np.ndarray:
        """The network's action mask of table masks: padded with False if generic."""
        return pad_mask(mask, self.generic) if self.generic else np.asarray(mask, dtype=bool)

    def learner_rows(self, to_act: np.ndarray) -> np.ndarray:
        """Which games' player to act is the learner (every seat of a self-play game)."""
        if self.learns is None:
            return self.selfplay | (to_act == self.learner_seat)
        seat = np.asarray(to_act, dtype=np.int64)
        ok = (seat >= 0) & (seat < self.learns.shape[1])
        mine = self.learns[np.arange(len(seat)), np.where(ok, seat, 0)] & ok
        return self.selfplay | mine

    def seat_state(self) -> dict[str, np.ndarray]:
        """The seat arrays a checkpoint keeps (``learns`` only with several learner seats)."""
        state = {"learner_seat": self.learner_seat, "opp": self.opp}
        if self.learns is not None:
            state["learns"] = self.learns
        return state

    def restore_seats(self, saved: dict[str, np.ndarray]) -> None:
        """Take back `seat_state`'s arrays, popping them from ``saved`` (KeyError if missing)."""
        self.learner_seat[:], self.opp[:] = saved.pop("learner_seat"), saved.pop("opp")
        if self.learns is not None:
            self.learns[:] = saved.pop("learns")

    def reset_games(self, seed: int) -> None:
        """New deals of ``seed`` in every game."""
        self.obs, self.mask, self.to_act = self.eng.reset(seed)

    def game_state(self) -> dict[str, np.ndarray] | None:
        """The games in flight as arrays for a checkpoint (None: kept in Python objects)."""
        games = engine_state(self.eng)
        if games is None:
            return None
        return {"obs": np.asarray(self.obs), "mask": np.asarray(self.mask),
                "to_act": np.asarray(self.to_act), **games}  # fmt: skip

    def restore_games(self, saved: dict[str, Any]) -> None:
        """Put back `game_state`'s arrays (KeyError if one is missing)."""
        self.obs, self.mask, self.to_act = saved.pop("obs"), saved.pop("mask"), saved.pop("to_act")
        restore_engine_state(self.eng, saved)

    def finish_games(self, done: np.ndarray, rewards: np.ndarray, rng: Any) -> np.ndarray:
        """Score the finished league games for PFSP and draw their new seats and member; each
        one's outcome for the learner's seat (1: above the other seats' mean, 1/2 a tie)."""
        fin = np.flatnonzero(done & ~self.selfplay)
        if fin.size == 0:
            return np.zeros(0)
        p = self.eng.num_players
        mine = rewards[fin, self.learner_seat[fin]]
        others = (rewards[fin].sum(axis=1) - mine) / (p - 1)
        outcome = np.asarray((mine > others) + 0.5 * (mine == others), dtype=np.float64)
        self.league.record(self.opp[fin], outcome)
        self.learner_seat[fin], learns = draw_seats(rng, fin.size, p, self.learner_count)
        if self.learns is not None:
            self.learns[fin] = learns
        self.opp[fin] = self.league.draw(fin.size)
        self.league.prune(self.opp)
        return outcome


def _first(name: str) -> Any:
    return property(lambda self: getattr(self.tables[0], name),
                    doc=f"The first table's ``{name}`` (the only table without ``sizes``).")  # fmt: skip


class FirstTable:
    """A trainer's one-size views: the first table's pieces as the trainer's own."""

    tables: Sequence[GameTable]
    eng = _first("eng")
    config = _first("config")
    league = _first("league")
    obs = _first("obs")
    to_act = _first("to_act")
    selfplay = _first("selfplay")
    learner_seat = _first("learner_seat")
    opp = _first("opp")


def draw_seats(rng: Any, games: int, players: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """``k`` distinct random learner seats in each of ``games`` league games: the first per
    game (the seat PFSP scores) and the mask of all ``k`` (``k`` 1: one integer per game)."""
    if k == 1:
        seat = rng.integers(players, size=games)
        return seat, seat[:, None] == np.arange(players)
    order = np.argsort(rng.random((games, players)), axis=1)[:, :k]
    learns = np.zeros((games, players), dtype=bool)
    np.put_along_axis(learns, order, True, axis=1)
    return order[:, 0], learns


def make_table(
    game: Any, players: int, args: Any, rng: Any, *, generic: str, greedy: bool = False,
    engine_kwargs: dict[str, Any] | None = None, opponents: dict[str, Any] | None = None,
    table_class: type[T] = GameTable, **extra: Any,  # type: ignore[assignment]
) -> T:  # fmt: skip
    """A batch of ``args.num_games`` games of ``game`` (a `TrainGame`) at ``players`` (the
    `BatchedConfig` ``args`` fill the League, unless ``opponents``, split the games and
    seat the learners); ``table_class`` and ``extra``: a trainer's own table type and fields."""
    config: dict[str, Any] = game.config(players, args.options)
    eng = game.make_engine(args.num_games, config, **(engine_kwargs or {}))
    n, p = args.num_games, eng.num_players
    league = League.of(game.name, eng, args.names("baselines"), seed=args.seed,
                       max_snapshots=args.max_snapshots, pfsp=args.pfsp, greedy=greedy,
                       opponents=opponents)  # fmt: skip
    selfplay = np.arange(n) < round(args.self_play * n)
    k = getattr(args, "learner_seats", 1)
    seat, learns = draw_seats(rng, n, p, k)
    learner_seat = np.where(selfplay, -1, seat)
    opp = np.full(n, -1, dtype=np.int64)
    if league.members:
        opp[~selfplay] = league.draw(int((~selfplay).sum()))
    return table_class(
        players=players, config=config, eng=eng, league=league,
        eval_opponents=opponents or {},
        eval_names=() if opponents else tuple(args.names("eval_against")),
        selfplay=selfplay, learner_seat=learner_seat, opp=opp, generic=generic,
        key=f"p{players}/" if generic else "", learns=None if k == 1 else learns & ~selfplay[:, None],
        learner_count=k, **extra,
    )  # fmt: skip


def evaluate_tables(
    snap: Snapshot, scale: np.ndarray, tables: Sequence[GameTable], *, game: str, deals: int,
    seed: int, step: int,
) -> list[dict[str, Any]]:  # fmt: skip
    """Duplicate deals of ``snap`` (inputs times ``scale``) against each table's evaluation
    opponents; the rows (``NAME@Pp`` at a generic table, played through `GenericSnapshot`)."""
    rows: list[dict[str, Any]] = []
    for t in tables:
        me, my_scale = snap, scale
        if t.generic:
            me = GenericSnapshot(snap.step, snap.params, snap.activation, snap.actor,
                                 snap.features, game=t.generic, source=t.eng.obs_spec,
                                 table_actions=t.eng.num_actions)  # fmt: skip
            my_scale = obs_scale(t.eng.obs_spec)
        opponents = t.eval_opponents
        if t.eval_names:  # fresh baselines: the rows depend on the network and deals only
            opponents = train_game(game).baselines(list(t.eval_names), t.eng, seed)
        for r in evaluate_against(me, my_scale, opponents, deals=deals, seed=seed,
                                  game=game, config=t.config, step=step):  # fmt: skip
            if t.generic:
                r = dataclasses.replace(r, against=f"{r.against}@{t.players}p")
            rows.append(r.to_dict())
    return rows


Actor = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""A batch policy of the engine's layout: (observations, masks) -> one action per game."""


def heuristic_dataset(
    games: int, steps: int, explore: float, seed: int, config: dict[str, Any],
    game: str = "scum", *, relative: bool = False, actor: Actor | None = None,
    until: Callable[[], bool] | None = None,
) -> dict[str, np.ndarray]:  # fmt: skip
    """Observations, masks, heuristic labels and per-seat returns of ``games`` games of
    ``game`` (engine options ``config``) for ``steps`` steps, fewer if ``until()`` says so
    first; ``relative``: returns of `relative_rewards`; ``actor`` plays instead of the
    heuristic (DAgger's rounds)."""
    spec = train_game(game)
    eng = spec.make_engine(games, config)
    heur = spec.heuristic(eng)
    rand = RandomPolicy(seed + 17)
    rows = np.arange(games)
    rng = np.random.default_rng(seed + 29)
    obs, mask, to_act = eng.reset(seed + 1_000_000_007)
    n, p = games, eng.num_players
    xs = np.zeros((steps, n, obs.shape[1]), dtype=np.float32)
    ms = np.zeros((steps, n, mask.shape[1]), dtype=bool)
    ys = np.zeros((steps, n), dtype=np.int64)
    seat = np.zeros((steps, n), dtype=np.int64)
    rew = np.zeros((steps, n, p), dtype=np.float32)  # rewards handed out by step t's move
    ended = np.zeros((steps, n), dtype=bool)  # the episode ended with step t's move
    cut = False  # by ``until``: the warm start's share of the budget is spent
    for t in range(steps):
        if until is not None and until():
            steps, cut = t, True
            xs, ms, ys, seat, rew, ended = (a[:t] for a in (xs, ms, ys, seat, rew, ended))
            break
        label = np.asarray(call_policy(heur, obs, mask, rows, np.asarray(to_act)))
        xs[t], ms[t], ys[t], seat[t] = obs, mask.astype(bool), label, to_act
        explore_rows = rng.random(n) < explore
        move = label if actor is None else np.asarray(actor(obs, mask), dtype=np.int64)
        res = eng.step(np.where(explore_rows, rand(obs, mask), move))
        rew[t], ended[t] = np.asarray(res.rewards), np.asarray(res.done)
        obs, mask, to_act = res.obs, res.mask, res.to_act
    if relative:
        rew = relative_rewards(rew)
    # each seat's reward to go until its episode's end (NaN: the episode did not end in the data)
    ret = np.full((steps, n), np.nan, dtype=np.float32)
    togo = np.zeros((n, p), dtype=np.float32)
    known = np.zeros(n, dtype=bool)
    for t in range(steps - 1, -1, -1):
        togo = rew[t] + np.where(ended[t][:, None], 0.0, togo)
        known = ended[t] | known
        ret[t] = np.where(known, togo[rows, seat[t]], np.nan)
    keep = ~np.isnan(ret).reshape(-1)
    if not keep.any() and not cut:
        raise ConfigError(
            f"field 'bc_steps': no episode ended within {steps} engine steps of the warm start, "
            "so there is nothing to imitate; raise bc_steps (a Scum Party tournament takes "
            "about 200 steps per hand at 8 players), or budget_minutes if the budget cut it"
        )
    data = {"obs": xs, "mask": ms, "label": ys, "ret": ret}
    return {k: v.reshape(steps * n, *v.shape[2:])[keep] for k, v in data.items()}


def relative_rewards(rewards: np.ndarray) -> np.ndarray:
    """``[N, P]`` rewards minus, per seat, the mean of the other seats' (zero-sum per game),
    what a duplicate deal is won on (Scandal's hand scores are not zero-sum, S9)."""
    r = np.asarray(rewards, dtype=np.float64)
    p = r.shape[-1]
    return (r - (r.sum(axis=-1, keepdims=True) - r) / max(p - 1, 1)).astype(np.float32)


def warm_start_data(
    tables: Sequence[GameTable], game: str, args: Any, *, relative: bool = False,
    seed: int | None = None, actor_for: Callable[[Any], Actor] | None = None,
    until: Callable[[], bool] | None = None,
) -> dict[str, np.ndarray]:  # fmt: skip
    """The heuristic's games at every table in the network's layout: ``bc_games`` games of
    ``bc_steps`` steps at the smallest table, fewer and longer at larger ones; ``seed``
    (default ``args.seed``); ``actor_for``: each table's mover (DAgger); ``until``: stops
    each table's games early (the budget)."""
    parts = []
    low = min(t.players for t in tables)
    for t in tables:
        games = max(1, round(args.bc_games * low / t.players))
        steps = round(args.bc_steps * t.players / low)
        part = heuristic_dataset(games, steps, args.bc_explore,
                                 args.seed if seed is None else seed, t.config, game,
                                 relative=relative, until=until,
                                 actor=None if actor_for is None else actor_for(t))  # fmt: skip
        part["obs"], part["mask"] = t.net_obs(part["obs"]), t.net_mask(part["mask"])
        parts.append(part)
    data = {k: np.concatenate([part[k] for part in parts]) for k in parts[0]}
    if not len(data["label"]):
        raise ConfigError(
            "field 'budget_minutes': the warm start's share of the budget ended before any of "
            "its games did, so there is nothing to imitate; raise budget_minutes or lower bc_games"
        )
    return data
