"""The shared batched layer: what every game's batched engine builds on (like Pgx's core).

Nothing here knows a card game. A game's package holds its engine
(``scum_env.batched``, ``scum_env.party.batched``, ``scandal_env.batched``);
this package gives it:

* `backend`: one array namespace over numpy and torch
  (``get_backend("numpy" | "torch", device)``), so an engine is written once.
* `deal`: counter-based hashed random streams
  (``stream_keys``, ``permutations``): deals depend on ``(seed, game index,
  counter)`` only, identical on both backends and under sharding.
* [`protocol`][cardsuite.batched.protocol]: the [`BatchedEngine`][cardsuite.batched.BatchedEngine] contract
  (``reset``/``step``/``to_act``; ``num_games``, ``num_players``,
  ``num_actions``, ``obs_dim``, ``obs_spec``, ``xp``; per-seat rewards,
  ``done``, autoreset, ``active``, strict illegal actions) and
  [`StepResult`][cardsuite.batched.StepResult].
* `arrays`: [`ArrayGames`][cardsuite.batched.arrays.ArrayGames], the base of every
  engine (constructor, ``step``, input and illegal-action checks, restarts).
* `sharded`: [`ShardedEngine`][cardsuite.batched.ShardedEngine], one numpy batch
  stepped by several threads (`ShardedGames` over a game's engine class).
* `vector_env`: [`BatchedVectorEnv`][cardsuite.batched.BatchedVectorEnv] (one learning
  seat, Gymnasium ``VectorEnv``; `GameVectorEnv` builds a game's engine) and
  [`sb3_vec_env`][cardsuite.batched.sb3_vec_env] (``MaskablePPO``).
* `arena`: [`run_arena`][cardsuite.batched.run_arena], per-seat mean returns of
  batch policies.
* `policies`: [`RandomPolicy`][cardsuite.batched.RandomPolicy],
  [`sb3_policy`][cardsuite.batched.sb3_policy] and the ``BatchPolicy`` type.

See ``docs/batched.md``.
"""

from cardsuite.batched.arena import ArenaResult, run_arena
from cardsuite.batched.arrays import ArrayGames
from cardsuite.batched.backend import Backend, TorchBackend, get_backend
from cardsuite.batched.policies import BatchPolicy, RandomPolicy, sb3_policy
from cardsuite.batched.protocol import BatchedEngine, StepResult
from cardsuite.batched.sharded import ShardedEngine, ShardedGames
from cardsuite.batched.vector_env import BatchedVectorEnv, GameVectorEnv, sb3_vec_env

__all__ = [
    "ArenaResult",
    "ArrayGames",
    "Backend",
    "BatchPolicy",
    "BatchedEngine",
    "BatchedVectorEnv",
    "GameVectorEnv",
    "RandomPolicy",
    "ShardedEngine",
    "ShardedGames",
    "StepResult",
    "TorchBackend",
    "get_backend",
    "run_arena",
    "sb3_policy",
    "sb3_vec_env",
]
