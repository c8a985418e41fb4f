"""The contract every batched engine keeps, so the shared adapters serve every game.

A batched engine holds ``num_games`` independent games as arrays with a
leading game axis, on the backend ``xp`` (`cardsuite.batched.backend`).
One [`BatchedEngine.step`][cardsuite.batched.protocol.BatchedEngine.step] applies one decision in every game, with a
fixed number of array operations and no Python loop over games.

Shapes (``N`` games, ``A`` actions, ``P`` player ids, ``D`` = ``obs_dim``):

| call | returns |
|---|---|
| ``reset(seed)`` | ``(obs [N, D] float32, mask [N, A] int8, to_act [N] int64)`` |
| ``step(actions [N], active=None)`` | a [`StepResult`][cardsuite.batched.protocol.StepResult] |
| ``to_act()`` | ``[N]`` player id to act in each game |

Rules every engine follows:

* ``obs`` and ``mask`` are the per-game env's observation and mask of the
  player to act, bit for bit; the engine's reused buffers (copy to keep).
* ``rewards [N, P]`` float32 by player id: what the per-game env hands each
  seat in that step (zero otherwise); ``done [N]`` bool: the episode ended;
  ``truncated [N]`` (optional, ``None`` when a game never truncates): the
  games among ``done`` whose episode was cut by a limit, not played out.
* Autoreset (the default): a finished game restarts inside the same ``step``
  as the per-game env's ``reset()`` without a seed continues, and the
  returned ``obs``/``mask``/``to_act`` already describe the restarted game.
  With ``autoreset=False`` a finished game stays over (all-zero mask) and
  ignores its actions until ``reset``.
* ``active [N]`` bools: only those games move; the others are untouched.
* An illegal action of an active, running game raises
  [`IllegalActionError`][cardsuite.errors.IllegalActionError] naming the game, the player
  and the action, and no game is changed.
* Deals come from `cardsuite.batched.deal` streams keyed by
  ``(seed, game_offset + game index, counter)``, so numpy and torch play the
  same games and a shard of a batch plays exactly like the full batch.
* Constructors accept ``game_offset`` and ``buffers=(obs, mask)`` (views of a
  larger batch's outputs) so [`ShardedEngine`][cardsuite.batched.sharded.ShardedEngine]
  can split a batch across threads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from cardsuite.batched.backend import Array, Backend


@dataclass
class StepResult:
    """What a batched ``step`` returns (see the module contract)."""

    obs: Array
    mask: Array
    to_act: Array
    rewards: Array
    done: Array
    truncated: Array | None = None


@runtime_checkable
class BatchedEngine(Protocol):
    """N games of one card game as arrays (the module docstring is the contract)."""

    xp: Backend
    num_games: int
    num_players: int
    num_actions: int
    obs_dim: int
    obs_spec: Any  # a cardsuite.obsspec.ObsSpec: named pieces and bounds of the observation

    def reset(self, seed: int = 0) -> tuple[Array, Array, Array]:
        """Start a new game in every slot; ``(obs, mask, to_act)``."""
        ...

    def step(self, actions: Any, active: Any = None) -> Any:
        """One decision in every (active) game; a `StepResult`-like object."""
        ...

    def to_act(self) -> Array:
        """``[N]`` player id to act in each game."""
        ...

    def bytes_per_game(self) -> float:
        """Bytes of state, observation and mask held per game."""
        ...
