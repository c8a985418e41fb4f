"""PPO's duplicate baseline (``duplicate_baseline``, `cardsuite.train.core.duplicate`).

The twin games deal exactly the training games' hands (the engines deal from
counters), so with the heuristic in every seat of both every hand's
difference is exactly 0 (a differential test of the two batches, in every
game). With a player that plays otherwise, its differences over an episode
sum to its points less what the same player scored in the same deals
played by the heuristic alone, computed here by an independent replay.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from cardsuite.batched.policies import call_policy
from cardsuite.errors import CheckpointError
from cardsuite.train.core.duplicate import TwinDeals
from cardsuite.train.core.games import train_game
from cardsuite.train.ppo.trainer import Trainer, train
from tests.train.conftest import tiny_ppo

GAMES = 8


def _play(game: str, players: int, seed: int, steps: int, deviant: int | None = None,
          options: dict | None = None, episodes: int = 1) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Training games of the heuristic (player ``deviant`` plays its last legal move
    instead) beside their twin; the raw and shaped rewards ``[GAMES, P]`` summed over
    each game's first ``episodes`` episodes."""
    g = train_game(game)
    cfg = g.config(players, options or {})
    eng = g.make_engine(GAMES, cfg)
    heur = g.heuristic(eng)
    twin = TwinDeals(g, cfg, GAMES)
    obs, mask, to_act = eng.reset(seed)
    twin.reset(seed)
    raw, shaped = np.zeros((GAMES, players)), np.zeros((GAMES, players))
    left = np.full(GAMES, episodes)  # episodes each game has still to finish
    hands = 0
    for _ in range(steps):
        dealt = np.array(eng.deals)
        twin.keep_up(dealt)
        o, m, who = np.asarray(obs), np.asarray(mask), np.asarray(to_act)
        acts = np.asarray(call_policy(heur, o, m, np.arange(GAMES), who))
        if deviant is not None:
            last = m.shape[1] - 1 - np.argmax(m[:, ::-1], axis=1)
            acts = np.where(who == deviant, last, acts)
        res = eng.step(acts)
        done = np.asarray(res.done).astype(bool)
        r = np.asarray(res.rewards, dtype=np.float64)
        out = twin.subtract(dealt, np.array(eng.deals), done, r)
        hands += int((np.array(eng.deals) != dealt).sum())
        live = left > 0
        raw[live] += r[live]
        shaped[live] += out[live]
        left -= done & live
        obs, mask, to_act = res.obs, res.mask, res.to_act
        if not left.any():
            break
    assert not left.any(), "every game finished its episodes"
    assert hands >= 2 * GAMES
    return raw, shaped


@pytest.mark.parametrize(
    ("game", "players", "options"),
    [("scum_party", 8, {"num_hands": 2}), ("scum_party", 20, {"num_hands": 2}),
     ("scum", 4, {}), ("scandal", 2, {}), ("scandal", 4, {})],
)  # fmt: skip
def test_the_heuristic_against_its_twin_gets_exactly_zero_every_hand(
    game: str, players: int, options: dict
) -> None:
    raw, shaped = _play(game, players, seed=3, steps=20_000, options=options, episodes=3)
    assert np.abs(raw).sum() > 0  # the hands were scored
    assert np.array_equal(shaped, np.zeros_like(shaped))


def _replay_heuristic(game: str, players: int, seed: int, options: dict) -> np.ndarray:
    """Each game's first episode played by the heuristic alone: every player's total."""
    g = train_game(game)
    eng = g.make_engine(GAMES, g.config(players, options))
    heur = g.heuristic(eng)
    obs, mask, to_act = eng.reset(seed)
    total = np.zeros((GAMES, players))
    first = np.ones(GAMES, dtype=bool)
    while first.any():
        acts = call_policy(heur, np.asarray(obs), np.asarray(mask), np.arange(GAMES),
                           np.asarray(to_act))  # fmt: skip
        res = eng.step(np.asarray(acts))
        total[first] += np.asarray(res.rewards, dtype=np.float64)[first]
        first &= ~np.asarray(res.done).astype(bool)
        obs, mask, to_act = res.obs, res.mask, res.to_act
    return total


def test_a_deviating_player_gets_its_points_less_the_heuristics_on_the_same_deals() -> None:
    """Scum Party, 8 players, 2 hands: player 3 always plays its last legal move."""
    opts = {"num_hands": 2}
    raw, shaped = _play("scum_party", 8, seed=11, steps=20_000, deviant=3, options=opts)
    alone = _replay_heuristic("scum_party", 8, seed=11, options=opts)
    np.testing.assert_allclose(shaped, raw - alone, atol=1e-9)
    assert np.abs(shaped[:, 3]).sum() > 0  # it did change its points
    assert shaped.sum() == pytest.approx(0.0)  # a hand's points at one table add up (P8)


def test_ppo_with_the_duplicate_baseline_logs_the_margin_and_resumes_its_twin(
    tmp_path: Path,
) -> None:
    run = tmp_path / "run"
    cfg = dict(duplicate_baseline=True, self_play=0.0, checkpoint_every=300)
    tr = Trainer(tiny_ppo(run, **cfg, total_steps=600))
    twin = tr.tables[0].twin
    assert twin is not None
    tr.train()
    with open(run / "progress.csv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    margins = [float(r["dup_margin"]) for r in rows if r["dup_margin"] not in ("", "nan")]
    assert margins  # league games finished and were scored against their twin
    saved_deals = twin.deals()
    again = Trainer(tiny_ppo(run, **cfg, total_steps=900, resume=str(run)))
    assert again.games_restored
    assert again.tables[0].twin is not None
    assert np.array_equal(again.tables[0].twin.deals(), saved_deals)
    assert np.array_equal(again.tables[0].twin.ledger, twin.ledger)
    again.train()
    with pytest.raises(CheckpointError, match="duplicate_baseline"):
        Trainer(tiny_ppo(run, duplicate_baseline=False, total_steps=1200, resume=str(run)))
    plain = tmp_path / "plain"
    train(tiny_ppo(plain))
    assert "dup_margin" not in (plain / "progress.csv").read_text()
