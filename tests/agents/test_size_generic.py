"""Size-generic observations (``agents/learned/layout.py``): every table size in one layout."""

from __future__ import annotations

import numpy as np
import pytest

from cardsuite.agents.learned import layout as sg
from cardsuite.errors import ConfigError
from cardsuite.games import get_game


def first_observation(
    game: str, players: int, seed: int = 3
) -> tuple[np.ndarray, np.ndarray, object]:
    env = get_game(game).make(num_players=players)
    env.reset(seed=seed)
    obs = env.observe(env.agent_selection)
    spec = env.unwrapped.obs_spec
    env.close()
    return obs["observation"], obs["action_mask"], spec


@pytest.mark.parametrize(("game", "sizes"), [("scum_party", (5, 8, 15, 20, 50)),
                                             ("scandal", (2, 3, 4, 6))])  # fmt: skip
def test_every_table_size_gets_the_same_layout(game: str, sizes: tuple[int, ...]) -> None:
    generic = sg.generic_spec(game)
    for n in sizes:
        obs, mask, spec = first_observation(game, n)
        out = sg.pad_observation(obs, spec, game)
        assert out.shape == (generic.size,)
        assert sg.layout_of(game).spec(spec).slices == generic.slices
        assert sg.pad_mask(mask, game).shape == (sg.layout_of(game).num_actions,)
        low, high = generic.bounds()
        assert (out >= low).all() and (out <= high).all()


def test_party_8_and_15_seat_observations_share_the_common_parts() -> None:
    generic = sg.generic_spec("scum_party")
    o8, m8, s8 = first_observation("scum_party", 8)
    o15, _m15, s15 = first_observation("scum_party", 15)
    p8, p15 = sg.pad_observation(o8, s8, "scum_party"), sg.pad_observation(o15, s15, "scum_party")
    for piece in s8.pieces:  # each piece in the same place, whatever the table
        assert generic.slices[piece.name] == sg.generic_spec("scum_party").slices[piece.name]
    v8, v15 = generic.views(p8), generic.views(p15)
    src8 = s8.views(o8)
    # fixed pieces are copied unchanged
    for name in ("hand", "top_cards", "played", "phase", "hands_done", "score"):
        np.testing.assert_array_equal(v8[name], src8[name])
    # per-seat pieces: the 8 relative seats first (entry 0 = the observer), then zeros
    for name in ("cards_left", "seats", "position", "finish_rank"):
        np.testing.assert_array_equal(v8[name][:8], src8[name])
        assert not v8[name][8:].any()
    # roles keep each seat's 5-entry block together
    np.testing.assert_array_equal(v8["roles"].reshape(15, 5)[:8], src8["roles"].reshape(8, 5))
    assert not v8["roles"].reshape(15, 5)[8:].any()
    # the seat mask: the observer's table size in both
    assert v8["seat_present"].sum() == 8 and v15["seat_present"].sum() == 15
    assert v8["seat_present"][0] == v15["seat_present"][0] == 1.0  # the observer is entry 0
    # action ids need no remapping: the 8-seat mask is the generic mask's first entries
    pm = sg.pad_mask(m8, "scum_party")
    np.testing.assert_array_equal(pm[: len(m8)], m8.astype(bool))
    assert not pm[len(m8) :].any()


def test_a_table_of_a_multi_table_party_marks_its_own_seats() -> None:
    obs, _mask, spec = first_observation("scum_party", 50)  # tables 13, 13, 12, 12
    out = sg.generic_spec("scum_party").views(sg.pad_observation(obs, spec, "scum_party"))
    size = int(spec.views(obs)["seats"].sum())
    assert size in (12, 13)
    assert out["seat_present"].sum() == size
    assert out["table"].sum() == 1.0 and not out["table"][4:].any()  # 4 tables, padded to 10


def test_scandal_opponent_blocks_stay_in_relative_order() -> None:
    obs, _mask, spec = first_observation("scandal", 3)
    out = sg.generic_spec("scandal").views(sg.pad_observation(obs, spec, "scandal"))
    src = spec.views(obs)
    np.testing.assert_array_equal(
        out["opp_known"].reshape(5, 80)[:2], src["opp_known"].reshape(2, 80)
    )
    np.testing.assert_array_equal(out["laid_by"].reshape(6, 80)[:3], src["laid_by"].reshape(3, 80))
    np.testing.assert_array_equal(out["seat_present"], [1, 1, 1, 0, 0, 0])


def test_batches_pad_row_by_row() -> None:
    obs, _mask, spec = first_observation("scandal", 4)
    batch = np.stack([obs, obs * 0.0])
    out = sg.pad_observation(batch, spec, "scandal")
    np.testing.assert_array_equal(out[0], sg.pad_observation(obs, spec, "scandal"))
    assert out.shape == (2, sg.generic_spec("scandal").size)


def test_bad_input_gets_named_errors() -> None:
    obs, _mask, spec = first_observation("scandal", 2)
    with pytest.raises(ConfigError, match="observation: expected"):
        sg.pad_observation(obs[:-1], spec, "scandal")
    with pytest.raises(ConfigError, match="field 'game'"):
        sg.pad_observation(obs, spec, "scum")
    with pytest.raises(ConfigError, match="action_mask"):
        sg.pad_mask(np.ones(400, dtype=bool), "scandal")
