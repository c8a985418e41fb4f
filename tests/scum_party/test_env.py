"""The Scum Party env: rewards, observation, presets, illegal actions, copies, rendering."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cardsuite.errors import IllegalActionError, PresetError, StateError
from scum_env import scum_party_v0
from scum_env.party import engine as PE
from scum_env.party.cards import CARDS
from scum_env.party.config import PartyConfig
from tests.scum_party.helpers import conserved, play_random_hand

ROOT = Path(__file__).resolve().parents[2]


FINAL_INFOS: dict[str, dict] = {}


def play_out(env: scum_party_v0.PartyEnv, seed: int) -> dict[str, float]:
    """Random legal play to the end of the episode; the summed rewards per agent.

    The final infos are kept in ``FINAL_INFOS`` (PettingZoo drops them on dead steps).
    """
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        totals[agent] += reward
        if term or trunc:
            FINAL_INFOS[agent] = dict(info)
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return totals


def test_points_rewards_sum_to_the_tournament_scores() -> None:
    env = scum_party_v0.env(num_players=11, table_sizes="6,5", num_hands=2)
    env.reset(seed=3)
    totals = play_out(env, 0)
    game = env.game
    assert game is not None and game.over and game.hand == 2
    assert [totals[f"player_{p}"] for p in range(11)] == game.scores.astype(float).tolist()
    info = FINAL_INFOS["player_0"]
    assert info["score"] == int(game.scores[0]) and info["hands"] == 2
    assert info["standing"] == 1 + int((game.scores > game.scores[0]).sum())


def test_points_are_paid_when_each_hand_is_scored() -> None:
    env = scum_party_v0.raw_env(num_players=5, num_hands=2)
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    while env.game is not None and env.game.hand == 0:
        assert all(v == 0 for v in env.rewards.values())
        env.step(int(rng.choice(np.flatnonzero(env.legal_mask()))))
    assert [env.rewards[a] for a in env.possible_agents] == env.game.last_points.tolist()
    assert not any(env.terminations.values())


@pytest.mark.parametrize("reward", ["final", "rank"])
def test_final_and_rank_rewards_come_at_the_end(reward: str) -> None:
    env = scum_party_v0.env(num_players=16, num_hands=1, reward=reward)
    env.reset(seed=4)
    totals = play_out(env, 1)
    assert env.game is not None
    scores = env.game.scores
    for p in range(16):
        got = totals[f"player_{p}"]
        if reward == "final":
            assert got == float(scores[p])
        else:
            assert got == pytest.approx(
                ((scores < scores[p]).sum() - (scores > scores[p]).sum()) / 15
            )


def test_observation_shows_table_seat_and_ladder() -> None:
    env = scum_party_v0.raw_env(num_players=16, num_hands=3)
    env.reset(seed=5, options={"scores": [p for p in range(16)]})
    spec = env.obs_spec
    game = env.game
    assert game is not None
    for p in (0, 9, 15):
        obs = env.observe(f"player_{p}")["observation"]
        t = game.table_of[p]
        assert spec.view(obs, "table").tolist() == [1.0 if i == t else 0.0 for i in range(2)]
        assert spec.view(obs, "position").argmax() == game.position(p)
        assert spec.view(obs, "seats").sum() == 8
        assert spec.view(obs, "standing")[0] == pytest.approx((15 - p) / 15)
        # scale = num_hands * (tables + 2) = 12; preset totals above it are clipped
        assert spec.view(obs, "score")[0] == pytest.approx(min(p / 12, 1.0))
        mates = [game.members[t][(game.position(p) + i) % 8] for i in range(8)]
        assert spec.view(obs, "table_scores").tolist() == pytest.approx(
            [min(m / 12, 1.0) for m in mates]
        )
        st = game.tables[t]
        assert spec.view(obs, "hand").tolist() == st.hands[game.local_of[p]].tolist()
        assert spec.view(obs, "cards_left")[0] == st.ncards[game.local_of[p]]


def test_a_player_sees_nothing_of_other_tables() -> None:
    env = scum_party_v0.raw_env(num_players=16)
    env.reset(seed=6)
    game = env.game
    assert game is not None
    player = game.members[0][3]
    before = env.observe(f"player_{player}")["observation"]
    other = game.tables[1]
    other.hands[[0, 1]] = other.hands[[1, 0]]  # swap two hands at the other table
    other.ncards[0], other.ncards[1] = other.ncards[1], other.ncards[0]
    assert np.array_equal(env.observe(f"player_{player}")["observation"], before)


def test_mask_is_zero_for_everyone_but_the_actor() -> None:
    env = scum_party_v0.raw_env(num_players=16)
    env.reset(seed=2)
    actor = env.agent_selection
    for agent in env.possible_agents:
        mask = env.observe(agent)["action_mask"]
        assert mask.any() == (agent == actor)


def test_illegal_action_raises_in_raw_env_and_is_penalized_in_env() -> None:
    raw = scum_party_v0.raw_env(num_players=5)
    raw.reset(seed=0)
    with pytest.raises(IllegalActionError, match="leader must play"):
        raw.step(0)
    env = scum_party_v0.env(num_players=5)
    env.reset(seed=0)
    agent = env.agent_selection
    env.step(0)
    assert env.rewards[agent] == -1.0 and all(env.terminations.values())
    assert env.infos[agent]["illegal_action"]["action"] == 0


def test_preset_options_and_errors() -> None:
    env = scum_party_v0.raw_env(num_players=5)
    hands = [["AS", "2H"], ["3"], ["4"], ["5"], ["6", "JK"]]
    env.reset(seed=0, options={"seating": [4, 3, 2, 1, 0], "hands": hands, "trade": False})
    assert env.agent_selection == "player_4", "player_4 is the preset King"
    with pytest.raises(PresetError, match="must be True or False"):
        env.reset(options={"trade": "yes"})
    with pytest.raises(PresetError, match="list of 5 card lists"):
        env.reset(options={"hands": [["2"]]})
    with pytest.raises(PresetError, match="unknown card 'X9'"):
        env.reset(options={"hands": [["X9"], ["3"], ["4"], ["5"], ["6"]]})
    with pytest.raises(PresetError, match="unknown option 'roles'"):
        env.reset(options={"roles": [0, 1, 2, 3, 4]})


def test_json_round_trip_resumes_exactly() -> None:
    party = PE.new_party(PartyConfig(num_players=16, num_hands=3), 8)
    play_random_hand(party, np.random.default_rng(0))
    for _ in range(40):
        PE.apply(party, int(np.flatnonzero(PE.legal_mask(party))[0]))
    text = PE.to_json(party)
    copy = PE.from_json(party.config, text)
    assert PE.to_json(copy) == text
    twin = PE.clone(party)
    a = play_random_hand(party, np.random.default_rng(9))
    b = play_random_hand(copy, np.random.default_rng(9))
    c = play_random_hand(twin, np.random.default_rng(9))
    assert a.tolist() == b.tolist() == c.tolist()
    assert PE.to_json(party) == PE.to_json(copy) == PE.to_json(twin)


def test_env_resumes_from_a_state_option() -> None:
    env = scum_party_v0.raw_env(num_players=11, table_sizes="6,5")
    env.reset(seed=2)
    for _ in range(30):
        env.step(int(np.flatnonzero(env.legal_mask())[-1]))
    assert env.game is not None
    text = PE.to_json(env.game)
    other = scum_party_v0.raw_env(num_players=11, table_sizes="6,5")
    other.reset(options={"state": text})
    assert other.agent_selection == env.agent_selection
    assert np.array_equal(
        other.observe("player_3")["observation"], env.observe("player_3")["observation"]
    )


def test_corrupt_or_mismatched_state_is_a_state_error() -> None:
    party = PE.new_party(PartyConfig(num_players=11, table_sizes="6,5"), 1)
    text = PE.to_json(party)
    with pytest.raises(StateError, match="saved for tables \\[6, 5\\]"):
        PE.from_json(PartyConfig(num_players=11), text)
    with pytest.raises(StateError, match="not valid JSON"):
        PE.from_json(party.config, "{nope")
    with pytest.raises(StateError, match="corrupt Scum Party state: KeyError"):
        PE.from_json(party.config, text.replace('"members"', '"memb"'))


def test_determinize_keeps_what_the_player_knows() -> None:
    env = scum_party_v0.raw_env(num_players=16)
    env.reset(seed=7)
    for _ in range(25):
        env.step(int(np.flatnonzero(env.legal_mask())[-1]))
    game = env.game
    assert game is not None
    player = game.members[1][2]
    before = PE.to_json(game)
    sample = env.determinize(f"player_{player}", np.random.default_rng(0))
    t, q = game.table_of[player], game.local_of[player]
    assert sample.tables[t].hands[q].tolist() == game.tables[t].hands[q].tolist()
    for real, fake in zip(game.tables, sample.tables, strict=True):
        assert fake.ncards == real.ncards
        assert conserved(fake)
        assert np.array_equal(fake.played, real.played)
    assert any(
        not np.array_equal(r.hands, f.hands)
        for r, f in zip(game.tables, sample.tables, strict=True)
    )
    for _ in range(40):  # the sample plays on, sharing no state with the real game
        PE.apply(sample, int(np.flatnonzero(PE.legal_mask(sample))[-1]))
    assert PE.to_json(game) == before


def test_render_one_table_and_the_ladder() -> None:
    env = scum_party_v0.env(render_mode="ansi", num_players=16, num_hands=1)
    env.reset(seed=0)
    text = env.render()
    assert text is not None and "Table 1 of 2" in text and "Ladder" in text
    assert "King" in text and "Scum" in text
    lower = env.unwrapped.render_table(1, show_hands=False)
    assert lower.startswith("Table 2 of 2") and "player_" in lower
    play_out(env, 0)
    assert "tournament over" in env.unwrapped.render_ladder()


def test_describe_action() -> None:
    env = scum_party_v0.raw_env(num_players=5)
    rules = env.rules
    assert env.describe_action(0) == "pass"
    assert env.describe_action(rules.play_action(2, CARDS.slot("Q"))) == "play 2xQ"
    assert env.describe_action(rules.play_action(1, CARDS.slot("JK"))) == "play JK"


@pytest.mark.parametrize("path", sorted((ROOT / "configs" / "scum_party").glob("*.yaml")))
def test_shipped_configs_load(path: Path) -> None:
    config = PartyConfig.from_yaml(path)
    assert sum(config.sizes) == config.num_players
