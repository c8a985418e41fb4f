"""Property tests over random legal play (hypothesis)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardsuite.errors import IllegalActionError, StateError
from scandal_env import engine as E
from scandal_env.config import ScandalConfig
from scandal_env.encoding import Encoder

seeds = st.integers(0, 2**32 - 1)
players = st.integers(2, 6)


def play(cfg: ScandalConfig, seed: int, limit: int = 10_000) -> Iterator[tuple[E.State, int]]:
    """Random legal play: yields (state before the action, action)."""
    s = E.new_game(cfg, seed=seed)
    rng = np.random.default_rng(seed + 1)
    for _ in range(limit):
        if s.done:
            return
        legal = np.flatnonzero(E.legal_mask(s))
        assert legal.size, "the mask is all zero for the player to act"
        a = int(legal[rng.integers(legal.size)])
        yield s, a
        E.apply(s, a)


@settings(max_examples=15, deadline=None)
@given(seed=seeds, p=players)
def test_every_card_accounted_for_and_mask_never_empty(seed: int, p: int) -> None:
    cfg = ScandalConfig(num_players=p, max_turns=60)
    last = None
    for s, _ in play(cfg, seed):
        E.check_cards(s)
        assert int(s.hands.sum()) == sum(s.hand_counts)
        assert not (s.known & ~s.hands).any()
        last = s
    assert last is not None and last.done
    E.check_cards(last)


# --------------------------------------------------------------- mask vs rules


def physical_actions(s: E.State) -> list[int]:
    """Actions the rules allow before looking ahead (the cards are where needed).

    S3 ("immediately"): a pending duty is honoured first. S8: no meld or
    lay-off may empty the hand. S7: no discard of the drawn top card.
    """
    g = s.rules
    deck, lay = g.deck, g.layout
    me = s.to_act
    hand = s.hands[me]
    out: list[int] = []
    if s.phase == E.Phase.DRAW:
        if s.stock or s.pile:
            out.append(lay.DRAW_STOCK)
        out.extend(lay.DRAW_DISCARD + d for d in range(len(s.pile)))
        return out
    size = s.hand_counts[me]
    if s.phase == E.Phase.BUILD:
        sc = s.build_scandal
        for c in deck.cards_of[sc]:
            if hand[c] and not deck.is_title[c] and size >= 2:
                out.append(lay.MELD_ADD + c)
        k = np.flatnonzero(s.build)
        duty_ok = s.duty < 0 or s.build[s.duty]
        if len(k) >= 3 and deck.is_bg[k].any() and duty_ok:
            out.append(lay.MELD_FINISH)
        return out
    for p in range(deck.n_pairs):
        c, sc = int(deck.pair_card[p]), int(deck.pair_scandal[p])
        if hand[c] and s.meld_owner[sc] >= 0 and size >= 2 and (s.duty < 0 or c == s.duty):
            out.append(lay.LAYOFF + p)
    for sc in range(deck.n_scandals):
        t = int(deck.title_of[sc])
        duty_ok = s.duty < 0 or deck.member[s.duty, sc]
        if hand[t] and s.meld_owner[sc] < 0 and size >= 2 and duty_ok:
            out.append(lay.MELD_START + sc)
    if s.duty < 0:
        out.extend(lay.DISCARD + int(c) for c in np.flatnonzero(hand) if c != s.forbidden)
    return out


def can_finish_turn(s: E.State, memo: dict[bytes, bool]) -> bool:
    """Can the player reach a discard from ``s`` by physically possible moves?"""
    key = (
        s.hands[s.to_act].tobytes()
        + s.build.tobytes()
        + s.meld_owner.tobytes()
        + bytes([s.phase, s.duty + 1, s.forbidden + 1, s.build_scandal + 1])
    )
    if key in memo:
        return memo[key]
    lay = s.rules.layout
    acts = physical_actions(s)
    ok = any(a >= lay.DISCARD for a in acts)
    if not ok:
        for a in acts:
            t = E.clone(s)
            E.apply_unchecked(t, a)
            if can_finish_turn(t, memo):
                ok = True
                break
    memo[key] = ok
    return ok


def rules_mask(s: E.State) -> set[int]:
    """The legal set by brute force: physically possible and the turn can be finished."""
    lay = s.rules.layout
    out = set()
    memo: dict[bytes, bool] = {}
    for a in physical_actions(s):
        if a >= lay.DISCARD:
            out.add(a)
            continue
        t = E.clone(s)
        E.apply_unchecked(t, a)
        if t.hand_over or can_finish_turn(t, memo):
            out.add(a)
    return out


@settings(max_examples=12, deadline=None)
@given(seed=seeds, p=st.sampled_from([2, 3, 5]))
def test_mask_equals_brute_force_rules(seed: int, p: int) -> None:
    cfg = ScandalConfig(num_players=p, max_turns=80)
    checked = 0
    for i, (s, _) in enumerate(play(cfg, seed)):
        if s.hand_counts[s.to_act] > 14 or i % 3:
            continue
        mask = set(int(a) for a in np.flatnonzero(E.legal_mask(s)))
        assert mask == rules_mask(s), E.why_illegal(s, 0)
        checked += 1
    assert checked > 0


@settings(max_examples=10, deadline=None)
@given(seed=seeds, p=players, data=st.data())
def test_apply_accepts_exactly_the_mask(seed: int, p: int, data: st.DataObject) -> None:
    cfg = ScandalConfig(num_players=p, max_turns=40)
    lay = E.make_rules(cfg).layout
    for s, _ in play(cfg, seed):
        probe = data.draw(st.integers(0, lay.size - 1))
        legal = bool(E.legal_mask(s)[probe])
        t = E.clone(s)
        if legal:
            E.apply(t, probe)
        else:
            before = E.to_json(t)
            with pytest.raises(IllegalActionError, match=f"illegal action {probe}"):
                E.apply(t, probe)
            assert E.to_json(t) == before


# --------------------------------------------------------------- determinism


@settings(max_examples=8, deadline=None)
@given(seed=seeds, p=players)
def test_same_seed_same_actions_same_states(seed: int, p: int) -> None:
    cfg = ScandalConfig(num_players=p, max_turns=50, episode="game", max_hands=2)
    a = [(E.to_json(s), act) for s, act in play(cfg, seed)]
    b = [(E.to_json(s), act) for s, act in play(cfg, seed)]
    assert a == b


@settings(max_examples=8, deadline=None)
@given(seed=seeds, p=players)
def test_clone_and_json_round_trip(seed: int, p: int) -> None:
    cfg = ScandalConfig(num_players=p, max_turns=50, episode="game", max_hands=3)
    enc = Encoder(E.make_rules(cfg))
    for i, (s, a) in enumerate(play(cfg, seed)):
        if i % 7:
            continue
        text = E.to_json(s)
        r = E.from_json(text)
        assert E.to_json(r) == text
        assert (E.legal_mask(r) == E.legal_mask(s)).all()
        assert (enc.encode(r, 0) == enc.encode(s, 0)).all()
        c = E.clone(s)
        E.apply(c, a)
        E.apply(r, a)
        assert E.to_json(c) == E.to_json(r)
        # The original is untouched by the clone's move.
        assert E.to_json(s) == text
        # RNG state travels: both continue identically into the next hand.
        assert c.rng.integers(1 << 30) == r.rng.integers(1 << 30)


def test_corrupt_json_is_a_state_error() -> None:
    s = E.new_game(ScandalConfig(), seed=0)
    text = E.to_json(s)
    with pytest.raises(StateError, match="not valid JSON"):
        E.from_json(text[:-5])
    with pytest.raises(StateError, match="not a Scandal state"):
        E.from_json("{}")
    import json

    d = json.loads(text)
    d["stock"] = d["stock"][1:]
    with pytest.raises(StateError, match="not in exactly one place"):
        E.from_json(json.dumps(d))
    d = json.loads(text)
    del d["hands"]
    with pytest.raises(StateError, match="missing field"):
        E.from_json(json.dumps(d))
    d = json.loads(text)
    d["hands"] = d["hands"][:1]
    with pytest.raises(StateError, match="'hands' has shape"):
        E.from_json(json.dumps(d))
    d = json.loads(text)
    d["config"]["num_players"] = 9
    with pytest.raises(StateError, match=r"config is invalid.*num_players"):
        E.from_json(json.dumps(d))
    d = json.loads(text)
    d["rng"] = {"bit_generator": "Nope"}
    with pytest.raises(StateError, match="rng"):
        E.from_json(json.dumps(d))


@settings(max_examples=10, deadline=None)
@given(seed=seeds, p=players)
def test_games_always_end(seed: int, p: int) -> None:
    cfg = ScandalConfig(num_players=p, max_turns=30, episode="game", max_hands=3, target_score=100)
    steps = sum(1 for _ in play(cfg, seed, limit=100_000))
    assert steps < 100_000


# --------------------------------------------------------------- hidden information


@settings(max_examples=10, deadline=None)
@given(seed=seeds, p=players)
def test_resample_hidden_consistent_with_observer(seed: int, p: int) -> None:
    cfg = ScandalConfig(num_players=p, max_turns=60)
    enc = Encoder(E.make_rules(cfg))
    rng = np.random.default_rng(seed)
    for i, (s, _) in enumerate(play(cfg, seed)):
        if i % 5:
            continue
        obs = int(rng.integers(p))
        r = E.resample_hidden(s, obs, rng)
        E.check_cards(r)
        assert (r.hands[obs] == s.hands[obs]).all()
        assert r.hand_counts == s.hand_counts
        assert (r.hands.sum(axis=1) == s.hands.sum(axis=1)).all()
        assert ((r.hands & s.known) == (s.hands & s.known)).all()  # public cards stay
        assert r.pile == s.pile and len(r.stock) == len(s.stock)
        if s.stock_public:
            assert r.stock == s.stock
        # Everything the observer sees is unchanged.
        assert (enc.encode(r, obs) == enc.encode(s, obs)).all()
        assert (E.legal_mask(r) == E.legal_mask(s)).all() or s.to_act != obs
