"""What the three OpenSpiel games share: the state skeleton, the observer, registration.

OpenSpiel clones a Python state by deep-copying its attributes; ours keep everything that
changes in one `Data` whose ``__deepcopy__`` uses the engine's own ``clone`` and shares the
immutable rules. The tensors and strings: ``docs/openspiel.md``.
"""

from __future__ import annotations

import functools
from typing import Any, ClassVar

import numpy as np
import pyspiel

from cardsuite.errors import ConfigError


class Static:
    """The immutable part shared by every state of one game, built once per parameter set.

    Subclasses read their options from ``params`` and set at least ``encoder``, ``history``
    (the length of the information state's action-log piece) and ``chance_nodes`` (the most
    chance nodes in one history).
    """

    encoder: Any
    history: int
    chance_nodes: int

    def __init__(self, params: dict[str, Any]) -> None:
        """Remember the parameters (what a pickled state keeps of its game)."""
        self.params = tuple(sorted(params.items()))


class Data:
    """Everything a state changes; subclasses add their fields.

    ``static`` is the shared `Static`, ``engine`` the engine state once the deal is done.
    Pickled (OpenSpiel's serialisation), it keeps the game parameters and the engine's own
    JSON instead, so no rules object or generator is pickled.
    """

    #: The game's `Static` class and engine module (``clone``, ``to_json``, ``legal_mask``).
    static_class: ClassVar[type[Static]]
    engine_module: ClassVar[Any]
    static: Any
    engine: Any

    def __init__(self, static: Any) -> None:
        """A state's data before the deal (subclasses add their fields)."""
        self.static = static
        self.engine = None
        self.log: list[tuple[int, int, tuple[int, ...] | None]] = []

    @staticmethod
    def over(engine: Any) -> bool:
        """Whether the engine's episode is over."""
        raise NotImplementedError

    def chance(self) -> bool:
        """Whether a chance node is next (the deal is not done)."""
        return self.engine is None

    def finished(self) -> bool:
        """Whether the episode is over."""
        return self.engine is not None and self.over(self.engine)

    def copy(self) -> Data:
        """An independent copy: the engine cloned, lists, arrays and dicts copied, rules shared."""
        out = type(self).__new__(type(self))
        out.__dict__.update({key: _copied(value) for key, value in self.__dict__.items()})
        out.static = self.static
        out.engine = None if self.engine is None else self.engine_module.clone(self.engine)
        return out

    def __deepcopy__(self, memo: dict[int, Any]) -> Data:
        """OpenSpiel's clone deep-copies the state's attributes: use `copy`."""
        return self.copy()

    @classmethod
    @functools.lru_cache(maxsize=48)
    def static_of(cls, params: tuple[tuple[str, Any], ...]) -> Any:
        """The game's immutable part for these parameters (built once, then shared)."""
        return cls.static_class(dict(params))

    def engine_from_json(self, text: str) -> Any:
        """The engine state back from `engine_to_json` (``self.static`` is set)."""
        raise NotImplementedError

    def __getstate__(self) -> dict[str, Any]:
        """Parameters and engine JSON in place of the objects."""
        state = dict(self.__dict__)
        state["static"] = self.static.params
        state["engine"] = None if self.engine is None else self.engine_module.to_json(self.engine)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Rebuild the shared part from the parameters and the engine from its JSON."""
        self.__dict__.update(state)
        self.static = self.static_of(state["static"])
        if state["engine"] is not None:
            self.engine = self.engine_from_json(state["engine"])


def _copied(value: Any) -> Any:
    """A copy of a `Data` field that a state changes in place (tuples are shared)."""
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, list):
        return [x.copy() if isinstance(x, np.ndarray) else x for x in value]
    if isinstance(value, dict):
        return dict(value)
    return value


def uniform(outcomes: Any) -> list[tuple[int, float]]:
    """Chance outcomes, equally likely."""
    outcomes = list(outcomes)
    return [(int(x), 1.0 / len(outcomes)) for x in outcomes]


def by_copies(left: np.ndarray) -> list[tuple[int, float]]:
    """Card slots weighted by the copies ``left`` in the pack."""
    total = float(left.sum())
    return [(int(s), float(left[s]) / total) for s in np.flatnonzero(left)]


def card_names(names: Any, row: np.ndarray) -> list[str]:
    """The cards of a count row (one count per slot) by name, lowest first."""
    return [names[s] for s in np.repeat(np.arange(row.size), row)]


def redeal(dealt: np.ndarray, left: np.ndarray, players: list[int], rng: Any) -> np.ndarray:
    """Deal ``players``' cards in ``dealt`` again, from them and the pack ``left``, in place;
    the pack left after it (a count row)."""
    pool = left + dealt[players].sum(axis=0)
    cards = rng.permutation(np.repeat(np.arange(pool.size), pool))
    start = 0
    for q in players:
        size = int(dealt[q].sum())
        dealt[q] = np.bincount(cards[start : start + size], minlength=pool.size)
        start += size
    return np.bincount(cards[start:], minlength=pool.size).astype(np.int16)


class CardGame(pyspiel.Game):  # type: ignore[misc]
    """What our OpenSpiel games share: a game names its ``game_type``, ``parameters``
    (defaults), ``state_class`` and `utility`; its config checks the options (ConfigError)."""

    game_type: ClassVar[Any]
    parameters: ClassVar[dict[str, Any]]
    state_class: ClassVar[type[CardState]]
    static: Any

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        """Merge ``params`` over the defaults, build the shared part and the game info."""
        params = {**self.parameters, **(params or {})}
        static = self.state_class.data_class.static_of(tuple(sorted(params.items())))
        info = pyspiel.GameInfo(*self.utility(static), static.history)
        super().__init__(self.game_type, info, params)
        self.static = static

    def utility(self, static: Any) -> tuple[int, int, int, float, float, float | None]:
        """Actions, chance outcomes, players, the lowest and highest return and their sum
        (None: not constant) of the game with shared part ``static``."""
        raise NotImplementedError

    def max_chance_nodes_in_history(self) -> int:
        """The most chance nodes in one history (``static.chance_nodes``)."""
        return int(self.static.chance_nodes)

    def new_initial_state(self, *_args: Any) -> CardState:
        """A state before the first chance node."""
        return self.state_class(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        """The observer of the observation or information-state tensors and strings."""
        return Observer(self.static.encoder.spec.size, self.static.history, iig_obs_type)


class CardState(pyspiel.State):  # type: ignore[misc]
    """The part of the three games' states that OpenSpiel's observer reads; subclasses keep
    the player-action log ``self.d.log`` as ``(player, action, seen_by)`` (None: everyone)."""

    data_class: ClassVar[type[Data]]
    d: Any

    def __init__(self, game: CardGame) -> None:
        """The state before the first chance node: a fresh `Data` of the game."""
        super().__init__(game)
        self.d = self.data_class(game.static)

    def current_player(self) -> int:
        """CHANCE while cards are dealt (or drawn), TERMINAL at the end, else the seat to act."""
        if self.d.chance():
            return int(pyspiel.PlayerId.CHANCE)
        if self.d.finished():
            return int(pyspiel.PlayerId.TERMINAL)
        return int(self.d.engine.to_act)

    def is_terminal(self) -> bool:
        """The episode is over."""
        return bool(self.d.finished())

    def _legal_actions(self, player: int) -> list[int]:
        d = self.d
        if d.chance() or d.finished() or player != d.engine.to_act:
            return []
        return [int(a) for a in np.flatnonzero(d.engine_module.legal_mask(d.engine))]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> CardState:
        """A copy whose hidden cards are dealt again consistently with ``player_id``'s view
        (`resample`, seeded from OpenSpiel's sampler)."""
        rng = sampler_rng(probability_sampler)
        out: CardState = self.clone()
        out.resample(int(player_id), rng)
        return out

    def resample(self, me: int, rng: np.random.Generator) -> None:
        """Deal again, in place, the cards ``me`` does not see (the env's ``determinize``)."""
        raise NotImplementedError

    def returns(self) -> list[float]:
        """The env's episode rewards once the episode is over (`final_returns`), zeros before."""
        return self.final_returns() if self.d.finished() else [0.0] * self.num_players()

    def final_returns(self) -> list[float]:
        """The env's rewards of the finished episode."""
        raise NotImplementedError

    def write_observation(self, player: int, out: np.ndarray) -> None:
        """The env's observation vector of ``player`` into ``out`` (zeros during the deal)."""
        if self.d.engine is None:
            out.fill(0.0)
        else:
            self.d.static.encoder.encode(self.d.engine, player, out)

    def observation_text(self, player: int) -> str:
        """``player``'s observation as text."""
        raise NotImplementedError

    def info_text(self, player: int) -> str:
        """``player``'s information state as text (perfect recall)."""
        raise NotImplementedError

    def write_history(self, player: int, out: np.ndarray) -> None:
        """The action log as seen by ``player`` (``docs/openspiel.md``, "What maps to what")."""
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
    """OpenSpiel's ``PyObserver`` protocol over a `CardState`: the observation (``obs_size``
    entries), with ``perfect_recall`` the information state (and the ``history`` piece)."""

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
        self.tensor = np.zeros(obs_size + (history if self.perfect_recall else 0), np.float32)
        self.dict = {"observation": self.tensor[:obs_size]}
        if self.perfect_recall:
            self.dict["history"] = self.tensor[obs_size:]

    def set_from(self, state: CardState, player: int) -> None:
        """Fill the tensor with ``state`` seen by ``player``."""
        state.write_observation(player, self.dict["observation"])
        if self.perfect_recall:
            state.write_history(player, self.dict["history"])

    def string_from(self, state: CardState, player: int) -> str:
        """The information-state or observation text of ``player``."""
        return state.info_text(player) if self.perfect_recall else state.observation_text(player)


def game_type(
    short_name: str, long_name: str, utility: Any, min_players: int, max_players: int,
    parameters: dict[str, Any],
) -> Any:  # fmt: skip
    """The ``pyspiel.GameType`` of one of our games (sequential, explicit chance, imperfect,
    terminal rewards, every observation and information-state string and tensor)."""
    t = pyspiel.GameType
    return t(short_name, long_name, t.Dynamics.SEQUENTIAL, t.ChanceMode.EXPLICIT_STOCHASTIC,
             t.Information.IMPERFECT_INFORMATION, utility, t.RewardModel.TERMINAL, max_players,
             min_players, True, True, True, True, parameters)  # fmt: skip


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
