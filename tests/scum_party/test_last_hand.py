"""After the last hand, every view reads the tables as they were played (P6, P7, P8).

The ladder's new seats (P7) score the last hand (P8) and appear in the final
infos and the ladder view; the tables, ``state()``, the observations and the
table view keep the seats the last hand was played in.
"""

from __future__ import annotations

import numpy as np
import pytest

from scum_env import scum_party_v0
from scum_env.party import engine as PE
from tests.scum_party.helpers import config, play_random_hand

HANDS = [["A"], ["3", "5"], ["4", "4"], ["K"], ["2", "6"]]
SCRIPT = ["A", "pass", "pass", "pass", "pass", "3", "4", "K", "pass", "5", "pass", "6", "2"]

TABLE_VIEW = """\
Table 1 of 1 — hand 1 of 1, 5 players, 2 decks, hand over
  King            player_0     0 cards  total    3  -  out #1
  Assistant King  player_1     0 cards  total    1  -  out #3
  Commoner        player_2      1 card  total   -1  4  out #5
  Assistant Scum  player_3     0 cards  total    2  -  out #2
  Scum            player_4     0 cards  total    0  -  out #4
  finish order: player_0, player_3, player_1, player_4, player_2"""

LADDER_VIEW = """\
Ladder — tournament over
  #1   player_0   total    3  table 1 King  (+3)
  #2   player_3   total    2  table 1 Assistant King  (+2)
  #3   player_1   total    1  table 1 Commoner  (+1)
  #4   player_4   total    0  table 1 Assistant Scum  (+0)
  #5   player_2   total   -1  table 1 Scum  (-1)"""


def played_out() -> scum_party_v0.PartyEnv:
    """The issue's scripted one-hand tournament, played to its end."""
    env = scum_party_v0.raw_env(render_mode="ansi", num_players=5, num_hands=1)
    env.reset(seed=0, options={"seating": [0, 1, 2, 3, 4], "trade": False, "hands": HANDS})
    rules = env.rules
    for name in SCRIPT:
        env.step(0 if name == "pass" else rules.play_action(1, rules.cards.slot(name)))
    assert all(env.terminations.values())
    return env


def test_state_after_the_last_hand_shows_who_holds_the_last_card() -> None:
    """P6: the hand ends with player_2 (Commoner) holding one 4; nobody else holds cards."""
    env = played_out()
    game = env.game
    assert game is not None and game.over
    assert game.last_finish == [[0, 3, 1, 4, 2]]
    hands = env._state_spec.view(env.state(), "hands").reshape(5, 14)
    assert hands.sum(axis=1).tolist() == [0, 0, 1, 0, 0]
    assert hands[2, env.rules.cards.slot("4")] == 1.0
    left = env._state_spec.view(env.state(), "cards_left")
    assert left.tolist() == [0, 0, 1, 0, 0]
    finish = env._state_spec.view(env.state(), "finish_rank")
    assert finish.tolist() == pytest.approx([0.2, 0.6, 1.0, 0.4, 0.8])
    own = env.obs_spec.view(env.observe("player_2")["observation"], "hand")
    assert own[env.rules.cards.slot("4")] == 1.0 and own.sum() == 1.0
    assert env.obs_spec.view(env.observe("player_1")["observation"], "hand").sum() == 0.0


def test_render_after_the_last_hand() -> None:
    """The table as played (seats at the deal), the ladder with the final seats (P7, P8)."""
    env = played_out()
    assert env.render() == TABLE_VIEW + "\n" + LADDER_VIEW


def test_final_infos_give_the_seats_after_the_last_ladder() -> None:
    """P7/P8: the finish order 0, 3, 1, 4, 2 is the final seating that scored the hand."""
    env = played_out()
    roles = {a: (env.infos[a]["position"], env.infos[a]["role"]) for a in env.agents}
    assert roles == {
        "player_0": (0, "King"),
        "player_3": (1, "Assistant King"),
        "player_1": (2, "Commoner"),
        "player_4": (3, "Assistant Scum"),
        "player_2": (4, "Scum"),
    }
    assert [env.infos[f"player_{p}"]["points"] for p in range(5)] == [3, 1, -1, 2, 0]


def test_two_tables_keep_their_players_after_the_last_hand() -> None:
    """P7 moves players between tables; the finished tables still hold who played there."""
    party = PE.new_party(config(11, "6,5", num_hands=1), 5)
    play_random_hand(party, np.random.default_rng(1))
    assert party.over
    for t, st in enumerate(party.tables):
        assert [party.members[t][q] for q in st.finish] == party.last_finish[t]
    top, low = party.last_finish
    final = [top[:4] + low[:2], top[4:] + low[2:]]  # P7: two swap each way
    for t, seats in enumerate(final):
        for position, player in enumerate(seats):
            assert party.seat_of(player) == (t, position)
