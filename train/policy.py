"""A trained MaskablePPO policy as an arena agent (``ppo:PATH``).

:class:`PPOAgent` loads a checkpoint directory written by the trainer (or a
run directory, or a bare ``model.zip``) and plays the policy's masked action
distribution: exactly ``model.predict(obs, action_masks=mask)`` (without the
mask MaskablePPO would happily pick illegal actions), computed by a numpy
copy of the actor network. A torch forward pass for a single observation
costs about 2 ms on one thread, and up to 40 ms on a busy two-core machine
with torch's default threads; the numpy copy costs 0.05 ms, which keeps
tournaments and ``cardsuite play`` fast. The tests check both give the same
actions. The registry builds it for ``ppo:PATH`` specs
through :meth:`PPOAgent.load`; ``cardsuite play`` and ``cardsuite
tournament`` use it like any other agent.

:func:`snapshot_of` freezes the learner's policy network into a numpy
:class:`~train.opponents.Snapshot` for the opponent pool.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite.agents.base import TableInfo
from cardsuite.errors import CheckpointError
from cardsuite.games import get_game
from cardsuite.train.opponents import Snapshot, masked_logits, obs_scale


def resolve_model_file(path: str | Path) -> tuple[Path, dict[str, Any] | None]:
    """The ``model.zip`` behind ``path`` and the checkpoint's config, if any.

    ``path`` may be a ``model.zip``, a checkpoint directory (``model.zip`` +
    ``state.json``) or a run directory (its latest ``checkpoint``).
    """
    from cardsuite.train.checkpoint import find_checkpoint

    p = Path(path)
    if p.is_file():
        return p, None
    ckpt = find_checkpoint(p)
    model = ckpt / "model.zip"
    if not model.is_file():
        raise CheckpointError(f"checkpoint {str(ckpt)!r} has no model.zip")
    try:
        state = json.loads((ckpt / "state.json").read_text(encoding="utf-8"))
        config = state["config"]
    except (OSError, ValueError, KeyError, TypeError):
        raise CheckpointError(
            f"checkpoint {str(ckpt)!r}: state.json is missing or not valid JSON"
        ) from None
    return model, config


class PPOAgent:
    """A MaskablePPO policy playing one seat.

    Args:
        model: the loaded ``MaskablePPO`` model.
        game: the game it was trained on, if known (checked at ``reset``).
        deterministic: play the most likely legal action (default), or sample.
        seed: seeds the sampling when ``deterministic`` is False (``reset``
            reseeds when given a seed).
        name: the agent's display name.
    """

    def __init__(
        self,
        model: Any,
        *,
        game: str | None = None,
        deterministic: bool = True,
        seed: int | None = None,
        name: str = "ppo",
    ) -> None:
        """Wrap a loaded model; the observation scaling is set at ``reset``."""
        self.name = name
        self.model = model
        self.game = game
        self.deterministic = deterministic
        self.seed = seed
        self._scale: np.ndarray | None = None
        self._rng = np.random.default_rng(seed)
        self._actor = snapshot_of(model.policy, int(model.num_timesteps), _activation(model.policy))

    @classmethod
    def load(
        cls,
        path: str | Path,
        game: str | None = None,
        seed: int | None = None,
        *,
        deterministic: bool = True,
    ) -> PPOAgent:
        """Load a checkpoint (directory, run directory or ``model.zip``).

        Raises:
            CheckpointError: nothing loadable at ``path``, or the checkpoint was
                trained on another game than ``game``.
        """
        from sb3_contrib import MaskablePPO

        model_file, config = resolve_model_file(path)
        trained_on = config.get("game") if config else None
        if game is not None and trained_on is not None and get_game(game).name != trained_on:
            raise CheckpointError(
                f"checkpoint {str(path)!r} was trained on {trained_on!r}, not {game!r}"
            )
        try:
            model = MaskablePPO.load(model_file, device="cpu")
        except (OSError, ValueError, KeyError, RuntimeError, EOFError) as err:
            raise CheckpointError(f"cannot load model {str(model_file)!r}: {err}") from None
        except Exception as err:  # zipfile.BadZipFile and pickle errors of a corrupt file
            raise CheckpointError(
                f"cannot load model {str(model_file)!r}: {type(err).__name__}: {err}"
            ) from None
        return cls(model, game=trained_on or game, deterministic=deterministic, seed=seed)

    def reset(self, table: TableInfo, seed: int | None = None) -> None:
        """Check the table matches the model's spaces; seed sampling if asked."""
        obs_shape = self.model.observation_space.shape
        n_actions = int(self.model.action_space.n)
        if self.game is not None and table.game != self.game:
            raise CheckpointError(f"{self.name} was trained on {self.game!r}, not {table.game!r}")
        if obs_shape != (table.obs_spec.size,) or n_actions != table.num_actions:
            raise CheckpointError(
                f"{self.name}: the model expects observations {obs_shape} and {n_actions} "
                f"actions, this table has ({table.obs_spec.size},) and {table.num_actions} "
                "(different rule options or player count)"
            )
        self._scale = obs_scale(table.obs_spec)
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        """The policy's action among the legal ones (the mode, or a sample)."""
        if self._scale is None:
            raise CheckpointError(f"{self.name}: call reset(table) before act()")
        logits = masked_logits(self._actor.logits(observation * self._scale), action_mask)
        if self.deterministic:
            return int(np.argmax(logits))
        p = np.exp(logits - logits.max())
        return int(self._rng.choice(len(p), p=p / p.sum()))


def _activation(policy: Any) -> str:
    """The policy's hidden activation as a snapshot names it."""
    import torch

    if policy.activation_fn is torch.nn.Tanh:
        return "tanh"
    if policy.activation_fn is torch.nn.ReLU:
        return "relu"
    raise CheckpointError(
        f"unsupported activation {policy.activation_fn.__name__}; trained policies use Tanh or ReLU"
    )


def snapshot_of(policy: Any, step: int, activation: str) -> Snapshot:
    """A numpy :class:`Snapshot` of a MaskablePPO policy's actor network."""
    params = {
        name: tensor.detach().cpu().numpy().astype(np.float32, copy=True)
        for name, tensor in policy.state_dict().items()
        if name.startswith("mlp_extractor.policy_net.") or name.startswith("action_net.")
    }
    return Snapshot(step=step, params=params, activation=activation)
