"""SelfPlayEnv: env checkers, the learner's own reward only, seat rotation, masks."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gymnasium_check_env

from cardsuite.train.core.league import SeatMember
from cardsuite.train.sb3.single_seat import SelfPlayEnv, fixed_seats

OPTIONS = {"num_players": 4, "reward": "points"}


def test_passes_gymnasium_and_sb3_env_checkers() -> None:
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    env = SelfPlayEnv("scum", OPTIONS)
    gymnasium_check_env(env, skip_render_check=True)
    sb3_check_env(env, warn=False)


class SpyEnv(SelfPlayEnv):
    """Records, for every underlying env step, the seat to act and who chose the action."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.moves: list[tuple[str, str]] = []
        self.calls = 0
        self._mover = "opponent"
        inner_step = self.env.step

        def spy(action: object) -> None:
            self.moves.append((self.env.agent_selection, self._mover))
            self._mover = "opponent"  # only the first env step of a call is the learner's
            inner_step(action)

        self.env.step = spy  # type: ignore[method-assign]

    def step(self, action: object):  # type: ignore[no-untyped-def, override]
        self.calls += 1
        self._mover = "learner"
        return super().step(action)


def play_episode(env: SelfPlayEnv, rng: np.random.Generator) -> tuple[list[float], dict]:
    rewards: list[float] = []
    while True:
        mask = env.action_masks()
        action = int(rng.choice(np.flatnonzero(mask)))
        _, reward, terminated, truncated, info = env.step(action)
        rewards.append(reward)
        if terminated or truncated:
            return rewards, info


@pytest.mark.parametrize("seat", [0, 1, 2, 3])
def test_learner_return_is_its_own_seat_reward_never_the_neighbours(seat: int) -> None:
    """With J8 points every seat's reward differs, so a mixed-up seat cannot pass."""
    env = SelfPlayEnv("scum", OPTIONS, learner_seat=seat)
    rng = np.random.default_rng(seat)
    env.reset(seed=100 + seat)
    learner = f"player_{seat}"
    neighbour = f"player_{(seat + 1) % 4}"
    for _episode in range(12):
        rewards, info = play_episode(env, rng)
        base = env.env.unwrapped
        assert env.learner == learner
        # the whole return arrives with the learner's last transition ...
        assert rewards[:-1] == [0.0] * (len(rewards) - 1)
        # ... and is exactly the learner seat's J8 points n+1-k, not the neighbour's
        assert rewards[-1] == base.rewards[learner] == 5 - info["finish_position"]
        assert rewards[-1] != base.rewards[neighbour]
        env.reset()


def test_reward_that_arrives_while_the_others_play_reaches_the_learner() -> None:
    """Scripted deal: the learner (President, leading) holds one Wild President.

    It plays it and is out at once (J7); the three others then play on without
    it, and the series' end gives it 4 points (J8): one learner transition,
    carrying exactly the learner seat's reward.
    """
    env = SelfPlayEnv("scum", OPTIONS, learner_seat=1)
    hands = [["R2", "R3"], ["W"], ["R4", "R5"], ["R6", "R7"]]
    env.reset(seed=0, options={"roles": [1, 2, 3, 0], "hands": hands})
    legal = np.flatnonzero(env.action_masks())
    assert len(legal) == 1  # the leader's only move: its Wild President
    _, reward, terminated, truncated, info = env.step(int(legal[0]))
    base = env.env.unwrapped
    assert (reward, terminated, truncated) == (4.0, True, False)
    assert info["finish_position"] == 1
    # then player_2, player_3 and player_0 go out in that order
    assert base.rewards == {"player_0": 1.0, "player_1": 4.0, "player_2": 3.0, "player_3": 2.0}


def test_opponents_never_make_a_learner_transition() -> None:
    env = SpyEnv("scum", OPTIONS, learner_seat=2)
    rng = np.random.default_rng(0)
    env.reset(seed=7)
    for _ in range(3):
        play_episode(env, rng)
        env.reset()
    learner_seat = [mover for agent, mover in env.moves if agent == "player_2"]
    other_seats = [mover for agent, mover in env.moves if agent != "player_2"]
    # each step() call applied exactly one action, at the learner's seat ...
    assert learner_seat == ["learner"] * env.calls
    # ... and every other seat's action was chosen inside the env by an opponent
    assert set(other_seats) == {"opponent"}
    assert len(other_seats) > env.calls


def test_learner_seat_rotates_and_restarts_at_a_seeded_reset() -> None:
    env = SelfPlayEnv("scum", OPTIONS)
    seats = []
    for i in range(6):
        _, info = env.reset(seed=0 if i == 0 else None)
        seats.append(info["learner"])
    assert seats == ["player_0", "player_1", "player_2", "player_3", "player_0", "player_1"]
    _, info = env.reset(seed=5)
    assert info["learner"] == "player_0"


def test_mask_matches_the_learner_and_is_never_empty_while_acting() -> None:
    env = SelfPlayEnv("scum", OPTIONS, learner_seat=1)
    rng = np.random.default_rng(3)
    env.reset(seed=3)
    for _ in range(60):
        mask = env.action_masks()
        base = env.env.unwrapped
        assert base.agent_selection == "player_1"
        np.testing.assert_array_equal(mask, base.legal_mask().astype(bool))
        assert mask.any()
        _, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if terminated or truncated:
            assert not env.action_masks().any()
            env.reset()


def test_seeded_reset_is_reproducible_with_a_league_table() -> None:
    table = fixed_seats({"random": 1.0})
    a = SelfPlayEnv("scum", OPTIONS, league=table)
    b = SelfPlayEnv("scum", OPTIONS, league=table)
    obs_a, _ = a.reset(seed=11)
    obs_b, _ = b.reset(seed=11)
    np.testing.assert_array_equal(obs_a, obs_b)
    for _ in range(10):
        action = int(np.flatnonzero(a.action_masks())[0])
        ra = a.step(action)
        rb = b.step(action)
        np.testing.assert_array_equal(ra[0], rb[0])
        assert ra[1:4] == rb[1:4]
        if ra[2]:
            break


def test_observation_is_scaled_into_the_box() -> None:
    env = SelfPlayEnv("scum", OPTIONS)
    obs, _ = env.reset(seed=1)
    assert env.observation_space.contains(obs)
    assert float(env.observation_space.high.max()) == 1.0
    raw = env.env.observe(env.learner)["observation"]
    hand = env.env.unwrapped.obs_spec.slices["cards_left"]
    np.testing.assert_allclose(obs[hand], raw[hand] / 54.0, rtol=1e-6)


def test_bad_learner_seat_is_a_config_error() -> None:
    from cardsuite.errors import ConfigError

    with pytest.raises(ConfigError, match="learner_seat 4 does not exist at a 4-player table"):
        SelfPlayEnv("scum", OPTIONS, learner_seat=4)


def test_step_after_the_end_needs_a_reset() -> None:
    import gymnasium

    env = SelfPlayEnv("scum", OPTIONS)
    env.reset(seed=2)
    play_episode(env, np.random.default_rng(2))
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step(0)


@pytest.mark.parametrize(("game", "options"), [("scum", OPTIONS), ("scandal", {"num_players": 2})])
def test_heuristic_opponents_from_the_league(game: str, options: dict) -> None:
    env = SelfPlayEnv(game, options, league=fixed_seats({"random": 0.0, "heuristic": 1.0}))
    _, info = env.reset(seed=0)
    players = options["num_players"]
    assert list(info["opponents"].values()) == ["heuristic"] * (players - 1)
    _, info = env.reset()
    assert env.learner == "player_1"
    rewards, _ = play_episode(env, np.random.default_rng(0))
    assert len(rewards) > 1


def test_the_last_step_reports_each_seats_member_and_outcome_for_the_league() -> None:
    """Members 7 (random) and 9 (heuristic) seat the others; the outcome against a seat
    is 1 / 0.5 / 0 as the learner's episode return is above / equal to / below its own."""
    table = [SeatMember(7, "random", 0.5), SeatMember(9, "heuristic", 0.5)]
    env = SelfPlayEnv("scum", OPTIONS, league=table, learner_seat=0)
    env.reset(seed=4)
    base = env.env.unwrapped
    info: dict = {}
    rng = np.random.default_rng(4)
    done, own = False, 0.0
    while not done:
        _, reward, terminated, truncated, info = env.step(
            int(rng.choice(np.flatnonzero(env.action_masks())))
        )
        own += reward
        done = terminated or truncated
    totals = env._returns
    assert totals["player_0"] == pytest.approx(own)  # the learner's own rewards, as stepped
    assert env.seated_ids() == info["league_ids"]
    assert len(info["league_ids"]) == 3 and set(info["league_ids"]) <= {7, 9}
    expected = [
        {1: 1.0, 0: 0.5, -1: 0.0}[int(np.sign(totals["player_0"] - totals[a]))] for a in env.seats
    ]
    assert info["league_outcomes"] == expected
    assert sum(totals.values()) == pytest.approx(sum(base._cumulative_rewards.values()))


def test_an_empty_league_table_is_a_config_error() -> None:
    from cardsuite.errors import ConfigError

    with pytest.raises(ConfigError, match="no member to draw"):
        SelfPlayEnv("scum", OPTIONS, league=fixed_seats({"random": 0.0}))
