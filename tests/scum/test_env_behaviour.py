"""scum_v0 behaviour: presets, illegal actions, rewards, observations, state, render."""

from __future__ import annotations

import numpy as np
import pytest

from cardsuite.errors import CardsuiteError, IllegalActionError, PresetError
from scum_env import engine as E
from scum_env import scum_v0
from scum_env.encoding import observation_spec

FOUR = {"roles": [0, 1, 2, 3], "hands": [["3"], ["5"], ["7"], ["9", "2"]]}


def play_random(env, rng: np.random.Generator) -> dict[str, float]:
    """Play random legal moves to the end of the episode; return each agent's total.

    The final infos are kept in ``env.final_infos`` (dead steps clear ``env.infos``).
    """
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _info = env.last()
        totals[agent] += reward
        if terminated or truncated:
            if not hasattr(env, "final_infos") or env.final_infos is None:
                assert all(env.terminations.values())  # everyone terminates together
                env.final_infos = {a: dict(i) for a, i in env.infos.items()}
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return totals


def act(env, cards: str) -> None:
    rules = env.rules
    slots = [rules.cards.slot(c) for c in cards.split()]
    env.step(rules.play_action(len(slots), max(slots)))


# ---------------------------------------------------------------- presets
def test_reset_presets_seat_and_deal_as_given() -> None:
    env = scum_v0.raw_env(num_players=4)
    env.reset(
        seed=0, options={"roles": [2, 0, 3, 1], "hands": [["3", "4"], ["5"], ["7", "P"], ["9"]]}
    )
    assert env.agent_selection == "player_2"  # the President leads (J6)
    obs = env.observe("player_2")["observation"]
    hand = env.obs_spec.view(obs, "hand")
    expected = np.zeros(14)
    expected[[env.rules.cards.slot("7"), env.rules.cards.slot("P")]] = 1
    np.testing.assert_array_equal(hand, expected)
    assert E.roles_of(env.game) == ["Vice President", "Scum", "President", "Next to Scum"]


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"hands": [["3"], ["5"], ["7"]]}, r"preset hands must be a list of 4 card lists"),
        ({"hands": [["3"], ["5"], ["7"], ["X9"]]}, r"unknown card 'X9'"),
        (
            {"hands": [["W", "W"], ["W"], ["7"], ["9"]]},
            r"hold 3 x W, but the 1-deck pack has only 2",
        ),
        ({"hands": [["3"], [], ["7"], ["9"]]}, r"hand of player_1 must be a non-empty list"),
        ({"roles": [0, 1, 1, 3]}, r"each of the 4 players once \(President first\)"),
        ({"roles": [0, 1, 2, 3, 4]}, r"each of the 4 players once"),
        ({"trade": "yes"}, r"option 'trade' must be True or False"),
        ({"scores": [50, 0, 0, 0]}, r"preset scores must be 4 integers from 0 to 39"),
        ({"state": "{not json"}, r"not valid JSON"),
    ],
)
def test_bad_presets_raise_preset_error_naming_the_problem(options: dict, words: str) -> None:
    env = scum_v0.raw_env(num_players=4)
    with pytest.raises((PresetError, E.StateError), match=words):
        env.reset(seed=0, options=options)


def test_colour_mode_presets_need_colours_and_respect_one_card_per_colour() -> None:
    env = scum_v0.raw_env(num_players=4, color_clash=True)
    with pytest.raises(PresetError, match=r"unknown card '7'"):
        env.reset(seed=0, options={"hands": [["7"], ["R5"], ["B3"], ["G2"]]})
    with pytest.raises(PresetError, match=r"hold 2 x R7, but the 1-deck pack has only 1"):
        env.reset(seed=0, options={"hands": [["R7"], ["R7"], ["B3"], ["G2"]]})


def test_reset_state_option_resumes_exactly() -> None:
    env = scum_v0.raw_env(num_players=5)
    env.reset(seed=3)
    for _ in range(7):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    text = E.to_json(env.game)
    other = scum_v0.raw_env(num_players=5)
    other.reset(options={"state": text})
    assert E.to_json(other.game) == text
    assert other.agent_selection == env.agent_selection
    np.testing.assert_array_equal(other.state(), env.state())


# ---------------------------------------------------------------- illegal actions
def test_raw_env_illegal_action_raises_naming_action_and_reason_state_unchanged() -> None:
    env = scum_v0.raw_env(num_players=4)
    env.reset(seed=0, options=FOUR)
    before_state, before_obs = env.state().copy(), env.observe("player_0")["observation"].copy()
    with pytest.raises(
        IllegalActionError, match=r"player_0: illegal action 0: the leader must play"
    ):
        env.step(0)
    five = env.rules.play_action(1, env.rules.cards.slot("5"))
    with pytest.raises(IllegalActionError, match=rf"illegal action {five}: play 5: not enough"):
        env.step(five)
    with pytest.raises(
        IllegalActionError, match=r"illegal action 9999: action ids run from 0 to 70"
    ):
        env.step(9999)
    with pytest.raises(IllegalActionError, match=r"'x' is not an integer action id"):
        env.step("x")
    np.testing.assert_array_equal(env.state(), before_state)
    np.testing.assert_array_equal(env.observe("player_0")["observation"], before_obs)
    assert env.agent_selection == "player_0" and not any(env.terminations.values())
    act(env, "3")  # the game goes on
    assert env.agent_selection == "player_1"


def test_env_illegal_action_penalizes_the_offender_and_ends_the_episode() -> None:
    env = scum_v0.env(num_players=4)
    env.reset(seed=0, options=FOUR)
    env.step(0)  # the leader may not pass
    assert env.rewards == {"player_0": -1.0, "player_1": 0.0, "player_2": 0.0, "player_3": 0.0}
    assert all(env.terminations.values()) and not any(env.truncations.values())
    for agent in env.agents:
        info = env.infos[agent]["illegal_action"]
        assert info["agent"] == "player_0" and info["action"] == 0
        assert "leader must play" in info["reason"]
    _obs, reward, terminated, _tr, _info = env.last()
    assert reward == -1.0 and terminated
    custom = scum_v0.env(num_players=4, illegal_penalty=-5)
    custom.reset(seed=0, options=FOUR)
    custom.step(0)
    assert custom.rewards["player_0"] == -5.0


# ---------------------------------------------------------------- rewards
def test_series_rewards_are_j8_points_given_to_everyone_at_termination() -> None:
    env = scum_v0.raw_env(num_players=4)
    env.reset(seed=0, options=FOUR)
    act(env, "3")
    act(env, "5")
    assert not any(env.terminations.values()) and not any(env.rewards.values())
    act(env, "7")
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": 4.0, "player_1": 3.0, "player_2": 2.0, "player_3": 1.0}
    assert [env.infos[a]["finish_position"] for a in env.possible_agents] == [1, 2, 3, 4]
    assert env.infos["player_3"]["points"] == 1 and env.infos["player_3"]["score"] == 1
    assert env.infos["player_0"]["role"] == "President"


def test_centered_rewards_sum_to_zero_within_minus_1_plus_1() -> None:
    env = scum_v0.raw_env(num_players=6, reward="centered")
    env.reset(seed=4)
    env.final_infos = None
    totals = play_random(env, np.random.default_rng(4))
    points = {a: env.final_infos[a]["points"] for a in env.possible_agents}
    assert sorted(points.values()) == [1, 2, 3, 4, 5, 6]
    for agent, total in totals.items():
        assert total == pytest.approx((points[agent] - 3.5) / 2.5)
    assert sum(totals.values()) == pytest.approx(0.0)


def test_game_episode_rewards_winner_plus_1_others_minus_1() -> None:
    env = scum_v0.raw_env(num_players=4, episode="game", target_score=10)
    env.reset(seed=2)
    env.final_infos = None
    totals = play_random(env, np.random.default_rng(2))
    winner = env.final_infos["player_0"]["winner"]
    assert env.final_infos["player_0"]["game_over"] and env.final_infos["player_0"]["series"] >= 3
    assert totals == {a: (1.0 if a == f"player_{winner}" else -1.0) for a in env.possible_agents}
    scores = [env.final_infos[a]["score"] for a in env.possible_agents]
    assert scores[winner] == max(scores) >= 10


def test_series_episode_plain_reset_continues_the_game_with_trades() -> None:
    env = scum_v0.raw_env(num_players=5)
    env.reset(seed=8)
    env.final_infos = None
    play_random(env, np.random.default_rng(8))
    finish = [
        a for a in sorted(env.possible_agents, key=lambda a: env.final_infos[a]["finish_position"])
    ]
    scores = [env.final_infos[a]["score"] for a in env.possible_agents]
    env.reset()
    game = env.game
    assert game.series == 2 and game.scores.tolist() == scores
    assert [f"player_{p}" for p in game.order] == finish
    # the trades: the Scum's two highest went to the President, who now gives back
    assert game.phase == E.TRADE and env.agent_selection == finish[0]
    mask = env.observe(finish[0])["action_mask"]
    assert mask[: env.rules.give_base].sum() == 0 and mask[env.rules.give_base :].sum() > 0
    obs = env.observe(finish[0])["observation"]
    assert env.obs_spec.view(obs, "trade_received").sum() == 2
    assert env.obs_spec.view(obs, "phase").tolist() == [1.0, 0.0, 0.0]
    # a seeded reset starts a new game
    env.reset(seed=8)
    assert env.game.series == 1 and not env.game.scores.any() and env.game.trade_log == []


def test_series_episodes_until_the_target_then_a_new_game() -> None:
    env = scum_v0.raw_env(num_players=4, target_score=8)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(20):
        env.final_infos = None
        play_random(env, rng)
        if env.final_infos["player_0"]["game_over"]:
            break
        env.reset()
    assert env.final_infos["player_0"]["game_over"]
    env.reset()
    assert env.game.series == 1 and not env.game.scores.any()


# ---------------------------------------------------------------- observations
def test_observation_pieces_are_relative_to_the_observer() -> None:
    env = scum_v0.raw_env(num_players=4)
    env.reset(
        seed=0,
        options={"roles": [1, 2, 3, 0], "hands": [["2", "3"], ["4", "6", "8"], ["5"], ["9"]]},
    )
    act(env, "4")  # player_1, the President, leads a 4
    spec = env.obs_spec
    obs = env.observe("player_2")
    views = spec.views(obs["observation"])
    assert obs["action_mask"].sum() == 2  # pass, or play the 5
    assert views["cards_left"].tolist() == [1, 1, 2, 2]  # p2, p3, p0, p1
    assert views["top_player"].tolist() == [0, 0, 0, 1]  # p1 is the third after p2
    assert views["acted"].tolist() == [0, 0, 0, 1]
    assert views["top_cards"][env.rules.cards.slot("4")] == 1 and views["top_cards"].sum() == 1
    assert views["phase"].tolist() == [0.0, 0.0, 1.0]  # following
    roles = views["roles"].reshape(4, 5)
    assert roles.argmax(axis=1).tolist() == [1, 3, 4, 0]  # VP, Next to Scum, Scum, President
    other = env.observe("player_0")
    assert other["action_mask"].sum() == 0
    np.testing.assert_array_equal(spec.view(other["observation"], "hand")[[1, 2]], [1, 1])
    assert spec.size == observation_spec(env.rules).size == obs["observation"].shape[0]
    assert env.observation_space("player_0")["observation"].contains(obs["observation"])


def test_state_shape_and_content() -> None:
    env = scum_v0.raw_env(num_players=7, color_clash=True)
    env.reset(seed=5)
    state = env.state()
    assert state.dtype == np.float32 and state.shape == env.state_space.shape
    hands = state[: 7 * 53].reshape(7, 53)
    np.testing.assert_array_equal(hands, env.game.hands)
    assert hands.sum() == 108


# ---------------------------------------------------------------- render
def test_render_ansi_shows_seats_cards_and_the_top_play() -> None:
    env = scum_v0.raw_env(num_players=4, render_mode="ansi")
    env.reset(seed=0, options=FOUR)
    text = env.render()
    assert text.splitlines()[0] == "Scum — series 1, phase play, player_0 to act"
    assert "President       player_0      1 card  score   0  3  <- to act" in text
    assert "player_0 leads" in text
    act(env, "3")
    text = env.render()
    assert "top play: 3 by player_0" in text and "out #1" in text
    act(env, "5")
    act(env, "7")
    text = env.render()
    assert "series over; finish order: player_0, player_1, player_2, player_3" in text


def test_render_mode_checks() -> None:
    with pytest.raises(CardsuiteError, match="render_mode 'rgb' is not supported"):
        scum_v0.raw_env(render_mode="rgb")
    env = scum_v0.raw_env()
    env.reset(seed=0)
    assert env.render() is None
    with pytest.raises(CardsuiteError, match=r"call reset\(\) before"):
        scum_v0.raw_env().step(0)
