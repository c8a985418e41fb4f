"""Every public name of 0.2 still imports from its 0.2 module (the 0.3 rebuild, issue 56).

``data/public_names_0_2.json`` lists, per module of the 0.2 tree (``e1ebbb9``),
the names it defined at top level without a leading underscore (functions,
classes, constants), read from the source with ``ast``. Each must resolve from
the old dotted module (a moved module imports as its new home, a moved name
through the module's ``__getattr__``, both with a DeprecationWarning), unless
`GONE` lists it with the reason it could not stay. A `GONE` entry that resolves
again fails too, so the list cannot rot.
"""

from __future__ import annotations

import importlib
import json
import warnings
from pathlib import Path
from types import ModuleType

import pytest

NAMES: dict[str, list[str]] = json.loads(
    (Path(__file__).parent / "data" / "public_names_0_2.json").read_text()
)

_RLLIB_INTERNALS = (
    "0.2's RLlib fast path re-implemented RLlib internals (its own sample batches, GAE, "
    "checkpoint and league plumbing); 0.3 drives RLlib's own PPO through one config "
    "(cardsuite.train.rllib.algorithm) on the core's loop, so this helper has no successor"
)
_ONE_CHECKPOINT = (
    "0.2's per-trainer checkpoint bodies became the core's one writer "
    "(cardsuite.train.core.checkpoint); their format constants and helpers went with them"
)
_PRESET_CHECKS = (
    "the batched engines' preset checks are the shared cardsuite.batched.checks "
    "(preset_array, preset_ints, preset_seating), called by each engine's reset"
)
_LEAKED = "a module, numpy dtype or typing alias bound at module level, never an API of it"


def _each(module: str, names: str, reason: str) -> dict[str, str]:
    return {f"{module}.{name}": reason for name in names.split()}


#: A removed ``module``, or ``module.name`` whose module still imports -> why it is gone.
GONE: dict[str, str] = {
    "scandal_env.batched.rollout.numba": _LEAKED,
    **_each(
        "scandal_env.batched.rollout_policy",
        "net_logits observe_rows",
        "entry points only the tests used; they compare whole rollouts now (play_out_policy)",
    ),
    "scum_env.batched.presets": _PRESET_CHECKS,
    **_each(
        "scum_env.party.batched.hands", "check_scores check_seating check_trade", _PRESET_CHECKS
    ),
    "scum_env.party.batched.hands.float64": _LEAKED,
    "scandal_env.batched.encoding.float64": _LEAKED,
    "scum_env.batched.encoding.EngineArrays": _LEAKED,
    "cardsuite.rgb.CHIP_HIDDEN": "a colour constant nothing used",
    "cardsuite.safe_json.json_depth": (
        "safe_json bounds the depth of the text before parsing it, so the walk over the "
        "parsed value went"
    ),
    "cardsuite.agents.heuristic.heuristic_game": (
        "a game's heuristic is cardsuite.agents.parts.agent_parts(game).heuristic"
    ),
    "cardsuite.agents.ismcts.search_record": (
        "a game's search parts are cardsuite.agents.parts.agent_parts(game).search"
    ),
    "cardsuite.agents.ratings.bootstrap_intervals": (
        "rate() bootstraps with cardsuite.agents.arena.stats.percentile_bootstrap "
        "(scipy.stats.bootstrap) over a batched fit"
    ),
    "cardsuite.train.core.league.snapshot_names": "League.snapshots() lists the members",
    "cardsuite.train.trainer.BudgetSpent": (
        "the budget stop is the core loop's (cardsuite.train.core.loop.TrainLoop), "
        "which ends a run without an exception"
    ),
    "cardsuite.train.safe_io.FLOAT_DTYPES": "the safe reader's dtype table is internal to it",
    "cardsuite.train.checkpoint.OPTIMIZER_FILE": _ONE_CHECKPOINT,
    "cardsuite.train.core.checkpoint.SB3_ZIP_REFUSAL": (
        "the refusal of SB3 zips is the agents layer's (cardsuite.agents.learned.files), "
        "where every agent file is read"
    ),
    "cardsuite.train.dmc.MUST_MATCH": "DMCTrainer.MUST_MATCH (the trainer class declares it)",
    "cardsuite.train.dmc.STATE_VERSION": _ONE_CHECKPOINT,
    **_each(
        "cardsuite.train.ppo_checkpoint",
        "MUST_MATCH STATE_VERSION check_anchor load_checkpoint save_final_agent trainer_meta",
        _ONE_CHECKPOINT,
    ),
    **_each(
        "cardsuite.train.rllib.array_batch", "Rollout gae length train_arrays", _RLLIB_INTERNALS
    ),
    **_each("cardsuite.train.rllib.batched", "build_batched_config env_config", _RLLIB_INTERNALS),
    **_each(
        "cardsuite.train.rllib.batched_env",
        "BASELINES baseline_policy check_baselines make_batched_env",
        _RLLIB_INTERNALS,
    ),
    **_each("cardsuite.train.rllib.batched_ppo", "ROUND sample_arrays", _RLLIB_INTERNALS),
    **_each(
        "cardsuite.train.rllib.checkpoints",
        "evaluate resolve_checkpoint restore save write_core",
        _RLLIB_INTERNALS,
    ),
    "cardsuite.train.rllib.config.RLlibRun": (
        "load_config returns the RLlibTrainConfig itself (run.options is config.env_options())"
    ),
    "cardsuite.train.rllib.config.check_options": "RLlibTrainConfig validates its rule options",
    "cardsuite.train.rllib.env.IllegalActionCounter": _RLLIB_INTERNALS,
    **_each(
        "cardsuite.train.rllib.league",
        "league_names learner_snapshot main_module_id save_league set_table take_outcomes",
        _RLLIB_INTERNALS,
    ),
    **_each("cardsuite.train.rllib.policy", "checkpoint_folder read_run", _RLLIB_INTERNALS),
    **_each(
        "cardsuite.train.rllib.trainer", "OVERRIDE_FLAGS build_config save_path", _RLLIB_INTERNALS
    ),
}

OPTIONAL = {"ray", "torch", "stable_baselines3", "sb3_contrib", "starlette", "pyspiel", "numba"}


def _import(module: str) -> ModuleType | None:
    """The module, None when it was removed; skips when an optional extra is missing."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            return importlib.import_module(module)
    except ModuleNotFoundError as err:
        if err.name and err.name.split(".")[0] in OPTIONAL:
            pytest.skip(f"{module} needs {err.name}")
        return None


@pytest.mark.parametrize("module", sorted(NAMES))
def test_every_0_2_name_resolves_from_its_0_2_module(module: str) -> None:
    """Each listed name resolves from the old module, or GONE says why it cannot."""
    mod = _import(module)
    if mod is None:
        assert module in GONE, f"0.2 module {module} no longer imports and GONE has no reason"
        return
    assert module not in GONE, f"{module} imports again: list its gone names, not the module"
    missing, back = [], []
    for name in NAMES[module]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            found = hasattr(mod, name)
        if not found and f"{module}.{name}" not in GONE:
            missing.append(name)
        if found and f"{module}.{name}" in GONE:
            back.append(name)
    assert not missing, f"{module}: 0.2 names gone without a reason in GONE: {missing}"
    assert not back, f"{module}: names listed in GONE resolve again: {back}"


def test_gone_names_only_names_that_existed() -> None:
    """Every GONE key is a 0.2 module or one of its names (no stale or misspelled entries)."""
    known = set(NAMES) | {f"{m}.{n}" for m, names in NAMES.items() for n in names}
    assert set(GONE) <= known, sorted(set(GONE) - known)


def test_a_moved_name_warns_naming_its_new_home() -> None:
    """Moving keeps the object and tells the caller where it lives now."""
    from cardsuite.train.ppo import update

    ppo = importlib.import_module("cardsuite.train.ppo")
    with pytest.warns(DeprecationWarning, match=r"cardsuite\.train\.ppo\.update\.ppo_update"):
        assert ppo.ppo_update is update.ppo_update
    with pytest.raises(AttributeError, match="no attribute 'never_was'"):
        ppo.never_was  # noqa: B018


def test_batched_scandal_step_still_takes_0_2s_observe_keyword() -> None:
    """``BatchedScandal.step(observe=False)`` (0.2) plays the same move, with a warning."""
    import numpy as np

    from scandal_env.batched import BatchedScandal

    a, b = BatchedScandal(num_games=3), BatchedScandal(num_games=3)
    _, mask, _ = a.reset(seed=5)
    b.reset(seed=5)
    moves = np.argmax(np.asarray(mask), axis=1)
    with pytest.warns(DeprecationWarning, match="observe"):
        old = b.step(moves, observe=False)
    new = a.step(moves)
    assert np.array_equal(np.asarray(old.obs), np.asarray(new.obs))
    assert np.array_equal(np.asarray(a.cur), np.asarray(b.cur))


def test_an_old_module_name_is_the_new_module_never_a_second_copy() -> None:
    """A submodule of a moved package (``cardsuite.agents.web.app``: its package is the new
    one, whose folder holds ``app.py``) is the new module itself: the file runs once."""
    import sys

    import cardsuite.agents.play.web as package
    from cardsuite.agents.play.web import app

    sys.modules.pop("cardsuite.agents.web.app", None)  # as if never imported in this process
    with pytest.warns(DeprecationWarning, match="cardsuite.agents.play.web.app"):
        old = importlib.import_module("cardsuite.agents.web.app")
    assert old is app is sys.modules["cardsuite.agents.web.app"]
    assert package.app is app
