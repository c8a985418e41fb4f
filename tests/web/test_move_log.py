"""Every move-log line a seat receives is built from what that seat may know.

The env's own observation shows a player only the trades it took part in
(``trade_given``/``trade_received``); the per-seat log must not tell more.
The walk covers whole games of all three games over several seeds, Scum with
``episode=game target_score=12`` so that J5 give-backs happen.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from cardsuite.agents.play.views import Move, step
from cardsuite.games import get_game

CASES = [
    ("scum", {"episode": "game", "target_score": 12}),
    ("scum", {"num_players": 6, "episode": "game", "target_score": 12}),
    ("scum_party", {"num_players": 8}),
    ("scandal", {"num_players": 2}),
    ("scandal", {"num_players": 3}),
]


def views(env: Any, seat: str) -> dict[str, np.ndarray]:
    base = env.unwrapped
    return {
        k: np.array(v) for k, v in base.obs_spec.views(base.observe(seat)["observation"]).items()
    }


def over(env: Any) -> bool:
    return not env.agents or all(env.terminations[a] or env.truncations[a] for a in env.agents)


def card_names(env: Any) -> list[str]:
    state = env.unwrapped.game
    if hasattr(state, "tables"):
        return list(state.tables[0].rules.cards.names)
    if hasattr(state.rules, "cards"):
        return list(state.rules.cards.names)
    return list(state.rules.deck.names)


def check_scandal_line(env: Any, seat: str, line: str, after: dict[str, np.ndarray]) -> None:
    """A card a Scandal line names is one ``seat`` sees after the move (table or own hand)."""
    deck = env.unwrapped.game.rules.deck
    match = re.fullmatch(r"discard (.+)|add (.+) to the meld|lay off (.+) on '.*'", line)
    if match is None:
        assert "(" not in line, f"{seat} reads {line!r}, which names something unexpected"
        return
    name = next(g for g in match.groups() if g)
    named = [c for c in range(len(deck.names)) if deck.describe(c) == name]
    assert named, line
    visible = (
        after["hand"].astype(bool)
        | after["discard_in"].astype(bool)
        | after["building"].astype(bool)
        | after["laid_by"].reshape(-1, len(deck.names)).any(axis=0)
    )
    assert any(visible[c] for c in named), f"{seat} reads {line!r} but cannot see {name}"


@pytest.mark.parametrize(("game", "options"), CASES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_line_a_seat_receives_matches_its_observation(
    game: str, options: dict[str, Any], seed: int
) -> None:
    env = get_game(game).make(raw=True, **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    names = card_names(env)
    seats = list(env.possible_agents)
    private = hidden = 0
    moves: list[Move] = []
    while not over(env):
        agent = env.agent_selection
        legal = np.flatnonzero(env.observe(agent)["action_mask"])
        action = int(legal[-1] if seed == 0 else rng.choice(legal))  # seed 0: the pick
        before = {s: views(env, s) for s in seats}
        trades = len(getattr(env.unwrapped.game, "trade_log", ()))
        move = step(env, agent, action, len(moves) + 1)
        log = list(getattr(env.unwrapped.game, "trade_log", ()))
        moves.append(move)
        after = {s: views(env, s) for s in seats}
        for seat in seats:
            line = move.line(seat)
            if not move.private:
                assert line == move.text == env.unwrapped.describe_action(action)
                if game == "scandal" and not move.note:
                    check_scandal_line(env, seat, line, after[seat])
                continue
            private += 1
            give = re.fullmatch(r"give back (\S+)", move.text)
            assert give, move.text
            me = int(seat.rpartition("_")[2])
            new = log[trades:] if trades <= len(log) else log
            mine = [(g, r, sl, forced) for g, r, sl, forced in new if me in (g, r)]
            gave = np.zeros(len(names))
            got = np.zeros(len(names))
            for g, _r, sl, _forced in mine:
                (gave if g == me else got)[sl] += 1
            # what the seat's observation learned is exactly the trades it took part in
            assert np.array_equal(after[seat]["trade_given"] - before[seat]["trade_given"], gave), (
                seat,
                move.text,
                new,
            )
            assert np.array_equal(
                after[seat]["trade_received"] - before[seat]["trade_received"], got
            ), (seat, move.text, new)
            chosen = [(g, r) for g, r, _sl, forced in new if not forced]
            assert len(chosen) == 1 and {f"player_{p}" for p in chosen[0]} == set(move.seen_by)
            if seat in move.seen_by:
                assert line == move.text
            else:
                hidden += 1
                assert line.startswith("give back a card") and not any(
                    re.search(rf"\b{re.escape(n)}\b", line.replace("give back a card", ""))
                    for n in names
                )
    assert moves
    if game == "scum":
        assert private and hidden, "no give-back happened: the walk proves nothing"


def test_the_play_page_log_hides_other_seats_give_backs() -> None:
    """The issue's example: seed 0, seat 0, episode=game target_score=12, last legal move."""
    pytest.importorskip("starlette", reason="the web extra is not installed")
    from cardsuite.agents.play.web.sessions import PlaySession

    session = PlaySession(
        "scum",
        agents=["heuristic"],
        seat=0,
        seed=0,
        options={"episode": "game", "target_score": 12},
    )
    sent: list[dict[str, Any]] = []
    while not session.view()["over"]:
        sent += session.view()["log"]
        session.move(session.legal_moves()[-1]["id"])
    sent += session.view()["log"]
    by_number = {m.number: m for m in session.moves}
    others = [m for m in session.moves if m.private and "player_0" not in m.seen_by]
    assert others, "the game had no give-back player_0 took no part in"
    for entry in sent:
        move = by_number[entry["n"]]
        assert entry["text"] == move.line("player_0")
        if move.private and "player_0" not in move.seen_by:
            assert entry["text"].startswith("give back a card (to player_")
    assert any(e["text"].startswith("give back a card") for e in sent)
