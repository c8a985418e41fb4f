"""Scripted Scum Party hands through the batched engine: P1, P5, P6, P7 and P8."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from scum_env.party.batched import BatchedParty
from scum_env.party.cards import CARDS
from scum_env.party.tables import hand_points, ladder

PLAY = 1  # action id of playing c cards of rank slot s: 1 + (c - 1) * 14 + s
SLOT = {name: i for i, name in enumerate(CARDS.names)}


def play(card: str, count: int = 1) -> int:
    """Action id of playing ``count`` cards of rank ``card``."""
    return PLAY + (count - 1) * 14 + SLOT[card]


def counts(hands: list[list[str]]) -> np.ndarray:
    """``[1, n, 14]`` preset hands from card names per player id."""
    return np.stack([CARDS.counts(h) for h in hands])[None].astype(np.int64)


def scripted(hands: list[list[str]], *, trade: bool) -> BatchedParty:
    """One 5-player game, player i in seat i (0 = King), with preset hands."""
    eng = BatchedParty(1, num_players=5, autoreset=False)
    eng.reset(0, seating=np.arange(5)[None], hands=counts(hands), trade=trade)
    return eng


def test_p5_forced_trades_run_at_the_deal() -> None:
    """Given these hands, the Scum's two highest go to the King, the King's two lowest back,
    the Assistant Scum's highest to the Assistant King and his lowest back (P5)."""
    eng = scripted(
        [
            ["3", "3", "4", "5", "9", "K"],
            ["4", "6", "7", "8"],
            ["2", "2"],
            ["5", "10", "Q"],
            ["2", "A", "JK", "6"],
        ],
        trade=True,
    )
    view = eng.game_view(0)
    expected = [
        ["4", "5", "9", "K", "A", "JK"],
        ["6", "7", "8", "Q"],
        ["2", "2"],
        ["4", "5", "10"],
        ["2", "3", "3", "6"],
    ]
    for seat, cards in enumerate(expected):
        assert np.array_equal(view["hands"][0][seat], CARDS.counts(cards)), seat
    obs, mask, to_act = eng._observe()
    spec = eng.obs_spec
    assert int(to_act[0]) == 0  # the King leads (P6)
    assert np.array_equal(spec.view(obs[0], "trade_given"), CARDS.counts(["3", "3"]))
    assert np.array_equal(spec.view(obs[0], "trade_received"), CARDS.counts(["A", "JK"]))
    assert mask[0, 0] == 0  # the leader cannot pass


def test_p6_the_highest_player_in_leads_after_the_winner_went_out() -> None:
    """When the Commoner wins a trick with his last card, the King (not the next seat) leads."""
    eng = scripted([["3", "4"], ["2", "5"], ["A"], ["2", "2"], ["2", "3"]], trade=False)
    for action, player in [(play("3"), 0), (0, 1), (play("A"), 2), (0, 3)]:
        assert int(eng.to_act()[0]) == player
        eng.step(np.array([action]))
    res = eng.step(np.array([0]))  # the Scum passes: nobody may still play, the trick ends
    assert int(res.to_act[0]) == 0
    assert res.mask[0, 0] == 0 and res.mask[0, play("4")] == 1
    finish = eng.obs_spec.view(res.obs[0], "finish_rank")
    assert finish[2] == pytest.approx(1 / 5)  # the Commoner went out first, two seats after


def test_p1_a_joker_beats_a_pair_and_ends_the_trick() -> None:
    """A single Joker beats a play of any size; nothing beats it, so its player leads again."""
    eng = scripted([["5", "5", "6"], ["JK", "7"], ["2"], ["3"], ["4"]], trade=False)
    res = eng.step(np.array([play("5", 2)]))
    assert res.mask[0, play("JK")] == 1 and res.mask[0, play("7")] == 0
    res = eng.step(np.array([play("JK")]))
    assert int(res.to_act[0]) == 1 and res.mask[0, 0] == 0


@pytest.mark.parametrize(("players", "sizes"), [(10, "5,5"), (16, "6,5,5"), (23, None), (50, None)])
def test_p7_ladder_and_p8_points_after_the_last_table_finishes(
    players: int, sizes: str | None
) -> None:
    """Random hands to the end: the new seats are the P7 ladder of the finish orders, the
    points (rewards and totals) are P8's for the seat taken after the ladder."""
    config: dict[str, Any] = {"num_players": players, "num_hands": 1, "autoreset": False}
    if sizes:
        config["table_sizes"] = sizes
    eng = BatchedParty(6, **config)
    _, mask, _ = eng.reset(3)
    rng = np.random.default_rng(0)
    checked = np.zeros(6, dtype=bool)
    for _ in range(20_000):
        members = [eng.game_view(g)["members"] for g in range(6)]
        running = ~eng.over
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask])
        res = eng.step(actions)
        for g in np.flatnonzero(res.done):
            view = eng.game_view(int(g))
            finish = []
            for t, size in enumerate(eng.lay.sizes):
                ranks = eng.finish[int(g) * eng.lay.T + t][:size]
                assert sorted(ranks) == list(range(1, size + 1))
                finish.append([members[g][t][pos] for pos in np.argsort(ranks)])
            seating = ladder(finish)
            points = hand_points(seating, players)
            assert view["members"] == seating
            assert np.array_equal(view["scores"], points)
            assert np.array_equal(res.rewards[g], points.astype(np.float32))
            assert view["over"] and not res.mask[g].any()
            checked[g] = True
        assert not (res.done & ~running).any()
        mask = res.mask
        if checked.all():
            break
    assert checked.all()


def test_autoreset_starts_a_new_tournament() -> None:
    eng = BatchedParty(4, num_players=8, num_hands=1)
    _obs, mask, _ = eng.reset(1)
    rng = np.random.default_rng(1)
    ended = np.zeros(4, dtype=bool)
    for _ in range(3000):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        res = eng.step(actions)
        mask = res.mask
        assert mask.any(axis=1).all()  # a learner never sees an all-zero mask
        for g in np.flatnonzero(res.done):
            view = eng.game_view(int(g))
            assert view["hand"] == 0 and not view["scores"].any() and not view["over"]
            assert res.rewards[g].sum() == hand_points(view["members"], 8).sum()
            ended[g] = True
    assert ended.all()
