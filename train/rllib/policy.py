"""A trained RLlib checkpoint as an arena agent (``rllib:PATH``).

:meth:`RLlibAgent.load` reads only the ``main`` RLModule from the checkpoint
(``learner_group/learner/rl_module/main``) with ``RLModule.from_checkpoint``:
no Algorithm is built and Ray is not started. The agent acts greedily (the
most likely legal action) unless built with ``greedy=False``, when it samples
from the masked policy with its own seeded generator. Illegal actions have
probability 0 in either case (:mod:`train.rllib.module`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch

from cardsuite.agents.base import TableInfo
from cardsuite.errors import CheckpointError
from cardsuite.train.rllib.module import MASK_KEY, OBS_KEY
from cardsuite.train.rllib.trainer import LATEST, MAIN, RUN_RECORD

MODULE_DIR = Path("learner_group") / "learner" / "rl_module"


def module_path(path: str | Path, module_id: str = MAIN) -> tuple[Path, dict[str, Any] | None]:
    """The RLModule folder of ``module_id`` in a checkpoint, and the run record if any.

    ``path`` may be a training checkpoint (``iter_NNNNNN``), a checkpoint dir
    holding ``LATEST``, or an RLModule folder itself.

    Raises:
        CheckpointError: nothing loadable at ``path``.
    """
    import json

    path = Path(path)
    if not path.exists():
        raise CheckpointError(f"RLlib checkpoint {str(path)!r} not found")
    if (path / LATEST).is_file():
        path = path / (path / LATEST).read_text(encoding="utf-8").strip()
    record = None
    if (path / RUN_RECORD).is_file():
        try:
            record = json.loads((path / RUN_RECORD).read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            raise CheckpointError(f"{path / RUN_RECORD}: unreadable run record: {err}") from None
    if (path / MODULE_DIR).is_dir():
        folder = path / MODULE_DIR / module_id
        if not folder.is_dir():
            found = sorted(p.name for p in (path / MODULE_DIR).iterdir() if p.is_dir())
            raise CheckpointError(
                f"{path}: no module {module_id!r} in the checkpoint; modules: {', '.join(found)}"
            )
        return folder, record
    if (path / "class_and_ctor_args.pkl").is_file():
        return path, record
    raise CheckpointError(
        f"{str(path)!r} is not an RLlib checkpoint: expected {MODULE_DIR}/{module_id} inside "
        "(a training checkpoint), a LATEST file (a checkpoint dir) or an RLModule folder"
    )


class RLlibAgent:
    """An :class:`~agents.base.Agent` acting with a trained masked PPO RLModule."""

    name = "rllib"

    def __init__(
        self,
        module: Any,
        *,
        game: str | None = None,
        seed: int | None = None,
        greedy: bool = True,
        source: str = "",
    ) -> None:
        """Wrap a loaded :class:`~train.rllib.module.MaskedPPOTorchRLModule`."""
        self.module = module
        self.game = game
        self.greedy = greedy
        self.source = source
        self._rng = np.random.default_rng(seed)
        obs_space = module.observation_space
        self.obs_dim = int(obs_space[OBS_KEY].shape[0])
        self.num_actions = int(module.action_space.n)

    @classmethod
    def load(
        cls,
        path: str | Path,
        game: str,
        seed: int | None = None,
        *,
        module_id: str = MAIN,
        greedy: bool = True,
    ) -> RLlibAgent:
        """Load the ``module_id`` policy of the checkpoint at ``path`` for ``game``.

        Raises:
            CheckpointError: missing or unreadable checkpoint, or one trained on another game.
        """
        from ray.rllib.core.rl_module.rl_module import RLModule

        folder, record = module_path(path, module_id)
        if record is not None and record.get("game") not in (None, game):
            raise CheckpointError(
                f"{path}: the checkpoint was trained on {record.get('game')!r}, not {game!r}"
            )
        try:
            module = RLModule.from_checkpoint(folder)
        except Exception as err:  # RLlib raises bare errors of many kinds here
            raise CheckpointError(f"cannot load RLModule from {folder}: {err}") from err
        module.eval()  # type: ignore[attr-defined]
        return cls(module, game=game, seed=seed, greedy=greedy, source=str(path))

    def reset(self, table: TableInfo, seed: int | None = None) -> None:
        """Check the table matches the policy's spaces; reseed when ``seed`` is given.

        Raises:
            CheckpointError: the table's observation or action size differs from
                the one the policy was trained on (other rule options).
        """
        if self.game is not None and table.game != self.game:
            raise CheckpointError(
                f"{self.source}: loaded for {self.game!r}, seated at {table.game!r}"
            )
        if table.num_actions != self.num_actions or table.obs_spec.size != self.obs_dim:
            raise CheckpointError(
                f"{self.source}: trained with {self.obs_dim} observation features and "
                f"{self.num_actions} actions; this {table.game} table has "
                f"{table.obs_spec.size} and {table.num_actions} (other rule options?)"
            )
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The policy's action probabilities (0 on every illegal action)."""
        from ray.rllib.core.columns import Columns

        batch = {
            Columns.OBS: {
                OBS_KEY: torch.as_tensor(np.asarray(observation, dtype=np.float32)[None]),
                MASK_KEY: torch.as_tensor(np.asarray(action_mask, dtype=np.int8)[None]),
            }
        }
        with torch.no_grad():
            logits = self.module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0]
        probs = torch.softmax(logits.double(), dim=-1).numpy()
        probs[np.asarray(action_mask) == 0] = 0.0
        return probs / probs.sum()  # type: ignore[no-any-return]

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        """The greedy (or sampled) legal action."""
        probs = self.probabilities(observation, action_mask)
        if self.greedy:
            return int(np.argmax(probs))
        return int(self._rng.choice(len(probs), p=probs))
