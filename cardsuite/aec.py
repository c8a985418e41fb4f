"""A thin PettingZoo AEC base class shared by the suite's environments.

The base owns the PettingZoo bookkeeping (agents, rewards, terminations,
cumulative rewards, dead steps), the illegal-action policy and rendering. A
game subclass supplies a handful of hooks over its engine:

``_reset_game(seed, options)``, ``_current_seat()``, ``_legal_mask()``,
``_encode(seat, out)``, ``_apply(action)``, ``_why_illegal(action)``,
``_final_infos()``, ``_render_text()`` and ``_global_state()``.

Conventions shared by every env of the suite:

* Agents ``player_0 .. player_{n-1}`` keep their identity for the whole
  episode; roles and seating are game state.
* Nobody leaves ``agents`` before the episode ends: players who have gone out
  are skipped in turn order, and all agents terminate (or truncate) together,
  with their final rewards then. Distributed trainers such as RLlib break when
  a seat terminates before every seat has acted.
* Observations are dicts ``{"observation": float32[obs_dim], "action_mask":
  int8[num_actions]}``. The mask is all zero for every agent but the one to
  act, and never all zero for the agent to act.
* Illegal actions: with ``illegal_action="raise"`` (``raw_env`` default) an
  [`IllegalActionError`][cardsuite.errors.IllegalActionError] names the action and why
  it is illegal, and the state is unchanged. With ``"penalize"`` (``env()``
  default, PettingZoo's convention) the offender receives
  ``illegal_penalty``, every other agent 0, and the episode ends at once
  (``infos[agent]["illegal_action"]`` tells who did what).
* No wrapper stack: the order checks of PettingZoo's ``OrderEnforcingWrapper``
  are built in (``step`` before ``reset`` is an error), so ``env()`` costs no
  more than ``raw_env()``.
"""

from __future__ import annotations

import copy
import difflib
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Generic, TypeVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from cardsuite.engine import Encoder
from cardsuite.env_checks import action_index, check_agent, check_seed
from cardsuite.errors import CardsuiteError, IllegalActionError, PresetError, UsageError
from cardsuite.obsspec import ObsSpec
from cardsuite.safe_yaml import brief

ObsDict = dict[str, np.ndarray]
#: Reset option keys accepted and ignored: ``pettingzoo.test.api_test`` probes
#: ``reset(seed=0, options={"options": 1})``. Any other unknown key is refused.
_PROBE_KEYS = frozenset({"options"})

StateT = TypeVar("StateT")


class CardGameEnv(AECEnv[str, ObsDict, int], Generic[StateT]):
    """Common AEC plumbing over a game's engine ``State``; subclasses implement the hooks.

    Attributes:
        game: the engine ``State`` of the running episode (``None`` before
            ``reset``). It is not called ``state`` because PettingZoo's
            `state` is the global-state array for centralized critics.
        encoder: the game's observation encoder ([`cardsuite.engine.Encoder`][cardsuite.engine.Encoder]).
    """

    encoder: Encoder[StateT]
    game: StateT | None

    #: The keys ``reset(options=...)`` understands, declared once per game;
    #: the base checks them (an unknown key is a PresetError naming it).
    reset_options: ClassVar[tuple[str, ...]] = ()

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human"],
        "name": "cardgame_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        *,
        num_players: int,
        spec: ObsSpec,
        num_actions: int,
        state_size: int,
        illegal_action: str,
        illegal_penalty: float,
        render_mode: str | None,
    ) -> None:
        """Set up agents, spaces and buffers; the game is created by ``reset``."""
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise CardsuiteError(
                f"render_mode {render_mode!r} is not supported; use one of "
                f"{self.metadata['render_modes']} or None"
            )
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
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
        self._illegal_mode = illegal_action
        self._illegal_penalty = float(illegal_penalty)
        self._zero_mask = np.zeros(num_actions, dtype=np.int8)
        self._mask_cache: np.ndarray | None = None
        self._rewards_dirty = False
        self._over = True
        self._ready = False
        self._np_random = np.random.default_rng()
        self.agent_selection = self.possible_agents[0]

    # ------------------------------------------------------------------ hooks
    def _reset_game(self, seed: int, options: dict[str, Any] | None) -> None:
        raise NotImplementedError

    def _current_seat(self) -> int:
        raise NotImplementedError

    def _legal_mask(self) -> np.ndarray:
        raise NotImplementedError

    def _encode(self, seat: int, out: np.ndarray) -> None:
        """Write every entry of ``seat``'s observation into ``out`` (fresh, uninitialised).

        The default asks ``self.encoder.encode(self.game, seat, out)``.
        """
        assert self.game is not None  # observe() checks that reset() ran
        self.encoder.encode(self.game, seat, out)

    def _apply(self, action: int) -> tuple[list[float] | None, bool, bool]:
        """Apply a legal action; return (rewards per seat or None, over, truncated)."""
        raise NotImplementedError

    def _why_illegal(self, action: int) -> str:
        raise NotImplementedError

    def _final_infos(self) -> list[dict[str, Any]]:
        return [{} for _ in self.possible_agents]

    def _render_text(self) -> str:
        raise NotImplementedError

    def _global_state(self) -> np.ndarray:
        raise NotImplementedError

    def _render_rgb(self) -> np.ndarray:
        """The picture of ``render_mode="rgb_array"``: the ``rgb`` part of the game's record."""
        from cardsuite.games import game_of_env

        return np.asarray(game_of_env(self).part("rgb").render_rgb(self))

    # ------------------------------------------------------------ PettingZoo
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new episode.

        Args:
            seed: seeds the deal; ``None`` continues the env's own random stream.
            options: game-specific presets (see the env's documentation).
        """
        seed = check_seed(seed)
        options = self._check_reset_options(options)
        # Draw the game's seed from a copy: a reset that the game refuses
        # (a bad preset or saved state) leaves the env's random stream, like
        # the rest of the env, exactly as it was.
        rng = np.random.default_rng(seed) if seed is not None else copy.deepcopy(self._np_random)
        game_seed = int(rng.integers(0, 2**63 - 1))
        self._reset_game(game_seed, options)
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

    def _check_reset_options(self, options: Any) -> dict[str, Any] | None:
        """``options`` as a dict of known keys.

        Raises:
            PresetError: ``options`` is not a mapping, or holds a key the game
                does not know (named, with the closest known key), like an
                unknown constructor option. A typo (``hand`` for ``hands``)
                would otherwise deal a random game silently. The one key
                ``"options"`` is ignored: PettingZoo's ``api_test`` sends
                ``reset(seed=0, options={"options": 1})`` to check that
                ``reset`` takes the keyword, and every env must pass it.
        """
        if options is None:
            return None
        if not isinstance(options, Mapping):
            raise PresetError(
                f"reset options must be a dict of {', '.join(self.reset_options)}, "
                f"got {type(options).__name__}"
            )
        for key in options:
            if key not in self.reset_options and key not in _PROBE_KEYS:
                hint = difflib.get_close_matches(str(key)[:100], self.reset_options, n=1)
                suggestion = f" (did you mean {hint[0]!r}?)" if hint else ""
                raise PresetError(
                    f"{self.metadata['name']}.reset: unknown option {brief(key)}{suggestion}; "
                    f"known options: {', '.join(self.reset_options)}"
                )
        return dict(options)

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
        for a in self.agents:
            flags[a] = True
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
        """The table: text returned (``"ansi"``) or printed (``"human"``), or a picture.

        ``"rgb_array"`` returns ``uint8[H, W, 3]`` drawn by the ``rgb`` part of
        the game's record (``render_rgb(env)``), for Gymnasium's video tools.
        """
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


EnvT = TypeVar("EnvT", bound=CardGameEnv[Any])


def env_factories(
    cls: Callable[..., EnvT],
) -> tuple[Callable[..., EnvT], Callable[..., EnvT]]:
    """The ``raw_env`` and ``env`` constructors of an env class.

    ``raw_env(render_mode=None, **config)``: the bare env, whose illegal
    actions raise ``IllegalActionError`` unless the config says otherwise.
    ``env(render_mode=None, **config)``: the user-facing env, the same class
    with ``illegal_action="penalize"`` unless given — no wrapper stack, so it
    is exactly as fast.
    """

    def raw_env(render_mode: str | None = None, **config: Any) -> EnvT:
        """The bare env: illegal actions raise ``IllegalActionError`` by default."""
        return cls(render_mode=render_mode, **config)

    def env(render_mode: str | None = None, **config: Any) -> EnvT:
        """The user-facing env: an illegal action is penalized and ends the episode."""
        config.setdefault("illegal_action", "penalize")
        return cls(render_mode=render_mode, **config)

    return raw_env, env
