"""``rllib:PATH``: an RLlib-trained policy as an arena agent, without ray, torch or pickle.

A run, checkpoint or agent folder plays as ``ppo:PATH`` does (`TrainedAgent`). An older
cardsuite's checkpoint (``iter_NNNNNN/`` with ``cardsuite_run.json`` and
``main_module.safetensors``, or the folder whose ``LATEST`` names one) is read here; RLlib's
own cloudpickled files are never read (`PICKLE_REFUSAL`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite.agents.learned.files import read_json_file
from cardsuite.agents.learned.netspec import Snapshot, obs_scale
from cardsuite.agents.learned.policy import PPOAgent
from cardsuite.agents.learned.safe_io import AgentMeta, load_tensors_numpy, save_tensors
from cardsuite.agents.learned.size_generic import TrainedAgent
from cardsuite.errors import CheckpointError, ConfigError
from cardsuite.games import get_game

MAIN = "main"
TRAINER = "rllib-ppo"
RUN_RECORD = "cardsuite_run.json"
LATEST = "LATEST"
SAFE_MODULE_FILE = "main_module.safetensors"
MODULE_DIR = Path("learner_group") / "learner" / "rl_module"
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
    weights: Mapping[str, Any], step: int, activation: str, scale: np.ndarray
) -> Snapshot:
    """The core `Snapshot` of a masked PPO module's actor (its ``pi.*`` layers), played on
    observations times ``scale``: the ratio to the module's ``obs_scale`` is folded into the
    first layer."""

    def arr(v: Any) -> np.ndarray:
        return np.array(v.detach().cpu().numpy() if hasattr(v, "detach") else v, np.float32)

    layers = sorted({int(k.split(".")[1]) for k in weights if k.startswith("pi.")})
    prefixes = tuple(f"pi.{i}" for i in layers)
    try:
        params = {
            f"{p}.{k}": arr(weights[f"{p}.{k}"]) for p in prefixes for k in ("weight", "bias")
        }
        own = arr(weights["obs_scale"])
    except KeyError as err:
        raise CheckpointError(f"module weights lack {err.args[0]!r}") from None
    if not prefixes:
        raise CheckpointError("module weights lack the policy layers 'pi.*'")
    params["pi.0.weight"] = params["pi.0.weight"] * (own / np.asarray(scale, np.float32))[None, :]
    return Snapshot(int(step), params, activation, prefixes)


def snapshot_meta(
    snap: Snapshot, game: str, options: Mapping[str, Any], config: Mapping[str, Any] | None = None
) -> AgentMeta:
    """The safe-format metadata of an RLlib module's actor ``snap`` (``trainer: rllib-ppo``)."""
    first, last = snap.network.actor[0], snap.network.actor[-1]
    return AgentMeta(
        game=game, options=dict(options), network=snap.network, step=snap.step, trainer=TRAINER,
        obs_size=int(snap.params[f"{first}.weight"].shape[1]), config=dict(config or {}),
        num_actions=int(snap.params[f"{last}.bias"].shape[0]),
    )  # fmt: skip


def export_module(state: Mapping[str, Any], checkpoint: str | Path) -> Path:
    """Write a module's weights as ``main_module.safetensors`` in ``checkpoint`` (the older
    checkpoints' format, which ``cardsuite export`` writes)."""
    return save_tensors(Path(checkpoint) / SAFE_MODULE_FILE, dict(state))


def legacy_folder(path: str | Path) -> Path | None:
    """The older RLlib checkpoint at ``path`` (itself, or the one ``LATEST`` names), or None.

    Raises:
        CheckpointError: RLlib's pickled files without a run record (`PICKLE_REFUSAL`).
    """
    p = Path(path)
    if (p / LATEST).is_file():
        name = (p / LATEST).read_text(encoding="utf-8").strip()
        if not name or "/" in name or name.startswith("."):
            raise CheckpointError(f"{p / LATEST}: names no checkpoint folder")
        p = p / name
    if (p / RUN_RECORD).is_file():
        return p
    if (p / "class_and_ctor_args.pkl").is_file() or (p / MODULE_DIR).is_dir():
        raise CheckpointError(f"{str(p)!r}: no {RUN_RECORD}; {PICKLE_REFUSAL}")
    return None


def read_record(folder: Path) -> dict[str, Any]:
    """An older checkpoint's run record: ``game``, ``options``, ``config`` (the fields read
    here checked), ``iteration``."""
    where = f"{folder / RUN_RECORD}"
    record = read_json_file(folder / RUN_RECORD, where)
    if not isinstance(record, dict):
        raise CheckpointError(f"{where}: expected a JSON object")
    for name, kind in (("game", str), ("options", dict), ("config", dict)):
        if not isinstance(record.get(name), kind):
            raise CheckpointError(f"{where}: field {name!r} must be a {kind.__name__}")
    config = record["config"]
    bad = [k for k in ("hidden_size", "hidden_layers", "hidden", "layers")
           if k in config and (type(config[k]) is not int or config[k] < 1)]  # fmt: skip
    if bad or config.get("activation", "relu") not in ("relu", "tanh"):
        raise CheckpointError(f"{where}: field 'config' is invalid: {(bad or ['activation'])[0]}")
    try:
        get_game(record["game"]).config_class().from_dict(record["options"])
    except ConfigError as err:
        raise CheckpointError(f"{where}: field 'options' is invalid: {err}") from None
    return record


class RLlibAgent(PPOAgent):
    """The ``rllib:PATH`` kind: a run's learner, played by the core's numpy forward pass."""

    @classmethod
    def load(  # type: ignore[override]
        cls, path: str | Path, game: str | None = None, seed: int | None = None, *,
        module_id: str = MAIN, greedy: bool = True,
    ) -> PPOAgent:  # fmt: skip
        """Load the policy at ``path`` (module doc) for ``game``, greedy unless ``greedy=False``.

        Raises:
            CheckpointError: nothing loadable, refused pickles, or another game.
        """
        if module_id != MAIN:
            raise CheckpointError(f"{path}: only the {MAIN!r} module is saved, not {module_id!r}")
        folder = legacy_folder(path)
        if folder is None:
            agent = TrainedAgent.load(path, game, seed, deterministic=greedy)
            agent.name = "rllib"
            return agent
        record = read_record(folder)
        if game is not None and get_game(game).name != record["game"]:
            raise CheckpointError(
                f"{path}: the checkpoint was trained on {record['game']!r}, not {game!r}"
            )
        if not (folder / SAFE_MODULE_FILE).is_file():
            raise CheckpointError(f"{str(folder)!r} has no {SAFE_MODULE_FILE}; {PICKLE_REFUSAL}")
        activation = str(record["config"].get("activation", "relu"))
        scale = spec_scale(record["game"], record["options"])
        snap = actor_snapshot(load_tensors_numpy(folder / SAFE_MODULE_FILE), 0, activation, scale)
        meta = snapshot_meta(snap, record["game"], record["options"])
        return cls(snap.params, meta, deterministic=greedy, seed=seed, name="rllib")
