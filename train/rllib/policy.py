"""A trained RLlib checkpoint as an arena agent (``rllib:PATH``), loaded without pickle.

RLlib's own checkpoint files are cloudpickles (``class_and_ctor_args.pkl``,
``state.pkl``): loading them with ``RLModule.from_checkpoint`` runs whatever
code a crafted file holds. So `RLlibAgent.load` never touches them. It
reads the run record (``cardsuite_run.json``: game, rule options and the
training config, validated JSON), rebuilds the ``main`` RLModule from that
config, and loads its weights from ``main_module.safetensors``, which the
trainer writes beside every checkpoint (`export_module`). A checkpoint
without that file is refused with the reason; ``cardsuite export PATH --out
DIR --trust-pickle-this-file-can-run-code`` converts one you trust. No
Algorithm is built and Ray is not started. The agent acts greedily (the most
likely legal action) unless built with ``greedy=False``, when it samples from
the masked policy with its own seeded generator. Illegal actions have
probability 0 in either case (`cardsuite.train.rllib.module`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch

from cardsuite.agents.base import TableInfo
from cardsuite.errors import CheckpointError, ConfigError
from cardsuite.train.rllib.config import RLlibRun, RLlibTrainConfig, check_options
from cardsuite.train.rllib.module import MASK_KEY, OBS_KEY
from cardsuite.train.rllib.trainer import LATEST, MAIN, RUN_RECORD

MODULE_DIR = Path("learner_group") / "learner" / "rl_module"
SAFE_MODULE_FILE = "main_module.safetensors"
PICKLE_REFUSAL = (
    "RLlib's own checkpoint files are cloudpickles (class_and_ctor_args.pkl, state.pkl) "
    "that can run arbitrary code when loaded, so cardsuite never loads them. If you trust "
    "the checkpoint, convert it once with `cardsuite export PATH --out DIR "
    "--trust-pickle-this-file-can-run-code` and use rllib:DIR"
)


def export_module(state: Mapping[str, Any], checkpoint: str | Path) -> Path:
    """Write the ``main`` module's weights as ``main_module.safetensors`` in ``checkpoint``."""
    from cardsuite.train.safe_io import save_tensors

    return save_tensors(Path(checkpoint) / SAFE_MODULE_FILE, dict(state))


def checkpoint_folder(path: str | Path) -> Path:
    """The checkpoint folder at ``path`` (itself, or the one a ``LATEST`` file names).

    Raises:
        CheckpointError: nothing at ``path``, or no run record there.
    """
    p = Path(path)
    if not p.exists():
        raise CheckpointError(f"RLlib checkpoint {str(p)!r} not found")
    if (p / LATEST).is_file():
        name = (p / LATEST).read_text(encoding="utf-8").strip()
        if not name or "/" in name or name.startswith("."):
            raise CheckpointError(f"{p / LATEST}: names no checkpoint folder")
        p = p / name
    if not (p / RUN_RECORD).is_file():
        if (p / "class_and_ctor_args.pkl").is_file() or (p / MODULE_DIR).is_dir():
            raise CheckpointError(f"{str(p)!r}: no {RUN_RECORD}; {PICKLE_REFUSAL}")
        raise CheckpointError(
            f"{str(p)!r} is not an RLlib checkpoint: expected {RUN_RECORD} and "
            f"{SAFE_MODULE_FILE} (a training checkpoint) or a LATEST file (a checkpoint dir)"
        )
    return p


def read_run(folder: Path) -> RLlibRun:
    """The run (config and rule options) of a checkpoint's validated run record."""
    from cardsuite.train.safe_io import read_json_file

    where = f"{folder / RUN_RECORD}"
    record = read_json_file(folder / RUN_RECORD, where)
    if not isinstance(record, dict):
        raise CheckpointError(f"{where}: expected a JSON object")
    for name, kind in (("game", str), ("options", dict), ("config", dict)):
        if not isinstance(record.get(name), kind):
            raise CheckpointError(f"{where}: field {name!r} must be a {kind.__name__}")
    try:
        config = RLlibTrainConfig.from_dict(record["config"])
        options = check_options(config.game, record["options"])
    except ConfigError as err:
        raise CheckpointError(f"{where}: field 'config' is invalid: {err}") from None
    if config.game != record["game"]:
        raise CheckpointError(f"{where}: field 'game' {record['game']!r} is not the config's")
    return RLlibRun(config, options)


def load_module(folder: Path, run: RLlibRun) -> Any:
    """The ``main`` RLModule of ``run``, given the weights of ``main_module.safetensors``."""
    from cardsuite.train.rllib.trainer import module_spec
    from cardsuite.train.safe_io import load_tensors

    weights = folder / SAFE_MODULE_FILE
    if not weights.is_file():
        raise CheckpointError(f"{str(folder)!r} has no {SAFE_MODULE_FILE}; {PICKLE_REFUSAL}")
    tensors = load_tensors(weights)
    module = module_spec(run, with_spaces=True).build()
    try:
        module.load_state_dict(tensors, strict=True)
    except RuntimeError as err:
        raise CheckpointError(
            f"{weights}: the weights do not fit the run record's network: {err}"
        ) from None
    return module


class RLlibAgent:
    """An `Agent` acting with a trained masked PPO RLModule."""

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
        """Wrap a loaded `MaskedPPOTorchRLModule`."""
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
        if module_id != MAIN:
            raise CheckpointError(
                f"{path}: only the {MAIN!r} module is exported safely, not {module_id!r}"
            )
        folder = checkpoint_folder(path)
        run = read_run(folder)
        if run.config.game != game:
            raise CheckpointError(
                f"{path}: the checkpoint was trained on {run.config.game!r}, not {game!r}"
            )
        module = load_module(folder, run)
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
