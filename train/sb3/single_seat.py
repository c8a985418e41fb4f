"""A single-agent Gymnasium view of a suite env, for one learning seat (`SelfPlayEnv`).

The other seats are played inside by opponents drawn from the League's draw table at each
episode start; a step's reward is the learner's own since its previous decision, and the
episode's last info carries ``league_ids`` and ``league_outcomes``. No torch is imported.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from cardsuite.agents.base import Agent, table_info
from cardsuite.agents.learned.netspec import obs_scale
from cardsuite.errors import ConfigError
from cardsuite.games import get_game
from cardsuite.train.core.league import League, SeatMember, draw_seat, seat_agent


def fixed_seats(probs: Mapping[str, float]) -> list[SeatMember]:
    """A draw table of fixed members only (``{"random": 0.5, "heuristic": 0.5}``)."""
    return [SeatMember(i, name, float(p)) for i, (name, p) in enumerate(probs.items()) if p > 0]


class SelfPlayEnv(gymnasium.Env[np.ndarray, np.int64]):
    """One learner seat of ``game`` (rule ``options``); the other seats play inside, seated
    from ``league`` (the core League or its draw table; default: random only). The
    ``learner_seat`` is fixed, or (None) rotates: episode mod players."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"]}  # noqa: RUF012

    def __init__(
        self,
        game: str,
        options: Mapping[str, Any] | None = None,
        *,
        league: League | Sequence[SeatMember] | None = None,
        learner_seat: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        self.game = get_game(game).name
        self.render_mode = render_mode
        self.env = get_game(game).make(render_mode=render_mode, **dict(options or {}))
        base = self.env.unwrapped
        self.agents_order: list[str] = list(base.possible_agents)
        self.num_players = len(self.agents_order)
        if learner_seat is not None and not 0 <= learner_seat < self.num_players:
            raise ConfigError(
                f"learner_seat {learner_seat} does not exist at a {self.num_players}-player "
                f"table (seats 0..{self.num_players - 1})"
            )
        self.fixed_seat = learner_seat
        self.set_league(fixed_seats({"random": 1.0}) if league is None else league)
        self.seats: dict[str, SeatMember] = {}
        self._returns: dict[str, float] = {}
        self._scale = obs_scale(base.obs_spec)
        low, high = base.obs_spec.bounds()
        self.observation_space = spaces.Box(low * self._scale, high * self._scale, dtype=np.float32)
        self.action_space = spaces.Discrete(base.num_actions)
        self._mask = np.zeros(base.num_actions, dtype=bool)
        self._episode = 0
        self.learner = self.agents_order[0]
        self.opponents: dict[str, Agent] = {}
        self._over = True

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start an episode: seat the learner, draw opponents, play to its turn. ``seed``
        reseeds the deal, the rotation and the draws; ``options`` go to the env's reset."""
        super().reset(seed=seed)
        if seed is not None:
            self._episode = 0
        seat = self.fixed_seat if self.fixed_seat is not None else self._episode % self.num_players
        self._episode += 1
        self.learner = self.agents_order[seat]
        self.env.reset(seed=seed, options=options)
        self.opponents, self.seats = {}, {}
        self._returns = dict.fromkeys(self.agents_order, 0.0)
        for agent in self.agents_order:
            if agent != self.learner:
                self.seats[agent] = draw_seat(self.table, self.np_random)
                opponent = seat_agent(self.seats[agent], self.game)
                info = table_info(self.env, self.game, agent)
                opponent.reset(info, seed=int(self.np_random.integers(2**31)))
                self.opponents[agent] = opponent
        self._over = False
        self._play_opponents()
        return self._observe(), {"learner": self.learner, "opponents": self.opponent_names()}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Apply the learner's action, then play the others until its next turn."""
        if self._over:
            raise gymnasium.error.ResetNeeded("the episode is over; call reset()")
        self.env.step(int(action))
        self._add_returns()
        reward = float(self.env.rewards[self.learner])
        reward += self._play_opponents()
        terminated = bool(self.env.terminations[self.learner])
        truncated = bool(self.env.truncations[self.learner]) and not terminated
        info: dict[str, Any] = {"learner": self.learner}
        if terminated or truncated:
            info.update(self.env.infos[self.learner])
            own = self._returns[self.learner]
            info["league_ids"] = [m.id for m in self.seats.values()]
            info["league_outcomes"] = [
                0.5 + 0.5 * float(np.sign(own - self._returns[a])) for a in self.seats
            ]
        return self._observe(), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (bool); all False once the episode is over."""
        return self._mask.copy()

    def render(self) -> str | None:  # type: ignore[override]
        """The underlying table as text (``render_mode="ansi"``)."""
        result: str | None = self.env.render()
        return result

    def set_league(self, league: League | Sequence[SeatMember]) -> None:
        """Seat opponents from ``league``'s draw table from the next episode on."""
        table = league.seat_table() if isinstance(league, League) else list(league)
        if not table or not sum(m.prob for m in table) > 0:
            raise ConfigError("the league's draw table has no member to draw")
        self.table: list[SeatMember] = table

    def seated_ids(self) -> list[int]:
        """The league member ids playing this episode (the trainer keeps them known)."""
        return [m.id for m in self.seats.values()]

    def opponent_names(self) -> dict[str, str]:
        """Who plays each other seat this episode."""
        return {agent: opp.name for agent, opp in self.opponents.items()}

    def _finished(self) -> bool:
        return bool(self.env.terminations[self.learner] or self.env.truncations[self.learner])

    def _play_opponents(self) -> float:
        """Let the others act until the learner's turn or the end; its rewards meanwhile."""
        reward = 0.0
        env = self.env
        while not self._finished() and env.agent_selection != self.learner:
            agent = env.agent_selection
            obs = env.observe(agent)
            env.step(
                self.opponents[agent].act(obs["observation"], obs["action_mask"], {"agent": agent})
            )
            self._add_returns()
            reward += float(env.rewards[self.learner])
        self._over = self._finished()
        return reward

    def _add_returns(self) -> None:
        for agent, r in self.env.rewards.items():
            self._returns[agent] = self._returns.get(agent, 0.0) + float(r)

    def _observe(self) -> np.ndarray:
        obs = self.env.observe(self.learner)
        self._mask = obs["action_mask"].astype(bool)
        scaled: np.ndarray = obs["observation"] * self._scale
        return scaled
