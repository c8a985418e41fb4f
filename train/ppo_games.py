"""The games the batched PPO trainer plays: one :class:`TrainGame` per batched engine.

The trainer (:mod:`cardsuite.train.ppo`), its warm start
(:mod:`cardsuite.train.imitation`), its evaluation
(:mod:`cardsuite.train.duplicate`) and ``cardsuite exploit`` never name a
game: they ask the game's :class:`TrainGame` for

* the batched engine (``num_games`` games, numpy or torch),
* the engine config of a run (player count, the reward the trainer uses and
  the user's rule options),
* the batch policies of the named baselines (the real heuristic, vectorised
  or row by row, and random),
* every game's observation as a given player would see it now (to
  bootstrap that player's open transition at the end of a rollout).

=============== ============================================== ===============================
game            engine                                         heuristic in the batch
=============== ============================================== ===============================
``scum``        :class:`scum_env.batched.BatchedScum`          vectorised (row-for-row exact)
``scum_party``  :class:`scum_env.party.batched.BatchedParty`   vectorised (row-for-row exact)
``scandal``     :class:`scandal_env.batched.BatchedScandal`    row by row, memory per game
=============== ============================================== ===============================

Rewards: Scum trains on ``centered`` (J8, in [-1, 1]); Scum Party on
``points`` (each hand's P8 points when the hand is scored: ``rank``, paid
only at the end of a tournament of about a thousand engine steps, left the
policy to collapse on noise before the first reward arrived and never beat
random); Scandal on its one reward (a hand's net score / ``reward_scale``)
with one hand per episode. A rule option of the run overrides any of these.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from cardsuite.batched.policies import RandomPolicy
from cardsuite.errors import ConfigError


@dataclass(frozen=True)
class TrainGame:
    """How the batched trainer plays one game (module doc).

    Attributes:
        name: the game's registry name (``cardsuite.games``), written into the agent.
        title: a readable name for logs.
        defaults: engine options the trainer sets unless the run's options do.
        engine: ``engine(num_games, **kwargs)`` builds the batched engine.
        heuristic: ``heuristic(engine)`` builds the game's heuristic batch policy.
        observe_as: ``observe_as(engine, player)``: ``[N, D]`` observations of
            ``player`` now, leaving the engine's own buffers as they were.
    """

    name: str
    title: str
    defaults: dict[str, Any]
    engine: Callable[..., Any]
    heuristic: Callable[[Any], Any]
    observe_as: Callable[[Any, int], Any]

    def config(self, num_players: int, options: dict[str, Any]) -> dict[str, Any]:
        """The engine config of a run: the player count, the trainer's defaults, ``options``."""
        if "num_players" in options:
            raise ConfigError("options: set the player count with num_players, not options")
        return {"num_players": num_players, **self.defaults, **options}

    def make_engine(self, num_games: int, config: dict[str, Any], **kwargs: Any) -> Any:
        """``num_games`` games with ``config`` (``kwargs``: backend, device, autoreset)."""
        return self.engine(num_games, **kwargs, **config)

    def baselines(self, names: Sequence[str], engine: Any, seed: int) -> dict[str, Any]:
        """The batch policies of the named baselines (``heuristic``, ``random``)."""
        out: dict[str, Any] = {}
        for name in names:
            if name == "heuristic":
                out[name] = self.heuristic(engine)
            elif name == "random":
                out[name] = RandomPolicy(seed)
            else:
                raise ConfigError(f"unknown baseline {name!r} (heuristic, random)")
        return out


# ---------------------------------------------------------------------- Scum
def _scum_engine(num_games: int, **kwargs: Any) -> Any:
    from scum_env.batched import BatchedScum

    return BatchedScum(num_games, **kwargs)


def _scum_heuristic(engine: Any) -> Any:
    from cardsuite.agents.batched_heuristic_scum import BatchedScumHeuristic

    return BatchedScumHeuristic(engine.rules)


def _scum_observe_as(engine: Any, player: int) -> Any:
    from cardsuite.train.rollout import restore_observation, seat_observation

    view = seat_observation(engine, player)
    restore_observation(engine)  # the engine's buffers are reused: restored in place
    return view


# ---------------------------------------------------------------------- Scum Party
def _party_engine(num_games: int, **kwargs: Any) -> Any:
    from scum_env.party.batched import BatchedParty

    return BatchedParty(num_games, **kwargs)


def _party_heuristic(engine: Any) -> Any:
    from cardsuite.agents.batched_heuristic_party import BatchedPartyHeuristic

    return BatchedPartyHeuristic(engine.config, engine.obs_spec)


# ---------------------------------------------------------------------- Scandal
def _scandal_engine(num_games: int, **kwargs: Any) -> Any:
    from scandal_env.batched import BatchedScandal

    return BatchedScandal(num_games, **kwargs)


def _scandal_heuristic(engine: Any) -> Any:
    from cardsuite.agents.batched_heuristic_scandal import BatchedScandalHeuristic

    return BatchedScandalHeuristic(engine.config, engine.obs_spec)


def _observe_as_method(engine: Any, player: int) -> Any:
    return engine.observe_as(player)


_SCUM = TrainGame("scum", "Scum", {"reward": "centered"}, _scum_engine, _scum_heuristic,
                  _scum_observe_as)  # fmt: skip
_PARTY = TrainGame("scum_party", "Scum Party", {"reward": "points"}, _party_engine,
                   _party_heuristic, _observe_as_method)  # fmt: skip
_SCANDAL = TrainGame("scandal", "Scandal", {"episode": "hand"}, _scandal_engine,
                     _scandal_heuristic, _observe_as_method)  # fmt: skip
GAMES: dict[str, TrainGame] = {g.name: g for g in (_SCUM, _PARTY, _SCANDAL)}


def train_game(name: str) -> TrainGame:
    """The :class:`TrainGame` of ``name``; ConfigError naming the games the trainer plays."""
    try:
        return GAMES[name]
    except KeyError:
        raise ConfigError(
            f"field 'game': the batched trainer plays {', '.join(GAMES)}; got {name!r}"
        ) from None
