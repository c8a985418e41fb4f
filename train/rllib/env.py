"""Suite envs for RLlib: the AEC env behind RLlib's multi-agent PettingZoo wrapper.

`SuiteRLlibEnv` is RLlib's own
`PettingZooEnv` around a suite
env made by name (``cardsuite.games``), so an RLlib config needs no glue:

.. code-block:: python

    config.environment(SuiteRLlibEnv, env_config={"game": "scum",
                                                   "options": {"num_players": 5}})

What the wrapper relies on, and the suite guarantees (``cardsuite.aec``):

* observations stay the suite's dict ``{"observation": float32[D],
  "action_mask": int8[A]}``; `train.rllib.module` reads both keys;
* only the agent to act receives an observation at each step, and at the end
  every agent receives its last observation, reward and ``terminated=True``
  together (``__all__`` then);
* with a draw table (``table``: the driver League's `League.seat_table`) and
  ``league_prob`` > 0, that share of the episodes is a league episode: one
  random seat is RLlib's (the learner) and every other seat is played inside
  the env by an arena agent drawn from the table (`draw_seat`, `seat_agent`:
  the game's real heuristic, random, or a frozen snapshot); RLlib sees only
  the learner's seat. At its end the learner's outcome against each seat (1
  when its return is higher, 0.5 tied, 0 lower) is kept by member id until
  the driver collects it (`take_outcomes`). The other episodes are
  self-play, every seat RLlib's;
* no seat terminates while others play on. RLlib marks the episode done and
  crashes when a seat terminates before every seat has had its first
  observation; the wrapper checks every step and raises
  `EarlyTerminationError` naming the seats, instead of RLlib's crash
  deep inside its episode code.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.rllib.utils.typing import MultiAgentDict

from cardsuite.agents.base import Agent, table_info
from cardsuite.errors import CardsuiteError, ConfigError
from cardsuite.games import get_game
from cardsuite.train.core.league import SeatMember, draw_seat, seat_agent
from cardsuite.train.rllib.config import ILLEGAL_ACTIONS


class IllegalActionCounter(RLlibCallback):
    """Counts episodes that ended on an illegal action (metric `ILLEGAL_ACTIONS`).

    The suite's ``env()`` penalizes an illegal action and ends the episode,
    noting ``infos[agent]["illegal_action"]``, so every illegal action is
    counted at the step it happens. With the masked module the count stays 0,
    with unmasked random actions it does not.
    """

    def on_episode_start(self, *, metrics_logger: Any = None, **kwargs: Any) -> None:
        """Log 0, so the metric exists (and reads 0) before any episode has ended."""
        if metrics_logger is not None:
            metrics_logger.log_value(ILLEGAL_ACTIONS, 0, reduce="lifetime_sum")

    def on_episode_end(self, *, episode: Any, metrics_logger: Any = None, **kwargs: Any) -> None:
        """Log 1 if the episode's last infos report an illegal action, else 0."""
        infos = episode.get_infos(-1)
        illegal = any(isinstance(i, Mapping) and "illegal_action" in i for i in infos.values())
        if metrics_logger is not None:
            metrics_logger.log_value(ILLEGAL_ACTIONS, int(illegal), reduce="lifetime_sum")


class EarlyTerminationError(CardsuiteError):
    """A seat ended while others play on (RLlib crashes when that precedes a first observation)."""


def make_aec_env(game: str, options: Mapping[str, Any] | None = None) -> Any:
    """The suite's user-facing AEC env of ``game`` with rule ``options``.

    Raises:
        ConfigError: unknown game or a bad option (named by the game's config).
    """
    if options is not None and not isinstance(options, Mapping):
        raise ConfigError(
            f"env options for {game!r} must be a mapping of option names to values, "
            f"got {type(options).__name__}"
        )
    return get_game(game).make(**dict(options or {}))


class SuiteRLlibEnv(PettingZooEnv):
    """RLlib's PettingZoo wrapper around a suite env, with the early-termination check.

    ``env_config`` keys: ``game`` (``"scum"``, ``"scum_party"``, ``"scandal"``;
    default ``"scum"``), ``options`` (the game's rule options), ``table`` (a
    League's draw table, default none), ``league_prob`` (share of league
    episodes, default 0) and ``seed`` (of the seat draws). Any other key is a
    [`ConfigError`][cardsuite.ConfigError]. RLlib's ``EnvContext`` extras
    (``worker_index``, ``vector_index``) are attributes, not keys, and pass.
    """

    ENV_CONFIG_KEYS = ("game", "options", "table", "league_prob", "seed")

    def __init__(self, env_config: Mapping[str, Any] | None = None) -> None:
        """Build the suite env named by ``env_config`` and wrap it."""
        env_config = dict(env_config or {})
        unknown = sorted(set(env_config) - set(self.ENV_CONFIG_KEYS))
        if unknown:
            raise ConfigError(
                f"unknown env_config key(s) {', '.join(map(repr, unknown))} for SuiteRLlibEnv; "
                f"valid keys: {', '.join(self.ENV_CONFIG_KEYS)}"
            )
        self.game = str(env_config.get("game", "scum"))
        self.options = dict(env_config.get("options") or {})
        super().__init__(make_aec_env(self.game, self.options))
        # Agents in seat order (the wrapper lists them from a set).
        self.agents = [str(a) for a in self.env.possible_agents]
        self.possible_agents = list(self.agents)
        self._observed: set[Any] = set()
        self.table: list[SeatMember] = list(env_config.get("table") or [])
        self.league_prob = float(env_config.get("league_prob", 0.0))
        self._rng = np.random.default_rng(
            [int(env_config.get("seed", 0)), int(getattr(env_config, "worker_index", 0)),
             int(getattr(env_config, "vector_index", 0))]
        )  # fmt: skip
        self.seated: dict[Any, Agent] = {}
        self.seats: dict[Any, SeatMember] = {}
        self.learner: Any = None
        self._returns: dict[Any, float] = {}
        self._done: list[tuple[int, float]] = []

    # ------------------------------------------------------------------ league
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
        """Make this episode a league episode (module doc) with probability ``league_prob``."""
        self.seated, self.seats, self.learner = {}, {}, None
        if not self.table or self._rng.random() >= self.league_prob:
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
