"""What the three OpenSpiel games share: the state skeleton, the observer, registration.

An OpenSpiel Python state is cloned by deep-copying every attribute of its
``__dict__`` (OpenSpiel's ``PyState::Clone``). Our states keep everything that
changes in one `Data` object whose ``__deepcopy__`` uses the engine's
own ``clone`` and shares the immutable rules, so a clone costs what an engine
clone costs.

Tensors (`Observer`):

* the *observation* tensor is the env's observation vector, written by the
  game's encoder (the same numbers as ``env.observe(agent)["observation"]``);
* the *information-state* tensor is that vector followed by the player
  actions so far, one entry each: ``action id + 1``, ``-1`` for a move the
  player did not see (a Scum give-back between two others), ``0`` after the
  last move.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from cardsuite.errors import ConfigError


class Data:
    """Everything a state changes; subclasses add their fields and copy them.

    ``static`` is the game's immutable part (config, rules, encoder; built by
    ``static_of(params)``), ``engine`` the engine state once the deal is done.
    OpenSpiel serialises a Python state by pickling its attributes; a
    `Data` pickles the game parameters and the engine's own JSON
    (``to_json``) in their place, so no rules object or generator is pickled.
    """

    static: Any
    engine: Any

    def copy(self) -> Data:
        """An independent copy (the engine state cloned, the rules shared)."""
        raise NotImplementedError

    def __deepcopy__(self, memo: dict[int, Any]) -> Data:
        """OpenSpiel's clone deep-copies the state's attributes: use `copy`."""
        return self.copy()

    @staticmethod
    def static_of(params: tuple[tuple[str, Any], ...]) -> Any:
        """The game's immutable part for these parameters (cached by the subclass)."""
        raise NotImplementedError

    def engine_to_json(self) -> str:
        """The engine state as the engine's JSON text."""
        raise NotImplementedError

    def engine_from_json(self, text: str) -> Any:
        """The engine state back from `engine_to_json` (``self.static`` is set)."""
        raise NotImplementedError

    def __getstate__(self) -> dict[str, Any]:
        """Parameters and engine JSON in place of the objects."""
        state = dict(self.__dict__)
        state["static"] = self.static.params
        state["engine"] = None if self.engine is None else self.engine_to_json()
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Rebuild the shared part from the parameters and the engine from its JSON."""
        self.__dict__.update(state)
        self.static = self.static_of(state["static"])
        if state["engine"] is not None:
            self.engine = self.engine_from_json(state["engine"])


class CardGame(pyspiel.Game):  # type: ignore[misc]
    """What every one of our OpenSpiel games shares; ``static`` is its immutable part."""

    static: Any

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        """The observer of the observation or information-state tensors and strings."""
        return Observer(self.static.encoder.spec.size, self.static.history, iig_obs_type)


class CardState(pyspiel.State):  # type: ignore[misc]
    """The part of the three games' states that OpenSpiel's observer reads.

    Subclasses implement `write_observation`, `observation_text`,
    `info_text` and keep the player-action log ``self.d.log`` as
    ``(player, action, seen_by)`` triples (``seen_by`` ``None`` = everyone).
    """

    d: Any

    def write_observation(self, player: int, out: np.ndarray) -> None:
        """Write ``player``'s observation vector into ``out``."""
        raise NotImplementedError

    def observation_text(self, player: int) -> str:
        """``player``'s observation as text."""
        raise NotImplementedError

    def info_text(self, player: int) -> str:
        """``player``'s information state as text (perfect recall)."""
        raise NotImplementedError

    def write_history(self, player: int, out: np.ndarray) -> None:
        """The action log as seen by ``player`` (see the module docstring)."""
        out.fill(0.0)
        for i, (_who, action, seen_by) in enumerate(self.d.log[: out.size]):
            out[i] = action + 1 if seen_by is None or player in seen_by else -1

    def log_text(self, player: int) -> str:
        """The action log as seen by ``player``, as text."""
        return " ".join(
            f"{who}:{action if seen_by is None or player in seen_by else '?'}"
            for who, action, seen_by in self.d.log
        )


class Observer:
    """OpenSpiel's ``PyObserver`` protocol over a `CardState`.

    Args:
        obs_size: length of the env's observation vector.
        history: length of the action-log piece (information state only).
        iig_obs_type: OpenSpiel's observation type; ``perfect_recall`` selects
            the information state, otherwise the default observation.
    """

    def __init__(self, obs_size: int, history: int, iig_obs_type: Any) -> None:
        """Lay out the tensor's pieces for the requested observation type."""
        if not isinstance(iig_obs_type, pyspiel.IIGObservationType):
            iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or (
            not iig_obs_type.public_info
        ):
            raise ConfigError(
                "cardsuite's OpenSpiel games observe one player's view (public and own "
                "private information) only"
            )
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        pieces = [("observation", obs_size)]
        if self.perfect_recall:
            pieces.append(("history", history))
        self.tensor = np.zeros(sum(size for _, size in pieces), np.float32)
        self.dict: dict[str, np.ndarray] = {}
        start = 0
        for name, size in pieces:
            self.dict[name] = self.tensor[start : start + size]
            start += size

    def set_from(self, state: CardState, player: int) -> None:
        """Fill the tensor with ``state`` seen by ``player``."""
        state.write_observation(player, self.dict["observation"])
        if self.perfect_recall:
            state.write_history(player, self.dict["history"])

    def string_from(self, state: CardState, player: int) -> str:
        """The information-state or observation text of ``player``."""
        if self.perfect_recall:
            return state.info_text(player)
        return state.observation_text(player)


def game_type(
    short_name: str,
    long_name: str,
    *,
    utility: Any,
    min_players: int,
    max_players: int,
    parameters: dict[str, Any],
) -> Any:
    """The ``pyspiel.GameType`` of one of our games (sequential, explicit chance, imperfect)."""
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max_players,
        min_num_players=min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameters,
    )


def sampler_rng(probability_sampler: Any) -> np.random.Generator:
    """A numpy generator seeded from OpenSpiel's ``[0, 1)`` sampler (or a generator)."""
    if isinstance(probability_sampler, np.random.Generator):
        return probability_sampler
    if probability_sampler is None:
        return np.random.default_rng()
    draws = [float(probability_sampler()) for _ in range(2)]
    return np.random.default_rng([int(x * 2**53) for x in draws])


def game_options(params: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    """The config options among OpenSpiel's game parameters (``players`` -> ``num_players``)."""
    out = {name: params[name] for name in names if name in params}
    if "players" in params:
        out["num_players"] = int(params["players"])
    return out
