"""The shared batched layer every game's batched engine builds on (like Pgx's core).

Nothing here knows a card game: `backend` (one array namespace over numpy and
torch), `deal` (counter-based random streams), `protocol` (the
[`BatchedEngine`][cardsuite.batched.BatchedEngine] contract), `arrays`
([`ArrayGames`][cardsuite.batched.arrays.ArrayGames], the base of every engine),
`sharded` (one numpy batch on several threads), `vector_env` (one learning
seat as a Gymnasium ``VectorEnv``, and ``MaskablePPO``'s), `arena` (per-seat
mean returns) and `policies`. See ``docs/batched.md``.
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
