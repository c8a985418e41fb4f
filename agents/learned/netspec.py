"""The actor network of every trained agent (`NetworkSpec`, an MLP named by state-dict
prefixes) and its numpy forward pass (`actor_logits`, on observations scaled by `obs_scale`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from cardsuite.agents.learned.features import CountInputs
from cardsuite.errors import CheckpointError
from cardsuite.obsspec import ObsSpec

ACTIVATIONS = ("tanh", "relu")

#: The logit of an action past the network's own, at a larger table.
FAR_BELOW = np.float32(-1e30)


@dataclass(frozen=True)
class NetworkSpec:
    """The actor network of an agent: an MLP (``kind``) named by state-dict prefixes.

    Attributes:
        activation: hidden activation, ``"tanh"`` or ``"relu"``.
        actor: state-dict prefixes of the linear layers, input first (the last gives logits).
        obs_scale: ``"obs_spec"`` (each entry over its declared bound, `obs_scale`) or ``"none"``.
        layout: ``"table"`` (one table size's observation), ``"generic"`` (the game's
            size-generic layout) or ``"projected"`` (one table's, projected at the others).
        features: derived inputs after the observation (`CountInputs`), or None.
    """

    activation: str
    actor: tuple[str, ...]
    obs_scale: str = "obs_spec"
    kind: str = "mlp"
    layout: str = "table"
    features: CountInputs | None = None

    @property
    def extra_inputs(self) -> int:
        """Derived inputs the first layer reads after the observation (0 without features)."""
        return 0 if self.features is None else self.features.size


def obs_scale(spec: ObsSpec) -> np.ndarray:
    """Per-entry factors that bring every observation entry into [-1, 1]: one over the larger
    of 1 and its declared bound."""
    low, high = spec.bounds()
    bound = np.maximum(np.maximum(np.abs(low), np.abs(high)), 1.0)
    bound[~np.isfinite(bound)] = 1.0
    return (1.0 / bound).astype(np.float32)


def actor_logits(
    arrays: Mapping[str, np.ndarray], network: NetworkSpec, scaled_obs: np.ndarray
) -> np.ndarray:
    """The actor's action logits for a (scaled) observation or a batch (``network.features``
    appended first); CheckpointError where a layer is missing."""
    x = np.asarray(scaled_obs, dtype=np.float32)
    if network.features is not None:
        x = network.features.extend(x)
    layers = layer_weights(arrays, network.actor)
    for i, (weight, bias) in enumerate(layers):
        x = x @ weight.T + bias
        if i < len(layers) - 1:
            x = np.tanh(x) if network.activation == "tanh" else np.maximum(x, 0.0)
    return np.asarray(x)


def layer_weights(arrays: Mapping[str, Any], actor: tuple[str, ...]) -> list[tuple[Any, Any]]:
    """(weight, bias) of each layer of ``actor``, input first (CheckpointError if one is missing)."""
    try:
        return [(arrays[f"{p}.weight"], arrays[f"{p}.bias"]) for p in actor]
    except KeyError as err:
        raise CheckpointError(f"policy snapshot lacks parameter {err.args[0]!r}") from None


def masked_logits(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``logits`` with illegal actions at ``-inf`` (the mask is never all zero)."""
    return np.where(np.asarray(mask, dtype=bool), logits, -np.inf)


def pick(logits: np.ndarray, mask: np.ndarray, greedy: bool, rng: np.random.Generator) -> Any:
    """The legal action of highest logit, or one sampled from the masked softmax (an int for
    one row, an int64 array for a batch ``[B, A]``)."""
    z = masked_logits(logits, mask)
    if greedy:
        best = np.argmax(z, axis=-1)
        return int(best) if z.ndim == 1 else best.astype(np.int64)
    if z.ndim == 1:
        p = np.exp(z - z.max())
        return int(rng.choice(len(p), p=p / p.sum()))
    gumbel = -np.log(-np.log(rng.uniform(1e-20, 1.0, size=z.shape)))
    return np.argmax(z + gumbel, axis=-1).astype(np.int64)


def actor_prefixes(params: Mapping[str, Any]) -> tuple[str, ...]:
    """The linear layers of an actor's state dict, input first: MaskablePPO's
    ``mlp_extractor.policy_net.{i}`` then ``action_net``, else every ``NAME.{i}`` by ``i``."""
    sb3 = "mlp_extractor.policy_net."
    hidden = {int(n.split(".")[2]) for n in params if n.startswith(sb3) and n.endswith(".weight")}
    if any(name.startswith(sb3) for name in params):
        return (*(f"{sb3}{i}" for i in sorted(hidden)), "action_net")
    prefixes = {name.removesuffix(".weight") for name in params if name.endswith(".weight")}

    def order(prefix: str) -> tuple[str, int]:
        head, _, tail = prefix.rpartition(".")
        return (head, int(tail)) if tail.isdigit() else (prefix, 0)

    return tuple(sorted(prefixes, key=order))


@dataclass(frozen=True)
class Snapshot:
    """A frozen copy of a learner's actor (numpy float32 ``params`` by state-dict name) at
    learner ``step``, for the league and checkpoints; ``actor`` empty: `actor_prefixes`."""

    step: int
    params: Mapping[str, np.ndarray]
    activation: str
    actor: tuple[str, ...] = ()
    features: CountInputs | None = None

    @property
    def network(self) -> NetworkSpec:
        """The actor's spec."""
        return NetworkSpec(self.activation, self.actor or actor_prefixes(self.params),
                           features=self.features)  # fmt: skip

    def layers(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """(weight, bias) of each layer, input first (CheckpointError if one is missing)."""
        return layer_weights(self.params, self.network.actor)

    def inputs(self, scaled_obs: np.ndarray) -> np.ndarray:
        """The network's input (actor's and critic's) of (scaled) observations: themselves."""
        return scaled_obs

    def logits(self, scaled_obs: np.ndarray) -> np.ndarray:
        """Action logits of a (scaled) observation, or a batch of them."""
        return actor_logits(self.params, self.network, scaled_obs)

    def input_map(self, scale: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """How `logits` reads a table's raw observation ``obs`` (handed over as ``obs * scale``),
        as ``(src, factor, const)``: input entry ``j`` is ``obs[src[j]] * factor[j] + const[j]``
        (``src[j] = -1``: ``const[j]`` alone), for the compiled rollouts.

        Raises:
            CheckpointError: the network reads derived inputs (not an affine map).
        """
        if self.features is not None:
            raise CheckpointError(
                "a network with derived inputs (network.features) has no affine input map; "
                "compiled rollouts cannot read it"
            )
        factor = np.asarray(scale, np.float32).reshape(-1).copy()
        return np.arange(factor.size, dtype=np.int64), factor, np.zeros(factor.size, np.float32)

    @classmethod
    def of(
        cls, module: Any, step: int, activation: str, features: CountInputs | None = None
    ) -> Snapshot:
        """Freeze a torch actor (its state dict, copied to numpy)."""
        params = {
            name: t.detach().cpu().numpy().astype(np.float32, copy=True)
            for name, t in module.state_dict().items()
        }
        return cls(step, params, activation, actor_prefixes(params), features)


@dataclass(frozen=True)
class TableView(Snapshot):
    """A network seen at one table (``game``, observation spec ``source``): its scaled
    observations in (`inputs` maps them, in `GenericSnapshot` and `ProjectedSnapshot`),
    its ``table_actions`` logits out."""

    game: str = ""
    source: ObsSpec | None = None
    table_actions: int = 0

    def fit(self, logits: np.ndarray) -> np.ndarray:
        """The network's logits as the table's: cut, or extended by `FAR_BELOW`."""
        have = logits.shape[-1]
        if self.table_actions <= have:
            return logits[..., : self.table_actions]
        far = np.full((*logits.shape[:-1], self.table_actions - have), FAR_BELOW, np.float32)
        return np.concatenate([logits, far], axis=-1)

    def logits(self, scaled_obs: np.ndarray) -> np.ndarray:
        """The table's action logits of a table-scaled observation (or a batch)."""
        return self.fit(actor_logits(self.params, self.network, self.inputs(scaled_obs)))
