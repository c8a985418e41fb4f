"""A thin PettingZoo AEC base class shared by the suite's environments.

The base owns the config, the PettingZoo bookkeeping, the illegal-action
policy and rendering. A game subclass names its config class (``CONFIG``) and
engine module (``ENGINE``) and supplies the hooks ``_setup``, ``_reset_game``,
``_apply``, ``_final_infos``, ``_render_text`` and ``_global_state``
(``_current_seat``, ``_legal_mask``, ``_encode`` and ``_why_illegal`` default
to the engine and the encoder).

Conventions of every env of the suite:

* agents ``player_0 .. player_{n-1}`` keep their identity for the episode;
  nobody leaves ``agents`` before it ends (players who went out are skipped),
  and all agents terminate or truncate together (RLlib breaks otherwise);
* observations are ``{"observation": float32[D], "action_mask": int8[A]}``;
  the mask is all zero except for the agent to act, and never all zero for it;
* an illegal action raises [`IllegalActionError`][cardsuite.errors.IllegalActionError]
  with ``illegal_action="raise"`` (``raw_env``; the state is unchanged), or
  with ``"penalize"`` (``env()``) gives the offender ``illegal_penalty`` and
  ends the episode (``infos[agent]["illegal_action"]`` says who did what);
* no wrapper stack: ``OrderEnforcingWrapper``'s checks are built in, so
  ``env()`` costs no more than ``raw_env()``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from types import ModuleType
from typing import Any, ClassVar, Generic, TypeVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from cardsuite.config import ConfigBase
from cardsuite.engine import Encoder
from cardsuite.env_checks import action_index, check_agent, check_reset_options, check_seed
from cardsuite.errors import CardsuiteError, IllegalActionError, UsageError
from cardsuite.games import game_of_env
from cardsuite.obsspec import ObsSpec

ObsDict = dict[str, np.ndarray]

StateT = TypeVar("StateT")


class CardGameEnv(AECEnv[str, ObsDict, int], Generic[StateT]):
    """Common AEC plumbing over a game's engine ``State``; subclasses implement the hooks.

    Attributes:
        game: the engine ``State`` of the running episode (``None`` before
            ``reset``); PettingZoo's `state` is the global-state array.
        encoder: the game's observation encoder ([`cardsuite.engine.Encoder`][cardsuite.engine.Encoder]).
    """

    #: The game's config class: ``**config`` of the constructor are its fields.
    CONFIG: ClassVar[type[ConfigBase]]
    #: The game's engine module (``legal_mask``, ``why_illegal``, ...).
    ENGINE: ClassVar[ModuleType]
    config: Any
    rules: Any
    encoder: Encoder[StateT]
    game: StateT | None

    #: The game's resampling of what a seat cannot see: ``(state, seat, rng) -> state``.
    RESAMPLE: ClassVar[staticmethod[[Any, int, np.random.Generator], Any]]

    #: The keys ``reset(options=...)`` understands (an unknown key is a PresetError).
    reset_options: ClassVar[tuple[str, ...]] = ()

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human", "rgb_array"],
        "render_fps": 2,
        "name": "cardgame_v0",
        "is_parallelizable": False,
    }

    def __init__(self, render_mode: str | None = None, **config: Any) -> None:
        """Create the env (the game starts at ``reset``); keywords are ``CONFIG``'s fields."""
        super().__init__()
        self.config = self.CONFIG.from_dict(config)
        spec, num_actions, state_size = self._setup()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise CardsuiteError(
                f"render_mode {render_mode!r} is not supported; use one of "
                f"{self.metadata['render_modes']} or None"
            )
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(self.config.num_players)]
        self.agents: list[str] = []
        self._seat_of = {agent: i for i, agent in enumerate(self.possible_agents)}
        self.obs_spec = spec
        self.num_actions = num_actions
        low, high = spec.bounds()
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(low, high, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (num_actions,), dtype=np.int8),
            }
        )
        act_space: spaces.Discrete = spaces.Discrete(num_actions)
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, act_space)
        self.state_space = spaces.Box(-np.inf, np.inf, (state_size,), dtype=np.float32)
        self._illegal_mode = self.config.illegal_action
        self._illegal_penalty = float(self.config.illegal_penalty)
        self._zero_mask = np.zeros(num_actions, dtype=np.int8)
        self._mask_cache: np.ndarray | None = None
        self._rewards_dirty = False
        self._over = True
        self._ready = False
        self._np_random = np.random.default_rng()
        self.agent_selection = self.possible_agents[0]
        self.game = None

    # ------------------------------------------------------------------ hooks
    def _setup(self) -> tuple[ObsSpec, int, int]:
        """Compile ``self.config`` (rules, encoder); ``(observation spec, actions, state size)``."""
        raise NotImplementedError

    def _reset_game(self, seed: int, options: dict[str, Any]) -> None:
        raise NotImplementedError

    def _live(self) -> Any:
        """The engine state of the running episode; CardsuiteError before the first ``reset``."""
        if self.game is None:
            raise CardsuiteError("call reset() first")
        return self.game

    def _current_seat(self) -> int:
        return int(self._live().to_act)

    def _legal_mask(self) -> np.ndarray:
        return np.asarray(self.ENGINE.legal_mask(self._live()))

    def _encode(self, seat: int, out: np.ndarray) -> None:
        """Write every entry of ``seat``'s observation into ``out`` (fresh, uninitialised)."""
        self.encoder.encode(self._live(), seat, out)

    def _apply(self, action: int) -> tuple[list[float] | None, bool, bool]:
        """Apply a legal action; return (rewards per seat or None, over, truncated)."""
        raise NotImplementedError

    def _why_illegal(self, action: int) -> str:
        return str(self.ENGINE.why_illegal(self._live(), action) or "not legal now")

    def _final_infos(self) -> list[dict[str, Any]]:
        return [{} for _ in self.possible_agents]

    def _render_text(self) -> str:
        raise NotImplementedError

    def _global_state(self) -> np.ndarray:
        raise NotImplementedError

    def _render_rgb(self) -> np.ndarray:
        """The picture of ``render_mode="rgb_array"``: the ``rgb`` part of the game's record."""
        return np.asarray(game_of_env(self).part("rgb").render_rgb(self))

    # ------------------------------------------------------------ PettingZoo
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new episode.

        Args:
            seed: seeds the deal; ``None`` continues the env's own random stream.
            options: game-specific presets (see the env's documentation).
        """
        seed = check_seed(seed)
        options = check_reset_options(options, self.reset_options, self.metadata["name"])
        # Draw from a copy: a refused reset leaves the env's random stream as it was.
        rng = np.random.default_rng(seed) if seed is not None else copy.deepcopy(self._np_random)
        game_seed = int(rng.integers(0, 2**63 - 1))
        self._reset_game(game_seed, options or {})
        self._np_random = rng
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._rewards_dirty = False
        self._mask_cache = None
        self._over = False
        self._ready = True
        self._skip_agent_selection = None
        self.agent_selection = self.possible_agents[self._current_seat()]

    def legal_mask(self) -> np.ndarray:
        """The int8 action mask of the agent to act (cached until the next step)."""
        mask = self._mask_cache
        if mask is None:
            mask = self._mask_cache = self._legal_mask()
        return mask

    def observe(self, agent: str) -> ObsDict:
        """The observation dict of ``agent`` (fresh arrays, safe to keep)."""
        seat = check_agent(agent, self._seat_of, "observe")
        if not self._ready:
            raise UsageError("call reset() before observe()")
        obs = np.empty(self.obs_spec.size, dtype=np.float32)
        self._encode(seat, obs)
        if agent == self.agent_selection and not self._over:
            mask = self.legal_mask().copy()
        else:
            mask = self._zero_mask.copy()
        return {"observation": obs, "action_mask": mask}

    def step(self, action: Any) -> None:
        """Apply ``action`` for ``agent_selection`` (``None`` for a finished agent)."""
        if not self._ready:
            raise UsageError("call reset() before step()")
        agent = self.agent_selection
        if self._over:
            self._dead_step(agent, action)
            return
        mask = self.legal_mask()
        index = action if type(action) is int else action_index(action, agent, self.num_actions)
        legal = 0 <= index < self.num_actions and mask[index]
        if not legal and self._illegal_mode == "raise":
            self._illegal(agent, index)  # raises before anything changes
        if self._rewards_dirty:
            for a in self.rewards:
                self.rewards[a] = 0.0
            self._rewards_dirty = False
        self._cumulative_rewards[agent] = 0.0
        if not legal:
            self._illegal(agent, index)  # penalised
            return
        rewards, over, truncated = self._apply(index)
        self._mask_cache = None
        if rewards is not None:
            for seat, reward in enumerate(rewards):
                if reward:
                    a = self.possible_agents[seat]
                    self.rewards[a] = reward
                    self._cumulative_rewards[a] += reward
                    self._rewards_dirty = True
        if over:
            self._finish(truncated)
        else:
            self.agent_selection = self.possible_agents[self._current_seat()]

    def _dead_step(self, agent: str, action: Any) -> None:
        """``step`` once the episode is over: ``None`` retires ``agent``; anything else is a UsageError."""
        if not self.agents:
            raise UsageError("step: the episode is over and every agent has left; call reset()")
        if action is not None:
            raise UsageError(
                f"step: the episode is over; {agent} must step with None (got {action!r:.40}), "
                "then call reset()"
            )
        self._was_dead_step(action)

    def last(
        self, observe: bool = True
    ) -> tuple[ObsDict | None, float, bool, bool, dict[str, Any]]:
        """Observation, cumulative reward, terminated, truncated and info of the agent to act."""
        if not self._ready:
            raise UsageError("call reset() before last()")
        if not self.agents:
            raise UsageError("last: the episode is over and every agent has left; call reset()")
        return super().last(observe)

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """The (shared) observation space of ``agent``; UsageError for an unknown agent."""
        check_agent(agent, self._seat_of, "observation_space")
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """The (shared) ``Discrete`` action space of ``agent``; UsageError for an unknown agent."""
        check_agent(agent, self._seat_of, "action_space")
        return self.action_spaces[agent]

    def _finish(self, truncated: bool) -> None:
        self._over = True
        flags = self.truncations if truncated else self.terminations
        flags.update(dict.fromkeys(self.agents, True))
        for a, info in zip(self.possible_agents, self._final_infos(), strict=True):
            self.infos[a].update(info)

    def _illegal(self, agent: str, index: int) -> None:
        if 0 <= index < self.num_actions:
            why = self._why_illegal(index)
        else:
            why = f"action ids run from 0 to {self.num_actions - 1}"
        message = f"{agent}: illegal action {index}: {why}"
        if self._illegal_mode == "raise":
            raise IllegalActionError(message)
        self.rewards[agent] = self._illegal_penalty
        self._cumulative_rewards[agent] += self._illegal_penalty
        self._rewards_dirty = True
        self._over = True
        for a in self.agents:
            self.terminations[a] = True
            self.infos[a]["illegal_action"] = {"agent": agent, "action": index, "reason": why}

    def render(self) -> str | np.ndarray | None:
        """The table: text returned (``"ansi"``) or printed (``"human"``), or
        ``uint8[H, W, 3]`` (``"rgb_array"``, drawn by the game record's ``rgb`` part)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi'")
            return None
        if not self._ready:
            raise UsageError("call reset() before render()")
        if self.render_mode == "rgb_array":
            return self._render_rgb()
        text = self._render_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def state(self) -> np.ndarray:
        """The full global state as a float32 array (for centralized critics)."""
        if not self._ready:
            raise UsageError("call reset() before state()")
        return self._global_state()

    def close(self) -> None:
        """Nothing to release; present for the PettingZoo API."""

    def describe_action(self, action: int) -> str:
        """Plain words for an action id (e.g. ``"play 2x7"``)."""
        return str(self.rules.describe_action(int(action)))

    def determinize(self, agent: str, rng: np.random.Generator) -> StateT:
        """A full engine state consistent with what ``agent`` knows (for search; ``RESAMPLE``)."""
        return self.RESAMPLE(self._live(), check_agent(agent, self._seat_of, "determinize"), rng)


EnvT = TypeVar("EnvT", bound=CardGameEnv[Any])


def env_factories(
    cls: Callable[..., EnvT],
) -> tuple[Callable[..., EnvT], Callable[..., EnvT]]:
    """The ``raw_env`` and ``env`` constructors of an env class (``env``: the same
    class with ``illegal_action="penalize"`` unless given, no wrapper stack)."""

    def raw_env(render_mode: str | None = None, **config: Any) -> EnvT:
        """The bare env: illegal actions raise ``IllegalActionError`` by default."""
        return cls(render_mode=render_mode, **config)

    def env(render_mode: str | None = None, **config: Any) -> EnvT:
        """The user-facing env: an illegal action is penalized and ends the episode."""
        config.setdefault("illegal_action", "penalize")
        return cls(render_mode=render_mode, **config)

    return raw_env, env
