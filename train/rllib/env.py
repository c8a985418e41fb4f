"""The per-game sampler's env: a suite AEC env behind RLlib's multi-agent PettingZoo wrapper,
League members around RLlib's seat in a share ``1 - self_play`` of the episodes.
docs/rllib.md, "Self-play and the League"."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.rllib.utils.typing import MultiAgentDict

from cardsuite.agents.base import Agent, table_info
from cardsuite.errors import CardsuiteError, ConfigError
from cardsuite.games import get_game
from cardsuite.train.core.league import SeatMember, draw_seat, seat_agent


class EarlyTerminationError(CardsuiteError):
    """A seat ended while others play on (RLlib crashes when that precedes a first observation)."""


def make_aec_env(game: str, options: Mapping[str, Any] | None = None) -> Any:
    """The suite's AEC env of ``game`` with rule ``options`` (ConfigError names a bad one)."""
    if options is not None and not isinstance(options, Mapping):
        raise ConfigError(f"env options for {game!r} must be a mapping of option names to "
                          f"values, got {type(options).__name__}")  # fmt: skip
    return get_game(game).make(**dict(options or {}))


class SuiteRLlibEnv(PettingZooEnv):
    """RLlib's PettingZoo wrapper around a suite env (module doc); ``env_config`` keys: ``game``,
    ``options``, ``table``, ``self_play`` and ``seed`` (any other is a ConfigError)."""

    ENV_CONFIG_KEYS = ("game", "options", "table", "self_play", "seed")

    def __init__(self, env_config: Mapping[str, Any] | None = None) -> None:
        """Build the suite env named by ``env_config`` and wrap it."""
        where = [int(getattr(env_config, k, 0) or 0) for k in ("worker_index", "vector_index")]
        env_config = dict(env_config or {})  # an EnvContext's indices are attributes, read above
        unknown = sorted(set(env_config) - set(self.ENV_CONFIG_KEYS))
        if unknown:
            raise ConfigError(f"unknown env_config key(s) {', '.join(map(repr, unknown))} for "
                              f"SuiteRLlibEnv; valid keys: {', '.join(self.ENV_CONFIG_KEYS)}")  # fmt: skip
        self.game = str(env_config.get("game", "scum"))
        self.options = dict(env_config.get("options") or {})
        super().__init__(make_aec_env(self.game, self.options))
        # Agents in seat order (the wrapper lists them from a set).
        self.agents = [str(a) for a in self.env.possible_agents]
        self.possible_agents = list(self.agents)
        self._observed: set[Any] = set()
        self.table: list[SeatMember] = list(env_config.get("table") or [])
        self.self_play = float(env_config.get("self_play", 1.0))
        self._rng = np.random.default_rng([int(env_config.get("seed", 0)), *where])
        self.seated: dict[Any, Agent] = {}
        self.seats: dict[Any, SeatMember] = {}
        self.learner: Any = None
        self._returns: dict[Any, float] = {}
        self._done: list[tuple[int, float]] = []

    def set_table(self, table: Sequence[SeatMember]) -> None:
        """Seat league opponents from ``table`` from the next episode on."""
        self.table = list(table)

    def take_outcomes(self) -> tuple[np.ndarray, np.ndarray]:
        """The league seats' outcomes since the last call: member ids, learner outcomes."""
        ids = np.array([i for i, _ in self._done], dtype=np.int64)
        outcomes = np.array([o for _, o in self._done], dtype=np.float64)
        self._done = []
        return ids, outcomes

    def _seat_league(self) -> None:
        """Make this episode a league episode (module doc) with probability ``1 - self_play``."""
        self.seated, self.seats, self.learner = {}, {}, None
        if not self.table or self._rng.random() >= 1.0 - self.self_play:
            return
        agents = self.possible_agents
        self.learner = agents[int(self._rng.integers(len(agents)))]
        for agent in agents:
            if agent != self.learner:
                self.seats[agent] = draw_seat(self.table, self._rng)
                opponent = seat_agent(self.seats[agent], self.game)
                info = table_info(self.env, self.game, str(agent))
                opponent.reset(info, seed=int(self._rng.integers(2**31)))
                self.seated[agent] = opponent

    def _act(self, action: Any) -> None:
        """Step the AEC env; a live move adds every seat's reward to the episode returns."""
        self.env.step(action)
        if action is not None:
            for agent, r in self.env.rewards.items():
                self._returns[agent] = self._returns.get(agent, 0.0) + float(r)

    def _play(self) -> tuple[MultiAgentDict, ...]:
        """Play the seated opponents and close dead seats until RLlib's seat is to act or
        the game is over; the (obs, reward, terminated, truncated, info) of RLlib's seats."""
        env = self.env
        out: tuple[MultiAgentDict, ...] = ({}, {}, {}, {}, {})
        while env.agents:
            agent = env.agent_selection
            last = env.last()
            if agent not in self.seated:
                for d, v in zip(out, last):
                    d[agent] = v
            obs, _, terminated, truncated, _ = last
            if terminated or truncated:
                self._act(None)
            elif agent in self.seated:
                mask = obs["action_mask"]
                self._act(self.seated[agent].act(obs["observation"], mask, {"agent": agent}))
            else:
                break
        return out

    def reset(  # type: ignore[override]
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[MultiAgentDict, MultiAgentDict]:
        """Reset the game; the first observation is the first player's only."""
        _, infos = super().reset(seed=seed, options=options)
        self._returns = dict.fromkeys(self.possible_agents, 0.0)
        self._seat_league()
        obs = self._play()[0]
        self._observed = set(obs)
        return obs, infos

    def step(  # type: ignore[override]
        self, action: MultiAgentDict
    ) -> tuple[MultiAgentDict, MultiAgentDict, MultiAgentDict, MultiAgentDict, MultiAgentDict]:
        """Apply the acting agent's action; raise EarlyTerminationError on the RLlib trap."""
        self._act(action[self.env.agent_selection])
        obs, rewards, terminated, truncated, infos = self._play()
        over = not self.env.agents
        terminated["__all__"] = over and all(terminated.values())
        truncated["__all__"] = over and all(truncated.values())
        if over and self.learner is not None:
            own = self._returns[self.learner]
            self._done += [(m.id, 0.5 + 0.5 * float(np.sign(own - self._returns[a])))
                           for a, m in self.seats.items()]  # fmt: skip
            self.learner = None
        finished = bool(terminated.get("__all__") or truncated.get("__all__"))
        done = [str(a) for a in obs if terminated.get(a) or truncated.get(a)]
        if done and not finished:
            unseen = [str(a) for a in self.possible_agents if a not in self._observed]
            raise EarlyTerminationError(
                f"{self.game}: {', '.join(done)} ended while the other seats play on"
                + (f" and {', '.join(unseen)} had no observation yet" if unseen else "")
                + "; RLlib needs all seats of a suite env to end together (nobody may "
                "leave `agents` before the episode ends)"
            )
        self._observed.update(a for a in obs if a != "__all__")
        return obs, rewards, terminated, truncated, infos
