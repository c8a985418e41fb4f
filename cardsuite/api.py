"""The top-level API: ``cardsuite.make``, ``make_vec``, ``load_agent``, ``play``, ``tournament``.

A newcomer's first hour. ``make`` takes a game's registry name (``"scum"``) and its rule
options as keywords (its config's fields, ``num_players=5``); the others read both from an
env, or take them the same way:

```python
import cardsuite

env = cardsuite.make("scum", num_players=5)            # the PettingZoo AEC env
engine = cardsuite.make_vec("scum", 1024)              # 1024 games as arrays
agent = cardsuite.load_agent("pretrained:scum4", env=cardsuite.make("scum"))  # ready to act
returns = cardsuite.play(env, ["heuristic"] * 5, seed=0)  # one episode's returns per seat
result = cardsuite.tournament(env, ["heuristic", "random"], games=20)
```

Importing ``cardsuite`` also registers one Gymnasium id per game for the
single-seat view of a table (the other seats play inside the env), for
Stable-Baselines3 and other single-agent libraries:
``gymnasium.make("cardsuite/ScumSingle-v0")``,
``"cardsuite/ScumPartySingle-v0"``, ``"cardsuite/ScandalSingle-v0"``.

This module is the one place of the core that reaches up into the agents
and training layers, and only inside its functions, when called: importing
``cardsuite`` never imports them, nor torch.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from cardsuite.config import ConfigBase
from cardsuite.errors import ConfigError
from cardsuite.games import ENTRY_POINT_GROUP, game_of_env, get_game

__all__ = [
    "game_options",
    "gymnasium_ids",
    "load_agent",
    "make",
    "make_vec",
    "play",
    "single_seat_env",
    "tournament",
]


def game_options(game: str, preset: str | None = None, **options: Any) -> dict[str, Any]:
    """The rule options of a preset (by name or path) with ``options`` over them.

    Args:
        game: the game's registry name.
        preset: a rule preset shipped in the package, by name
            (``"scum/six_players"``, or ``"six_players"`` for the game's own),
            or a YAML file; ``None`` for the defaults.
        **options: rule options that win over the preset's.

    Raises:
        ConfigError: an unknown preset, key or value (named).
    """
    if preset is None:
        return dict(options)
    spec = get_game(game)
    name = (
        preset if "/" in preset or preset.endswith((".yaml", ".yml")) else f"{spec.name}/{preset}"
    )
    base = spec.config_class().from_yaml(name).to_dict()
    return {**base, **options}


def make(
    game: str,
    *,
    preset: str | None = None,
    raw: bool = False,
    render_mode: str | None = None,
    **options: Any,
) -> Any:
    """The game's PettingZoo AEC env.

    Args:
        game: the game's registry name (``"scum"``, ``"scum_party"``, ``"scandal"``).
        preset: rule preset by name (``"six_players"``, ``"scum/carousel"``) or YAML
            file; ``options`` win over it.
        raw: return ``raw_env`` (an illegal action raises `IllegalActionError`)
            instead of ``env`` (an illegal action is penalized and ends the episode).
        render_mode: ``"ansi"``, ``"human"`` or ``"rgb_array"``.
        **options: the game's rule options (fields of its config), e.g.
            ``num_players=5``.

    Returns:
        The env; call ``reset(seed=...)`` before playing.

    Raises:
        ConfigError: an unknown game, preset, option or a bad value (named).
    """
    opts = game_options(game, preset, **options)
    return get_game(game).make(raw=raw, render_mode=render_mode, **opts)


def make_vec(
    game: str,
    num_envs: int,
    backend: str = "numpy",
    *,
    device: str | None = None,
    learner: int | None = None,
    opponents: Any = None,
    seed: int = 0,
    preset: str | None = None,
    **options: Any,
) -> Any:
    """``num_envs`` games of ``game`` as arrays: the batched engine, or a vector env.

    Without ``learner`` this is the game's batched engine
    (`BatchedScum`, `BatchedParty` or `BatchedScandal`): ``reset(seed)`` and
    ``step(actions)`` move every game at once, for every seat (see
    ``docs/batched.md``). With ``learner`` it is a Gymnasium ``VectorEnv``
    of that one seat ([BatchedVectorEnv][cardsuite.batched.vector_env.BatchedVectorEnv]),
    the other seats played inside the batch by ``opponents``.

    Args:
        game: the game's registry name.
        num_envs: how many games (a positive integer).
        backend: ``"numpy"`` (CPU) or ``"torch"`` (CPU or GPU, needs torch).
        device: the torch device (``"cuda"``); only with ``backend="torch"``.
        learner: the player id of the learning seat, to get a vector env.
        opponents: the batch policy (or one per player id) of the other seats
            of the vector env; default uniform random.
        seed: the vector env's default reset seed.
        preset: rule preset by name or file, as for [make][cardsuite.api.make].
        **options: the game's rule options, as for [make][cardsuite.api.make].

    Raises:
        ConfigError: an unknown game, backend, option or value, or a bad
            ``num_envs`` or ``learner``.
    """
    cls = get_game(game).batched_class()
    if backend not in ("numpy", "torch"):
        raise ConfigError(f"backend must be 'numpy' or 'torch', got {backend!r}")
    engine = cls(num_envs, backend=backend, device=device, **game_options(game, preset, **options))
    if learner is None:
        if opponents is not None:
            raise ConfigError("opponents play the other seats of a vector env: give learner too")
        return engine
    from cardsuite.batched.vector_env import BatchedVectorEnv

    return BatchedVectorEnv(engine, learner=learner, opponents=opponents, seed=seed)


def _env_table(
    env: Any, game: str | None = None, preset: str | None = None, **options: Any
) -> tuple[str, dict[str, Any]]:
    """The game name and every rule option of ``env`` (a cardsuite env).

    Raises:
        ConfigError: ``env`` is not a cardsuite env, or ``game``, ``preset``'s options or
            ``options`` (what the caller also named) contradict it, named.
    """
    config = getattr(getattr(env, "unwrapped", None), "config", None)
    if not isinstance(config, ConfigBase):
        raise ConfigError(
            f"env: expected a cardsuite env (cardsuite.make(game)), got {type(env).__name__}"
        )
    name = game_of_env(env).name
    if game is not None and get_game(game).name != name:
        raise ConfigError(
            f"game={game!r} contradicts the env, a {name} table; leave game out with env="
        )
    asked = game_options(name, preset, **options)
    wanted = config.replace(**asked) if asked else config
    for key, value in asked.items():
        given = key in options  # else the preset's; its illegal-action policy is not a rule
        if getattr(wanted, key) != getattr(config, key) and (given or "illegal" not in key):
            raise ConfigError(
                f"{key}={value!r}{'' if given else f' (preset {preset!r})'} contradicts the "
                f"env, whose {key} is {getattr(config, key)!r}; leave it out with env="
            )
    return name, config.to_dict()


def load_agent(
    spec: str,
    game: str | None = None,
    *,
    env: Any = None,
    seat: int | str = 0,
    seed: int | None = None,
    preset: str | None = None,
    **options: Any,
) -> Any:
    """Build any agent spec and seat it at a table, ready to ``act``.

    The spec is what the command line takes: ``"heuristic"``,
    ``"ismcts:budget=200"``, ``"pretrained:scum4"``, ``"ppo:RUN/agent"``,
    ``"my_agent.py:MyAgent"`` (see ``docs/agents.md``). The agent is held to
    its table and seat: acting on another table's observation or for another
    seat is a `TableMismatchError` naming both.

    Args:
        spec: the agent spec.
        game: the game's registry name; with ``env``, leave it out.
        env: the env the agent sits at: its game and every rule option are read from it.
        seat: the seat the agent sits at (a player index or name).
        seed: seeds the agent's own choices.
        preset: rule preset of the table by name or file, as for [make][cardsuite.api.make].
        **options: the game's rule options of the table (e.g. ``num_players=6``).

    Returns:
        A [SeatedAgent][cardsuite.agents.base.SeatedAgent]: call ``agent.act(observation,
        action_mask, info)`` with what the env gives its seat and ``info={"agent": name}``.

    Raises:
        ConfigError: an unknown kind, parameter, seat or option; no game nor env; a game or
            option that contradicts ``env``.
        TableMismatchError: an agent that cannot sit at this table, or later acts at
            another table or seat.
        CheckpointError: a ``ppo:`` path that does not exist or cannot be loaded.
    """
    from cardsuite.agents.base import SeatedAgent, seat_name, table_info
    from cardsuite.agents.registry import make_agent

    if env is not None:
        name, _ = _env_table(env, game, preset, **options)
    elif game is None:
        raise ConfigError("load_agent needs its table: env=ENV, or a game name and its options")
    else:
        name = get_game(game).name
        env = make(name, preset=preset, **options)
    table = table_info(env, name, seat_name(env.possible_agents, seat))
    agent = make_agent(spec, name, seed=seed)
    agent.reset(table, seed=seed)
    return SeatedAgent(agent, table)


def play(env: Any, agents: Sequence[Any] | Mapping[str, Any], *, seed: int | None = None) -> Any:
    """Play one episode of ``env`` and return every seat's return.

    Args:
        env: a cardsuite env ([make][cardsuite.api.make]); it is reset with ``seed``.
        agents: one per seat: a sequence in seat order, or a mapping seat name -> agent.
            An agent is an `Agent` object or a spec string (loaded with
            ``load_agent(spec, env=env, seat=...)``); an object given at several seats
            plays a copy at each after the first.
        seed: seeds the deal and the agents (their seeds derived from it); None: fresh.

    Returns:
        The episode's return (summed rewards) of each seat name.

    Raises:
        ConfigError: not a cardsuite env, a wrong number of agents, an unknown or missing
            seat, or something that is neither an agent nor a spec (named).
        TableMismatchError: an agent that cannot sit at this table.
    """
    from cardsuite.agents.arena.tournament import derive_seed
    from cardsuite.agents.base import by_seat, play_episode

    _env_table(env)
    seats = list(env.possible_agents)
    seeds = {s: None if seed is None else derive_seed(seed, 1, i) for i, s in enumerate(seats)}
    players = {
        s: load_agent(a, env=env, seat=s, seed=seeds[s]) if isinstance(a, str) else a
        for s, a in by_seat(agents, seats).items()
    }
    return play_episode(env, players, seed=seed, agent_seeds=seeds)


def tournament(
    game: str | Any,
    agents: Sequence[Any],
    *,
    games: int = 100,
    duplicate: bool = False,
    seed: int = 0,
    workers: int = 1,
    progress: bool = False,
    record: str | Path | None = None,
    reset_options: Mapping[str, Any] | None = None,
    preset: str | None = None,
    **options: Any,
) -> Any:
    """Play a tournament of ``agents`` at ``game`` and return its results.

    Args:
        game: the game's registry name, or an env: its game and every rule option.
        agents: at least two agent specs or agent objects (the same twice is allowed).
        games: games to play (with ``duplicate``: deals, each played in every
            rotation of the agents over the seats).
        duplicate: duplicate deals (much tighter comparisons).
        seed: the master seed; the results depend only on it.
        workers: worker processes (the results do not depend on it).
        progress: show a progress bar.
        record: write every game as a JSON line to this new file.
        reset_options: deal presets passed to every ``env.reset(options=...)``.
        preset: rule preset by name or file, as for [make][cardsuite.api.make].
        **options: the game's rule options, e.g. ``num_players=4``.

    Returns:
        The [TournamentResult][cardsuite.agents.arena.results.TournamentResult]:
        per-agent win shares, mean rewards and ranks with intervals, ratings.

    Raises:
        ConfigError: a bad spec, option or count (named).
    """
    from cardsuite.agents.arena.tournament import run_tournament

    if isinstance(game, str):
        rules = game_options(game, preset, **options)
    else:
        game, rules = _env_table(game, None, preset, **options)
    return run_tournament(
        game,
        list(agents),
        games=games,
        options=rules,
        duplicate=duplicate,
        seed=seed,
        workers=workers,
        record=record,
        progress=progress,
        reset_options=dict(reset_options) if reset_options is not None else None,
    )


def single_seat_env(
    game: str,
    *,
    opponents: str | Mapping[str, float] = "random",
    learner_seat: int | None = None,
    render_mode: str | None = None,
    preset: str | None = None,
    **options: Any,
) -> Any:
    """One seat of ``game`` as a ``gymnasium.Env``; the other seats play inside.

    The entry point of the ``cardsuite/<Game>Single-v0`` Gymnasium ids
    ([SelfPlayEnv][cardsuite.train.sb3.single_seat.SelfPlayEnv], no torch needed):
    observations are scaled into [-1, 1], ``action_masks()`` gives the legal
    actions (what sb3-contrib's ``MaskablePPO`` calls), and a step's reward is
    the seat's own reward since its previous decision.

    Args:
        game: the game's registry name.
        opponents: ``"random"``, ``"heuristic"``, or draw probabilities such as
            ``{"random": 0.5, "heuristic": 0.5}`` (one drawn per seat and episode).
        learner_seat: a fixed seat, or ``None`` to rotate over the seats.
        render_mode: ``"ansi"`` for a text table.
        preset: rule preset by name or file, as for [make][cardsuite.api.make].
        **options: the game's rule options.

    Raises:
        ConfigError: an unknown game, option, opponent kind or seat.
    """
    from cardsuite.train.sb3.single_seat import SelfPlayEnv, fixed_seats

    name = get_game(game).name
    probs = {opponents: 1.0} if isinstance(opponents, str) else dict(opponents)
    unknown = sorted(set(probs) - {"random", "heuristic"})
    if unknown:
        raise ConfigError(
            f"opponents: unknown kind {unknown[0]!r}; use 'random', 'heuristic' or "
            "a mapping of their probabilities"
        )
    return SelfPlayEnv(
        name,
        game_options(name, preset, **options),
        league=fixed_seats(probs),
        learner_seat=learner_seat,
        render_mode=render_mode,
    )


def _gym_name(game: str) -> str:
    """``scum_party`` -> ``cardsuite/ScumPartySingle-v0``."""
    return "cardsuite/" + "".join(w.capitalize() for w in game.split("_")) + "Single-v0"


def gymnasium_ids() -> dict[str, str]:
    """The registered Gymnasium id of each installed game's single-seat env."""
    names = sorted({ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)})
    return {name: _gym_name(name) for name in names}


def register_gymnasium() -> None:
    """Register every game's single-seat env with Gymnasium (done by ``import cardsuite``).

    Reads only the entry points' names: no game package is imported until
    ``gymnasium.make`` builds an env.
    """
    import gymnasium

    for game, env_id in gymnasium_ids().items():
        if env_id not in gymnasium.registry:
            gymnasium.register(
                env_id, entry_point="cardsuite.api:single_seat_env", kwargs={"game": game}
            )
