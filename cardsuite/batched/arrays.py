"""The base of every batched engine: N games whose whole state is named arrays.

`ArrayGames` does what every engine of the [`protocol`][cardsuite.batched.protocol]
does the same way (constructor, input and illegal-action checks, ``step``,
restarts, memory accounting). A game's engine names its config class
(``CONFIG``) and state arrays (``STATE_FIELDS``) and fills in the hooks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import numpy as np

from cardsuite.batched.backend import Array, Backend, get_backend
from cardsuite.batched.checks import action_ids, active_flags, check_players
from cardsuite.batched.protocol import StepResult
from cardsuite.config import ConfigBase
from cardsuite.errors import ConfigError, IllegalActionError, UsageError


class ArrayGames:
    """``num_games`` games as arrays with a leading game axis on backend ``xp``.

    Args:
        num_games: N, the number of games held.
        backend: ``"numpy"`` or ``"torch"``.
        device: torch device (``"cpu"``, ``"cuda"``); numpy runs on the CPU.
        autoreset: restart finished games inside `step` (default); with
            ``False`` a finished game stays over, ignores its actions and has an
            all-zero mask until ``reset``.
        game_offset: index of this batch's first game in the deal streams
            (a shard of a larger batch deals exactly as the larger batch does).
        buffers: optional ``(obs [N, obs_dim] float32, mask [N, A] bool)``
            arrays to write into (views of a larger batch's outputs).
        **config: the fields of the game's config (``CONFIG``);
            ``illegal_action``/``illegal_penalty`` do not apply: an illegal
            action raises [`IllegalActionError`][cardsuite.IllegalActionError].
    """

    #: The game's config class; ``**config`` are its fields.
    CONFIG: ClassVar[type[ConfigBase]]
    #: The names of the engine's state arrays (attributes of the instance).
    STATE_FIELDS: ClassVar[tuple[str, ...]] = ()

    xp: Backend
    num_games: int
    num_players: int
    num_actions: int
    obs_dim: int
    obs_spec: Any
    rules: Any
    rewards: Array
    done: Array
    #: ``[N]`` games among ``done`` cut by a limit; ``None`` for a game that never truncates.
    truncated: Array | None = None

    def __init__(
        self,
        num_games: int,
        *,
        backend: str = "numpy",
        device: str | None = None,
        autoreset: bool = True,
        game_offset: int = 0,
        buffers: tuple[Array, Array] | None = None,
        **config: Any,
    ) -> None:
        """Allocate the arrays of ``num_games`` games; call ``reset`` next."""
        if isinstance(num_games, bool) or not isinstance(num_games, int) or num_games < 1:
            raise ConfigError(f"num_games must be a positive integer, got {num_games!r}")
        self.config: Any = self.CONFIG.from_dict(config)
        self.rules = self._compile()
        self.xp = get_backend(backend, device)
        self.num_games = num_games
        self.autoreset = autoreset
        self.game_offset = game_offset
        self.seed: int | None = None
        self.rows = self.xp.arange(num_games)
        self._mask: Array | None = None  # the mask of the last reset or step
        self._build(buffers)

    # ------------------------------------------------------------------ hooks
    def _compile(self) -> Any:
        """The rules compiled from ``self.config``."""
        raise NotImplementedError

    def _build(self, buffers: tuple[Array, Array] | None) -> None:
        """Tables, state arrays and output buffers; sets ``num_players``, ``obs_spec``..."""
        raise NotImplementedError

    def _apply(self, a: Array, live: Array) -> None:
        """Apply actions ``a`` in the ``live`` games (legal, checked)."""
        raise NotImplementedError

    def _restart(self, idx: Any) -> None:
        """Deal new games at indices ``idx``, as autoreset does."""
        raise NotImplementedError

    def _observe(self) -> tuple[Array, Array, Array]:
        """``(obs, mask, to_act)`` of every game; sets ``self._mask``."""
        raise NotImplementedError

    def _running(self) -> Array:
        """``[N]`` bools: the games whose episode is not over."""
        raise NotImplementedError

    def to_act(self) -> Array:
        """``[N]`` player id to act in each game."""
        raise NotImplementedError

    def _observe_players(self, ids: Array) -> Array:
        """A new ``[N, obs_dim]``: game ``g`` as player ``ids[g]`` sees it (ids checked)."""
        raise NotImplementedError

    def observe_as(self, player: Any) -> Array:
        """A new ``[N, obs_dim]`` float32: each game as player id ``player`` (or ``[N]`` ids)
        sees it, bit for bit the env's ``observe``; nothing of the engine changes. A
        finished game (``autoreset=False``) is seen from its final position.

        Raises:
            UsageError: before `reset`, or a bad ``player`` (not ids ``0 .. n-1``).
        """
        if self._mask is None:
            raise UsageError("call reset() before observe_as()")
        ids = check_players(self.xp, player, self.num_games, self.num_players)
        return self._observe_players(ids)

    # ------------------------------------------------------------------ step
    def step(self, actions: Any, active: Any = None) -> StepResult:
        """Apply ``actions[g]`` in every game (or only where ``active``, ``[N]`` bools).

        Raises:
            IllegalActionError: an action of an active, running game is not
                legal, or ``actions`` are not ``N`` whole-number ids; no game
                is changed.
            UsageError: ``active`` is not ``N`` bools.
        """
        xp = self.xp
        if self._mask is None:
            raise IllegalActionError("call reset() before step()")
        a = action_ids(xp, actions, self.num_games)
        live = self._running()
        if active is not None:
            live = live & active_flags(xp, active, self.num_games)
        self._check_actions(a, live)
        self.done[:] = False
        if self.truncated is not None:
            self.truncated[:] = False
        self.rewards[:] = 0.0
        self._apply(a, live)
        if self.autoreset and xp.any(self.done):
            self._restart(xp.nonzero(self.done))
        obs, mask, to_act = self._observe()
        return StepResult(obs, mask, to_act, self.rewards, self.done, self.truncated)

    def _check_actions(self, a: Array, live: Array) -> None:
        """IllegalActionError naming the first live game whose action the mask refuses."""
        xp = self.xp
        inside = (a >= 0) & (a < self.num_actions)
        safe = xp.where(inside, a, 0)
        legal = xp.take_flat(self._mask, self.rows * self.num_actions + safe) & inside
        bad = live & ~legal
        if xp.any(bad):
            g = int(xp.to_numpy(xp.nonzero(bad))[0])
            act = int(xp.to_numpy(a[g : g + 1])[0])
            raise IllegalActionError(
                f"game {g}: {self._who(g)}: illegal action {act} ({self._what(act)}); "
                "check the action mask (no game was changed)"
            )

    def _who(self, g: int) -> str:
        """The player to act in game ``g``, as the illegal-action message names it."""
        return f"player_{int(self.xp.to_numpy(self.to_act()[g : g + 1])[0])}"

    def _what(self, action: int) -> str:
        """An action id in words (out of range too)."""
        return str(self.rules.describe_action(action))

    def _mask_out(self, mask: Array) -> Array:
        """The bool mask buffer as the int8 mask ``reset`` and ``step`` return."""
        return mask.view(np.int8) if self.xp.name == "numpy" else mask.to(self.xp.int8)

    # ------------------------------------------------------------------ state
    def new_arrays(
        self, count: int, shape: tuple[int, ...], dtype: Any, fill: int = 0
    ) -> list[Array]:
        """``count`` new state arrays of ``shape`` and ``dtype``, each filled with ``fill``."""
        return [self.xp.full(shape, fill, dtype) for _ in range(count)]

    def clear(self, rows: Array, *names: str, value: float = 0) -> None:
        """Set the state arrays ``names`` to ``value`` (0, False, 0.0) at ``rows``."""
        for name in names:
            getattr(self, name)[rows] = value

    def load_rows(
        self, count: int, rows: Callable[[], Mapping[str, np.ndarray]], over: int
    ) -> None:
        """Write per-game states into games ``0 .. count-1``; the games after get phase ``over``.

        ``rows()`` gives each state array's rows by name (``[count, ...]``,
        numpy), as the bridges from the per-game engine build them.

        Raises:
            UsageError: ``count`` is more than the engine's games.
        """
        if count > self.num_games:
            raise UsageError(f"load_states: {count} states for an engine of {self.num_games} games")
        for name, arr in rows().items():
            target: Any = getattr(self, name)
            target[:count] = self.xp.asarray(arr, target.dtype)
            if name == "phase":
                target[count:] = over
        flags = ("done", "truncated") if self.truncated is not None else ("done",)
        self.clear(slice(None), "rewards", *flags)

    # ------------------------------------------------------------------ restarts and memory
    def restart_games(self, games: Any) -> tuple[Array, Array, Array]:
        """Restart the games flagged in ``games`` (``[N]`` bools) as autoreset would.

        For a caller that steps with ``autoreset=False`` and reads the final
        observations first (the vector env's ``final_obs``). Returns ``(obs,
        mask, to_act)`` of every game, as after `step`.
        """
        xp = self.xp
        flags = xp.asarray(np.asarray(games, dtype=bool).reshape(-1), xp.bool)
        if xp.any(flags):
            self._restart(xp.nonzero(flags))
        return self._observe()

    def state_arrays(self) -> dict[str, Array]:
        """Every state array by name (for memory accounting and inspection)."""
        return {name: getattr(self, name) for name in self.STATE_FIELDS}

    def buffer_bytes(self) -> int:
        """Bytes of the observation, its staging and the mask (all games)."""
        xp, enc = self.xp, getattr(self, "encoder", None)
        if enc is None:
            return 0
        return int(xp.nbytes(enc.obs) + xp.nbytes(enc.stage) + xp.nbytes(enc.mask_buf))

    def bytes_per_game(self) -> float:
        """Bytes of state and output buffers held per game."""
        xp = self.xp
        total = sum(xp.nbytes(a) for a in self.state_arrays().values())
        return (total + self.buffer_bytes()) / self.num_games
