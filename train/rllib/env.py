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
* no seat terminates while others play on. RLlib marks the episode done and
  crashes when a seat terminates before every seat has had its first
  observation; the wrapper checks every step and raises
  `EarlyTerminationError` naming the seats, instead of RLlib's crash
  deep inside its episode code.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.rllib.utils.typing import MultiAgentDict

from cardsuite.errors import CardsuiteError, ConfigError
from cardsuite.games import get_game
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
    default ``"scum"``) and ``options`` (the game's rule options). Any other
    key is a [`ConfigError`][cardsuite.ConfigError]. RLlib's ``EnvContext`` extras
    (``worker_index``, ``vector_index``) are attributes, not keys, and pass.
    """

    ENV_CONFIG_KEYS = ("game", "options")

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
        self.agents = list(self.env.possible_agents)
        self.possible_agents = list(self.env.possible_agents)
        self._observed: set[str] = set()

    def reset(  # type: ignore[override]
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[MultiAgentDict, MultiAgentDict]:
        """Reset the game; the first observation is the first player's only."""
        obs, infos = super().reset(seed=seed, options=options)
        self._observed = set(obs)
        return obs, infos

    def step(  # type: ignore[override]
        self, action: MultiAgentDict
    ) -> tuple[MultiAgentDict, MultiAgentDict, MultiAgentDict, MultiAgentDict, MultiAgentDict]:
        """Apply the acting agent's action; raise EarlyTerminationError on the RLlib trap."""
        obs, rewards, terminated, truncated, infos = super().step(action)
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
