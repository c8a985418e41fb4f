"""The training side of learned agents: torch loaders, a MaskablePPO policy's metadata and
snapshot, card-counting inputs (0.2's names that stay with the agents resolve, with a warning)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from cardsuite.agents.learned import features as _features
from cardsuite.agents.learned import files as _files
from cardsuite.agents.learned import meta as _meta
from cardsuite.agents.learned import netspec as _netspec
from cardsuite.agents.learned import policy as _policy
from cardsuite.agents.learned import safe_io as _safe_io
from cardsuite.agents.learned.features import FEATURES, CountInputs
from cardsuite.agents.learned.layout import generic_spec, layout_of
from cardsuite.agents.learned.netspec import NetworkSpec, Snapshot, actor_prefixes
from cardsuite.agents.learned.safe_io import (
    MAX_WEIGHTS_BYTES,
    AgentMeta,
    load_agent_numpy,
    load_tensors_numpy,
)
from cardsuite.errors import CheckpointError, ConfigError
from cardsuite.moved import moved_name

SB3_TRAINER = "sb3-maskable-ppo"


def __getattr__(name: str) -> Any:
    """A 0.2 name of ``cardsuite.train.{policy,safe_io,core.features}`` from its home (PEP 562)."""
    homes = (_netspec, _meta, _files, _features, _safe_io, _policy)
    found = [h for h in homes if not name.startswith("_") and hasattr(h, name)]
    return moved_name(__name__, name, {name: found[0]} if found else {})


def load_tensors(path: str | Path, limit: int = MAX_WEIGHTS_BYTES) -> dict[str, Any]:
    """Tensors of a safetensors file as torch tensors (`load_tensors_numpy`'s checks)."""
    import torch  # optional heavy dependency: loaded by the trainers only

    return {k: torch.from_numpy(np.array(v)) for k, v in load_tensors_numpy(path, limit).items()}


def load_agent(
    directory: str | Path, *, limit: int = MAX_WEIGHTS_BYTES
) -> tuple[dict[str, Any], AgentMeta]:
    """Load an agent directory as torch tensors (same checks as `load_agent_numpy`)."""
    import torch  # optional heavy dependency: loaded by the trainers only

    arrays, meta = load_agent_numpy(directory, limit=limit)
    return {k: torch.from_numpy(np.array(v)) for k, v in arrays.items()}, meta


def policy_activation(policy: Any) -> str:
    """A MaskablePPO policy's hidden activation as a snapshot names it."""
    import torch  # optional heavy dependency: loaded by the trainers only

    names = {torch.nn.Tanh: "tanh", torch.nn.ReLU: "relu"}
    if policy.activation_fn not in names:
        raise CheckpointError(
            f"unsupported activation {policy.activation_fn.__name__}; trained policies use Tanh or ReLU"
        )
    return names[policy.activation_fn]


def agent_meta(
    policy: Any, *, game: str, options: Mapping[str, Any], step: int, config: Mapping[str, Any]
) -> AgentMeta:
    """The safe-format metadata of a MaskablePPO ``policy`` (MLP, obs_spec scaling)."""
    state = policy.state_dict()
    return AgentMeta(
        game=game,
        options=dict(options),
        obs_size=int(policy.observation_space.shape[0]),
        num_actions=int(policy.action_space.n),
        network=NetworkSpec(activation=policy_activation(policy), actor=actor_prefixes(state)),
        step=int(step),
        trainer=SB3_TRAINER,
        config=dict(config),
    )


def snapshot_of(policy: Any, step: int, activation: str) -> Snapshot:
    """A numpy `Snapshot` of a MaskablePPO policy's actor network."""
    params = {
        name: tensor.detach().cpu().numpy().astype(np.float32, copy=True)
        for name, tensor in policy.state_dict().items()
        if name.startswith("mlp_extractor.policy_net.") or name.startswith("action_net.")
    }
    return Snapshot(step, params, activation, actor_prefixes(params))


def table_features(
    name: str, game: Any, eng: Any, players: int, scale: np.ndarray, generic: str = ""
) -> CountInputs | None:
    """A trainer's derived inputs ``name`` (its ``features`` field; None for ``""``) at a
    table of ``game`` (a `TrainGame`) with engine ``eng``; ``generic`` (the game's name, or
    empty): the network reads the size-generic layout, so they serve every table size."""
    if not name:
        return None
    if name not in FEATURES:
        raise ConfigError(f"field 'features': must be one of {('', *FEATURES)}, got {name!r}")
    heuristic = game.heuristic(eng)
    if not generic:
        # a Party of several tables: the sizes its tables can have (P2), not its player count
        sizes = sorted(set(getattr(getattr(heuristic, "config", None), "sizes", ()) or ()))
        return count_inputs(heuristic, eng.obs_spec, players, scale, sizes)
    sizes = list(range(layout_of(generic).min_seats, layout_of(generic).max_seats + 1))
    return count_inputs(heuristic, generic_spec(generic), players, scale, sizes)


def count_inputs(
    heuristic: Any, obs_spec: Any, players: int, scale: np.ndarray, sizes: Any = ()
) -> CountInputs:
    """The `CountInputs` of a Scum or Scum Party table: ``heuristic`` (the table's batched
    heuristic) gives the deck, the specials and the round-ending slots, ``scale`` the factors
    of the network's inputs, ``sizes`` the table sizes a row may come from (where their decks
    differ, each row's deck is its size's).

    Raises:
        ConfigError: the game has no card-counting inputs (naming ``features``).
    """
    sizes = tuple(sizes)
    multi = hasattr(heuristic, "policy_for")
    rules = heuristic.policy_for(sizes[0] if sizes else players) if multi else heuristic
    slices = getattr(obs_spec, "slices", {})
    need = {"hand", "played"} | ({"seats"} if len(sizes) > 1 else set())
    if not all(hasattr(rules, k) for k in ("deck", "special", "ends")) or not need <= set(slices):
        raise ConfigError(
            "field 'features': card-counting inputs ('counts') exist for Scum and Scum Party only"
        )
    hand, played = slices["hand"], slices["played"]
    factors = np.asarray(scale, np.float32).reshape(-1)
    extra: dict[str, Any] = {}
    deck = tuple(int(v) for v in rules.deck)
    every = [heuristic.policy_for(n) if multi else heuristic for n in sizes]
    decks = [tuple(int(v) for v in r.deck) for r in every]
    if len(set(decks)) > 1:
        if any(tuple(map(bool, r.special)) != tuple(map(bool, rules.special))
               or tuple(map(bool, r.ends)) != tuple(map(bool, rules.ends)) for r in every):  # fmt: skip
            raise ConfigError(
                "field 'features': the table sizes' decks differ in more than their counts"
            )
        deck = tuple(int(v) for v in np.max(np.asarray(decks), axis=0))
        seats = slices["seats"]
        extra = {"sized": tuple(zip(sizes, decks, strict=True)),
                 "seats": (int(seats.start), int(seats.stop)),
                 "seats_scale": float(factors[seats.start])}  # fmt: skip
    return CountInputs(
        hand=(int(hand.start), int(hand.stop)),
        played=(int(played.start), int(played.stop)),
        hand_scale=tuple(float(v) for v in factors[hand]),
        played_scale=tuple(float(v) for v in factors[played]),
        deck=deck,
        special=tuple(bool(v) for v in rules.special),
        ends=tuple(bool(v) for v in rules.ends),
        **extra,
    )
