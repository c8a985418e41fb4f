"""Differential tests: the OpenSpiel games and our envs, same deal and same moves.

For many seeds the env deals; the OpenSpiel state is dealt the same cards
through its chance nodes; then random legal moves are played in both. At
every step the player to act, the legal actions (OpenSpiel's list against
the env's mask) and every player's observation vector agree, and at the end
OpenSpiel's returns are the env's summed rewards (J8 points, P8 points, S9
net score / reward_scale).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from cardsuite.agents.external.openspiel import load_game
from tests.openspiel.helpers import cards, play_both

pytest.importorskip("pyspiel", reason="needs the openspiel extra (open-spiel)")


def scum_chance(env: Any) -> Any:
    """Chance outcomes reproducing the env's role draw (J3) and deal (J4)."""
    game = env.game
    order = list(game.order)
    hands = {p: cards(game.hands[p]) for p in range(len(order))}
    seats = order[::-1] if game.rules.deal_from_bottom else order
    outcomes = iter(
        order + [next(hands[seats[i % len(order)]]) for i in range(int(game.hands.sum()))]
    )
    return lambda _state: next(outcomes)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"num_players": 5, "carousel": True},
        {"num_players": 7, "color_clash": True, "wild_queen": True},
    ],
    ids=["4p", "5p-carousel", "7p-clash-queen"],
)
def test_scum_agrees_with_env(options: dict[str, Any]) -> None:
    from scum_env import scum_v0

    params = {("players" if k == "num_players" else k): v for k, v in options.items()}
    game = load_game("scum", **params)
    for seed in range(12):
        env = scum_v0.raw_env(**options)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        moves = play_both(env, game.new_initial_state(), scum_chance(env), rng, check_obs=seed < 4)
        assert moves > 0


def test_scum_centered_reward_agrees() -> None:
    from scum_env import scum_v0

    game = load_game("scum", reward="centered")
    for seed in range(4):
        env = scum_v0.raw_env(reward="centered")
        env.reset(seed=seed)
        play_both(env, game.new_initial_state(), scum_chance(env), np.random.default_rng(seed))


def scandal_chance(env: Any) -> Any:
    """Outcomes reproducing the env's dealer, deal (S2), up card and every stock draw."""
    game = env.game
    p = game.num_players
    hands = {q: iter(np.flatnonzero(game.hands[q]).tolist()) for q in range(p)}
    size = int(game.hands.sum())
    deal = [next(hands[(game.dealer + 1 + i) % p]) for i in range(size)]
    outcomes = iter([game.dealer, *deal, game.pile[0]])

    def chance(_state: Any) -> int:
        nxt = next(outcomes, None)
        return int(env.game.stock[-1]) if nxt is None else int(nxt)  # a stock draw

    return chance


@pytest.mark.parametrize("players", [2, 3, 5])
def test_scandal_agrees_with_env(players: int) -> None:
    from scandal_env import scandal_v0

    game = load_game("scandal", players=players, max_turns=60)
    for seed in range(10):
        env = scandal_v0.raw_env(num_players=players, max_turns=60)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        play_both(env, game.new_initial_state(), scandal_chance(env), rng, check_obs=seed < 2)


def party_chance(env: Any) -> Any:
    """Outcomes reproducing the env's seat draw (P3) and each table's deal before the trades."""
    party = env.game
    seating = [q for members in party.members for q in members]
    outcomes = list(seating)
    for t, table in enumerate(party.tables):
        members = party.members[t]
        dealt = table.hands + table.given - table.received  # undo the forced trades (P5)
        hands = {members[i]: cards(dealt[i]) for i in range(len(members))}
        seats = members[::-1] if table.rules.deal_from_bottom else members
        outcomes += [next(hands[seats[j % len(members)]]) for j in range(int(dealt.sum()))]
    it = iter(outcomes)
    return lambda _state: next(it)


@pytest.mark.parametrize("players", [6, 9])
def test_scum_party_agrees_with_env(players: int) -> None:
    from scum_env import scum_party_v0

    game = load_game("scum_party", players=players)
    for seed in range(3):
        env = scum_party_v0.raw_env(num_players=players, num_hands=1)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        play_both(env, game.new_initial_state(), party_chance(env), rng, check_obs=seed == 0)


@pytest.mark.parametrize("reward", ["final", "rank"])
def test_scum_party_final_and_rank_rewards_agree(reward: str) -> None:
    """Both read the one reward rule (`scum_env.party.engine.hand_rewards`)."""
    from scum_env import scum_party_v0

    game = load_game("scum_party", players=7, reward=reward)
    for seed in range(2):
        env = scum_party_v0.raw_env(num_players=7, num_hands=1, reward=reward)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        play_both(env, game.new_initial_state(), party_chance(env), rng, check_obs=False)
