"""The agent protocol shared by every baseline, the arena, play and training.

An agent sees only what its player sees: the observation (read through the named views,
``table.obs_spec.view(obs, "hand")``), the action mask, and the arena's ``info``:

* ``"agent"``: the acting agent's name (``"player_2"``);
* ``"determinize"``: a callable ``rng -> engine state`` that samples a full
  state consistent with everything this player has seen (the env's documented
  ``determinize``), for search agents; absent where the env has none.

`act_info` builds that ``info``; `play_episode` plays one episode with it. A `SeatedAgent`
(what ``cardsuite.load_agent`` returns) refuses, with a `TableMismatchError`, to act on
another table's observation or for another seat.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol, runtime_checkable

import numpy as np

from cardsuite.config import ConfigBase
from cardsuite.errors import CardsuiteError, ConfigError, TableMismatchError
from cardsuite.games import game_of_env, get_game
from cardsuite.obsspec import ObsSpec


@dataclass(frozen=True)
class TableInfo:
    """What an agent is told when an episode starts: the game and its config, its own name
    (``"player_3"``), the number of actions, the observation layout, words for an action."""

    game: str
    config: ConfigBase
    agent: str
    num_actions: int
    obs_spec: ObsSpec
    describe_action: Callable[[int], str]


@runtime_checkable
class Agent(Protocol):
    """A player: told the table at each episode start, asked for actions."""

    name: str

    def reset(self, table: TableInfo, seed: int | None = None) -> None:
        """Start an episode at ``table`` (seeded for reproducible choices)."""
        ...

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        """A legal action id for this observation and mask."""
        ...


def table_info(env: Any, game: str, agent: str) -> TableInfo:
    """The `TableInfo` of ``agent`` at a suite env."""
    base = env.unwrapped
    return TableInfo(
        game, base.config, agent, base.num_actions, base.obs_spec, base.describe_action
    )


def act_info(env: Any, agent: str, wrap: Callable[..., Any] | None = None) -> dict[str, Any]:
    """The ``info`` an agent's ``act`` gets: its seat and ``determinize`` (through ``wrap``)."""
    info: dict[str, Any] = {"agent": agent}
    base = env.unwrapped
    if hasattr(base, "determinize"):
        determinize = partial(base.determinize, agent)
        info["determinize"] = wrap(determinize) if wrap else determinize
    return info


def seat_name(seats: Sequence[str], seat: Any) -> str:
    """The seat ``seat`` names (a name, or an index of ``seats``); ConfigError otherwise."""
    if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(seats):
        return seats[seat]
    if seat not in seats:
        raise ConfigError(f"seat {seat!r} is not at this table; seats: {', '.join(seats)}")
    return str(seat)


def by_seat(agents: Sequence[Any] | Mapping[str, Any], seats: Sequence[str]) -> dict[str, Any]:
    """``agents`` (a sequence in seat order, or a mapping seat name -> agent) by seat name.

    Raises:
        ConfigError: not a sequence nor a mapping, a wrong count, an unknown or missing seat.
    """
    if isinstance(agents, Mapping):
        unknown = [str(k) for k in agents if k not in seats]
        missing = [s for s in seats if s not in agents]
        if unknown or missing:
            what = (
                f"unknown seat {unknown[0]!r}" if unknown else "no agent for " + ", ".join(missing)
            )
            raise ConfigError(f"agents: {what}; seats: {', '.join(seats)}")
        return {s: agents[s] for s in seats}
    if isinstance(agents, str) or not isinstance(agents, Sequence):
        hint = f" (at every seat: [{agents!r}] * {len(seats)})" if isinstance(agents, str) else ""
        raise ConfigError(
            "agents: expected a sequence in seat order or a mapping seat -> agent, got "
            f"{type(agents).__name__}{hint}"
        )
    if len(agents) != len(seats):
        raise ConfigError(
            f"agents: {len(agents)} given for {len(seats)} seats ({', '.join(seats)}); "
            "give one per seat, in seat order, or a mapping seat -> agent"
        )
    return dict(zip(seats, agents, strict=True))


def describe_table(table: TableInfo) -> str:
    """``scum, 6 players (carousel=True), observation size 140, 71 actions``: the game, its
    player count, the rule options away from their defaults, and the sizes an agent reads."""
    config = table.config.to_dict()
    key = get_game(table.game).players_key
    try:
        default = type(table.config)().to_dict()
    except CardsuiteError:
        default = {}
    skip = (key, "illegal_action", "illegal_penalty")  # the env's, not the game's
    changed = [f"{k}={v!r}" for k, v in config.items() if k not in skip and default.get(k, v) != v]
    options = f" ({', '.join(changed)})" if changed else ""
    return (
        f"{table.game}, {config.get(key)} players{options}, observation size "
        f"{table.obs_spec.size}, {table.num_actions} actions"
    )


class SeatedAgent:
    """An agent held to the table and seat of its last `reset` (``cardsuite.load_agent``
    returns one): `act` on an observation or mask of another size, or for another seat
    (``info["agent"]``), is a `TableMismatchError` naming both, before the agent reads it.
    Every other attribute is the wrapped agent's (``inner``)."""

    def __init__(self, inner: Agent, table: TableInfo) -> None:
        """Hold ``inner``, already reset at ``table``."""
        self.inner = inner
        self.table = table

    @property
    def name(self) -> str:
        """The wrapped agent's name."""
        return self.inner.name

    def reset(self, table: TableInfo, seed: int | None = None) -> None:
        """Reset the wrapped agent at ``table`` (it may refuse it) and hold it there."""
        self.inner.reset(table, seed)
        self.table = table

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        """The wrapped agent's action, once the observation, mask and seat fit its table."""
        table = self.table
        shapes = np.shape(observation), np.shape(action_mask)
        if shapes != ((table.obs_spec.size,), (table.num_actions,)):
            hint = (
                "the dict: pass obs['observation'] and obs['action_mask']"
                if isinstance(observation, Mapping)
                else "another table's: load the agent for the table it sits at, "
                "cardsuite.load_agent(spec, env=env, seat=...), or play whole episodes with "
                "cardsuite.play(env, agents)"
            )
            raise TableMismatchError(
                f"{self.name} was seated at {table.agent} of {describe_table(table)}; asked to "
                f"act on an observation of shape {shapes[0]} and a mask of shape {shapes[1]}, "
                f"{hint}"
            )
        seat = info.get("agent", table.agent) if isinstance(info, Mapping) else table.agent
        if seat != table.agent:
            raise TableMismatchError(
                f"{self.name} was seated at {table.agent} of {describe_table(table)}; asked to "
                f"act for {seat}: load one agent per seat, cardsuite.load_agent(spec, env=env, "
                f"seat={seat!r}), or play whole episodes with cardsuite.play(env, agents)"
            )
        return self.inner.act(observation, action_mask, info)

    def __getattr__(self, attr: str) -> Any:
        """The wrapped agent's attribute (``meta``, ``folder``, ``close``...)."""
        inner = self.__dict__.get("inner")
        if inner is None or attr.startswith("__"):  # mid-copy or unpickling: not yet set
            raise AttributeError(attr)
        return getattr(inner, attr)


def play_episode(
    env: Any,
    players: Mapping[str, Agent],
    *,
    seed: int | None = None,
    agent_seeds: Mapping[str, int | None] | None = None,
) -> dict[str, float]:
    """Play one episode of ``env`` from ``reset(seed=seed)``; the returns per seat.

    Each seat's agent ``players[seat]`` is first reset at its table (with
    ``agent_seeds[seat]``), then acts with the `act_info` of its seat. An agent
    object given at several seats plays a copy (``copy.deepcopy``) at each after the first.

    Raises:
        ConfigError: a player that is not an `Agent`.
    """
    game = game_of_env(env).name
    seated: dict[str, Agent] = {}
    for seat, agent in players.items():
        if not isinstance(agent, Agent) or isinstance(agent, type):
            raise ConfigError(
                f"agents[{seat!r}]: {agent!r} is neither an agent (name, reset, act) nor a spec"
            )
        repeated = any(agent is other for other in seated.values())
        seated[seat] = copy.deepcopy(agent) if repeated else agent
    env.reset(seed=seed)
    infos = {}
    seeds = agent_seeds or {}
    for seat in env.possible_agents:
        seated[seat].reset(table_info(env, game, seat), seed=seeds.get(seat))
        infos[seat] = act_info(env, seat)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    for seat in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        env.step(seated[seat].act(obs["observation"], obs["action_mask"], infos[seat]))
        for name, reward in env.rewards.items():
            returns[name] += float(reward)
    return returns


class RandomAgent:
    """Uniform over the legal actions, seeded."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        """Create with an optional seed (``reset`` reseeds when given one)."""
        self._rng = np.random.default_rng(seed)

    def reset(self, table: TableInfo, seed: int | None = None) -> None:
        """Reseed when ``seed`` is given."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        """A uniformly random legal action."""
        legal = np.flatnonzero(action_mask)
        return int(legal[self._rng.integers(len(legal))])
