"""A trained RLlib checkpoint as an arena agent (``rllib:PATH``), loaded without pickle.

RLlib's own checkpoint files are cloudpickles (``class_and_ctor_args.pkl``,
``state.pkl``): loading them with ``RLModule.from_checkpoint`` runs whatever
code a crafted file holds. So `RLlibAgent.load` never touches them. It
reads the run record (``cardsuite_run.json``: game, rule options and the
training config, validated JSON) and the weights of ``main_module.safetensors``,
which the trainer writes beside every checkpoint (`export_module`), and
plays the module's policy network as a core `Snapshot` (`actor_snapshot`)
by the training core's numpy agent (`PPOAgent`): no Algorithm, no RLModule,
neither ray nor torch. A checkpoint without that file is refused with the
reason; ``cardsuite export PATH --out DIR --trust-pickle-this-file-can-run-code``
converts one you trust. The agent acts greedily (the most likely legal
action) unless built with ``greedy=False``, when it samples from the masked
policy with its own seeded generator; illegal actions are never played.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite.agents.learned.netspec import Snapshot, obs_scale
from cardsuite.agents.learned.policy import PPOAgent
from cardsuite.errors import CheckpointError, ConfigError
from cardsuite.games import get_game
from cardsuite.train.rllib.checkpoints import LATEST, MAIN, RUN_RECORD
from cardsuite.train.rllib.config import RLlibRun, RLlibTrainConfig, check_options

MODULE_DIR = Path("learner_group") / "learner" / "rl_module"
SAFE_MODULE_FILE = "main_module.safetensors"
PICKLE_REFUSAL = (
    "RLlib's own checkpoint files are cloudpickles (class_and_ctor_args.pkl, state.pkl) "
    "that can run arbitrary code when loaded, so cardsuite never loads them. If you trust "
    "the checkpoint, convert it once with `cardsuite export PATH --out DIR "
    "--trust-pickle-this-file-can-run-code` and use rllib:DIR"
)


def spec_scale(game: str, options: Mapping[str, Any]) -> np.ndarray:
    """The core's observation scale of ``game`` with ``options`` (`obs_scale` of its spec)."""
    return obs_scale(get_game(game).make(**dict(options)).unwrapped.obs_spec)


def actor_snapshot(
    weights: Mapping[str, Any], step: int, model_config: Mapping[str, Any], scale: np.ndarray
) -> Snapshot:
    """The core `Snapshot` of a masked PPO module's actor (its ``pi.*`` layers).

    The module multiplies observations by its ``obs_scale`` buffer; the
    snapshot is played on observations times ``scale`` (`spec_scale`), so the
    ratio is folded into the first layer's columns: same logits, no torch.
    """
    layers = len(list(model_config.get("hidden", (256, 256)))) + 1
    prefixes = tuple(f"pi.{2 * i}" for i in range(layers))

    def arr(v: Any) -> np.ndarray:
        v = v.detach().cpu().numpy() if hasattr(v, "detach") else v
        return np.array(v, dtype=np.float32)

    try:
        params = {
            f"{p}.{k}": arr(weights[f"{p}.{k}"]) for p in prefixes for k in ("weight", "bias")
        }
        own = arr(weights["obs_scale"])
    except KeyError as err:
        raise CheckpointError(f"module weights lack {err.args[0]!r}") from None
    params["pi.0.weight"] = params["pi.0.weight"] * (own / np.asarray(scale, np.float32))[None, :]
    return Snapshot(int(step), params, str(model_config.get("activation", "relu")), prefixes)


def export_module(state: Mapping[str, Any], checkpoint: str | Path) -> Path:
    """Write the ``main`` module's weights as ``main_module.safetensors`` in ``checkpoint``."""
    from cardsuite.agents.learned.safe_io import save_tensors

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
    from cardsuite.agents.learned.files import read_json_file

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


class RLlibAgent(PPOAgent):
    """An RLlib checkpoint's ``main`` policy, played by the core's numpy forward pass.

    The module's ``pi`` layers become the core `Snapshot` (`actor_snapshot`:
    its observation scale folded into the first layer), so the agent is the
    training core's `PPOAgent`: same checks at ``reset``, same greedy or
    sampled legal action, no torch and no ray.
    """

    @classmethod
    def load(  # type: ignore[override]
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
        from cardsuite.agents.learned.safe_io import AgentMeta, load_tensors_numpy

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
        if not (folder / SAFE_MODULE_FILE).is_file():
            raise CheckpointError(f"{str(folder)!r} has no {SAFE_MODULE_FILE}; {PICKLE_REFUSAL}")
        weights = load_tensors_numpy(folder / SAFE_MODULE_FILE)
        c = run.config
        snap = actor_snapshot(weights, 0, c.model_config(), spec_scale(c.game, run.options))
        first, last = snap.network.actor[0], snap.network.actor[-1]
        meta = AgentMeta(
            game=c.game, options=dict(run.options), network=snap.network, trainer="rllib-ppo",
            obs_size=int(snap.params[f"{first}.weight"].shape[1]),
            num_actions=int(snap.params[f"{last}.bias"].shape[0]),
        )  # fmt: skip
        return cls(snap.params, meta, deterministic=greedy, seed=seed, name="rllib")
