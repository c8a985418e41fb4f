"""The games of ``cardsuite serve``: play a seat, watch agents, replay a record.

Agent moves run under the session's `MoveClock`: one past the limit stops the game.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from cardsuite.agents.arena.records import (
    HUMAN,
    apply_moves,
    engine_state,
    finish_record,
    make_env,
    over,
    record_options,
)
from cardsuite.agents.arena.tournament import act_info, derive_seed
from cardsuite.agents.base import Agent, table_info
from cardsuite.agents.play.views import Move, round_note, step, table_marker
from cardsuite.agents.play.web.limits import MoveClock, MoveTooLong
from cardsuite.agents.play.web.models import seat_model, table_model
from cardsuite.agents.play.web.requests import check_specs
from cardsuite.agents.play.web.store import (
    IDLE_SECONDS,
    LOG_SHOWN,
    MAX_AGENT_MOVES,
    MAX_SEED,
    MAX_SESSIONS,
    BadMove,
    PartyTracker,
    Recorder,
    Session,
    SessionBusy,
    SessionGone,
    SessionStopped,
    Store,
    random_seed,
)
from cardsuite.agents.registry import make_agent
from cardsuite.errors import ConfigError, StateError
from cardsuite.games import get_game

__all__ = [
    "IDLE_SECONDS", "LOG_SHOWN", "MAX_SEED", "MAX_SESSIONS", "BadMove", "LiveGame",
    "PlaySession", "ReplaySession", "SessionBusy", "SessionGone", "SessionStopped", "Store",
    "WatchSession", "check_specs", "random_seed",
]  # fmt: skip


class LiveGame(Session):
    """A game being played (play or watch): agents under the move clock, and its record."""

    _seat: int | None = None  # the person's seat (set by PlaySession); None: agents only

    def __init__(
        self,
        game: str,
        *,
        agents: list[str],
        seed: int = 0,
        options: dict[str, Any] | None = None,
        reset_options: dict[str, Any] | None = None,
        allowed: frozenset[str] = frozenset(),
        clock: MoveClock | None = None,
        limits: Any = None,
        recorder: Recorder | None = None,
    ) -> None:
        """Check the page's agents and deal with ``seed``; agents fill each seat but a person's."""
        spec = get_game(game)
        super().__init__(spec.name, clock)
        check_specs(agents, allowed, limits)
        self.env = env = spec.make(raw=True, **(options or {}))
        n, person = len(env.possible_agents), self._seat
        bad = isinstance(person, bool) or not isinstance(person, int) or not 0 <= person < n
        if self.mode == "play" and bad:
            raise ConfigError(f"seat must be 0..{n - 1}, got {str(person)[:40]}")
        self.human: str | None = None if person is None else env.possible_agents[person]
        others = [s for s in range(n) if s != person]
        specs = {s: agents[i % len(agents)] for i, s in enumerate(others)}
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
            raise ConfigError(f"seed must be an integer 0..{MAX_SEED}, got {str(seed)[:40]}")
        self.seed = seed
        self.options = dict(options or {})
        self.reset_options = None if reset_options is None else dict(reset_options)
        self.recorder = recorder
        env.reset(seed=seed, options=self.reset_options)
        self.initial = engine_state(env) if recorder is not None else None
        self.returns = dict.fromkeys(env.possible_agents, 0.0)
        self.tracker.update(env)
        self.players: dict[str, tuple[Agent, dict[str, Any]]] = {}  # with each one's act info
        for seat, text in specs.items():
            name = env.possible_agents[seat]
            agent = make_agent(text, self.game, seed=derive_seed(seed, 2, seat))
            agent.reset(table_info(env, self.game, name), seed=derive_seed(seed, 3, seat))
            self.players[name] = (agent, act_info(env, name, self.clock.wrap))
        self.seats = {env.possible_agents[s]: t for s, t in specs.items()}

    def _agent_move(self) -> None:
        """The agent to act moves under the clock; a move past the limit stops the game."""
        name = self.env.agent_selection
        agent, info = self.players[name]
        obs = self.env.observe(name)
        self.clock.start(f"{name} ({self.seats[name]})")
        try:
            action = int(agent.act(obs["observation"], obs["action_mask"], info))
            self.clock.check()  # an agent that does not ask for determinizations
        except MoveTooLong as err:
            self.stopped = str(err)
            raise
        finally:
            self.clock.stop()
        self._apply(name, action)

    def _apply(self, name: str, action: int) -> None:
        env = self.env
        self.moves.append(step(env, name, action, len(self.moves) + 1))
        for a, r in env.rewards.items():
            self.returns[a] += r
        self.tracker.update(env)
        if over(env) and self.recorder is not None:  # the game's last move
            self.recorder(self.record())

    def record(self) -> dict[str, Any]:
        """The game as a record; the person's seat is ``"human"``."""
        env = self.env
        stored, deck = record_options(self.options)
        record = {
            "game": self.game,
            "options": stored,
            "reset_options": self.reset_options,
            "seed": self.seed,
            "seats": dict(self.record_seats),
            "initial_state": self.initial,
            "actions": [[m.agent, m.action, m.text] for m in self.moves],
            "rewards": dict(self.returns),
            "infos": {a: env.infos.get(a, {}) for a in env.possible_agents},
        }
        return finish_record(env, record, deck)

    @property
    def record_seats(self) -> dict[str, str]:
        """The seat specs a record stores: the agents', a person's seat as ``"human"``."""
        return {a: (HUMAN if a == self.human else t) for a, t in self.seats.items()}


class PlaySession(LiveGame):
    """A person plays one seat against agents; the page sees only that seat's view."""

    mode = "play"
    human: str

    def __init__(self, game: str, *, seat: int = 0, **kwargs: Any) -> None:
        """Deal (`LiveGame`: the agents fill the other seats), then play until the person's turn."""
        self._seat = seat
        super().__init__(game, **kwargs)
        self.seats[self.human] = "you"
        self._run_agents()

    def _run_agents(self) -> None:
        env = self.env
        for _ in range(MAX_AGENT_MOVES):
            if over(env) or env.agent_selection == self.human:
                return
            self._agent_move()
        raise ConfigError(f"the agents made {MAX_AGENT_MOVES} moves without the person's turn")

    def legal_moves(self) -> list[dict[str, Any]]:
        """The person's legal moves (from the mask), or none when it is not their turn."""
        env = self.env
        if over(env) or env.agent_selection != self.human:
            return []
        mask = env.observe(self.human)["action_mask"]
        describe = env.unwrapped.describe_action
        return [{"id": int(a), "text": describe(int(a))} for a in np.flatnonzero(mask)]

    def move(self, action: Any) -> None:
        """Apply the person's move (BadMove unless it is one of `legal_moves`), then the agents'."""
        if over(self.env):
            raise BadMove("the game is over; start a new one")
        if self.env.agent_selection != self.human:
            raise BadMove("it is not your turn")
        if isinstance(action, bool) or not isinstance(action, int):
            raise BadMove(f"a move is an action id (an integer), got {str(action)[:40]}")
        if action not in {m["id"] for m in self.legal_moves()}:
            base = self.env.unwrapped
            why = base._why_illegal(action) if 0 <= action < base.num_actions else "no such action"
            raise BadMove(f"move {action} is not legal now: {why}")
        self._apply(self.human, action)
        self._run_agents()

    def view(self) -> dict[str, Any]:
        """The person's view: the table without others' hands, their moves, their own log."""
        return {
            **self._header(self.env, self.human),
            "you": self.human,
            "model": seat_model(self.env, self.human, self.tracker.previous),
            "moves": self.legal_moves(),
        }


class WatchSession(LiveGame):
    """Agents play each other; the page sees the whole table and asks for moves at its speed."""

    mode = "watch"

    def advance(self, moves: int) -> None:
        """Play up to ``moves`` moves (1..1000)."""
        if isinstance(moves, bool) or not isinstance(moves, int) or not 1 <= moves <= 1000:
            raise ConfigError(f"moves must be 1..1000, got {str(moves)[:40]}")
        for _ in range(moves):
            if over(self.env):
                return
            self._agent_move()

    def view(self) -> dict[str, Any]:
        """The whole table and the whole log (a spectator of agents sees everything)."""
        return {**self._header(self.env), "model": table_model(self.env, self.tracker.previous)}


class ReplaySession(Session):
    """A recorded game, move by move, forward and back (replayed by `agents.records`)."""

    mode = "replay"

    def __init__(self, record: Mapping[str, Any], source: str) -> None:
        """Check the record by building its env (StateError if it does not replay)."""
        super().__init__(str(record["game"]))
        self.record = record
        self.source = source
        self.seed = int(record["seed"])
        self.total = len(record["actions"])
        self.seats = {str(k): str(v) for k, v in record["seats"].items()}
        self.failure: tuple[int, str] | None = None  # the first move that does not replay
        self._restart()

    def _restart(self) -> None:
        self.env = make_env(self.record)
        self.tracker = PartyTracker()
        self.tracker.update(self.env)
        self.moves = []
        self.step = 0
        self._moves = apply_moves(self.env, self.record)
        self._before = table_marker(self.env)

    def goto(self, step: int) -> None:
        """Show the table after ``step`` recorded moves; a move that does not replay is kept as
        the StateError of every later ``goto``, the table at the last good move."""
        if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= self.total:
            raise ConfigError(f"step must be 0..{self.total}, got {str(step)[:40]}")
        if self.failure is not None and step >= self.failure[0]:
            raise StateError(self.failure[1])
        if step < self.step:
            self._restart()
        try:
            while self.step < step:
                self._forward()
            if self.step == self.total:
                for _ in self._moves:  # the reader's end-of-game checks (rewards)
                    pass
        except StateError as err:
            self.failure = (self.step + 1, str(err))
            good = self.step
            self._restart()  # the env may be half-stepped: replay to the last good move
            while self.step < good:
                self._forward()
            raise
        except StopIteration:  # never expected: the generator ended early
            raise StateError(f"record replay: no move {self.step + 1} to replay") from None

    def _forward(self) -> None:
        """Replay the next recorded move and log it."""
        move = next(self._moves)
        self.tracker.update(self.env)
        note = round_note(self.env, self._before)
        self._before = table_marker(self.env)
        text = move.description
        self.moves.append(Move(move.number, move.agent, move.action, text, text, note=note))
        self.step += 1

    def view(self) -> dict[str, Any]:
        """The whole table after the current step, and the log so far."""
        return {
            **self._header(self.env),
            "step": self.step,
            "total": self.total,
            "source": self.source,
            "model": table_model(self.env, self.tracker.previous),
        }
