"""Scripted positions with exact expected choices for the heuristics and greedy.

Given these hands, when this was played, then the agent plays exactly this.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from cardsuite.agents.base import RandomAgent, table_info
from cardsuite.agents.baselines.greedy import GreedyAgent
from cardsuite.agents.baselines.heuristic import HeuristicAgent
from cardsuite.agents.baselines.scandal import RepeatMemory
from cardsuite.agents.baselines.scum import LEAD, ClimbView, ScumPolicy
from cardsuite.games import get_game
from scandal_env import engine as XE
from scum_env.config import ScumConfig
from scum_env.rules import scum_rules
from tests.agents.test_protocol import play_episode

RULES = scum_rules(ScumConfig(num_players=4))
SLOT = {name: i for i, name in enumerate(RULES.cards.names)}  # "S", "2".."12", "P", "W"


def play(count: int, card: str) -> int:
    return RULES.play_action(count, SLOT[card])


def scum_table(hands: list[list[str]], *, trade: bool = False) -> Any:
    """A 4-player Scum env, player_0 President (leads), then 1, 2, 3 (Scum)."""
    env = get_game("scum").make(num_players=4)
    env.reset(seed=0, options={"roles": [0, 1, 2, 3], "hands": hands, "trade": trade})
    return env


def choice(env: Any, agent: Any, game: str = "scum") -> int:
    name = env.agent_selection
    agent.reset(table_info(env, game, name))
    obs = env.observe(name)
    return int(agent.act(obs["observation"], obs["action_mask"], {"agent": name}))


OTHERS = [["4", "5", "6"], ["6", "8", "9"], ["9", "10", "11"]]


# ----------------------------------------------------------------------------- Scum: leading
def test_scum_leads_the_lowest_set_whole() -> None:
    env = scum_table([["3", "3", "7", "12", "P"], *OTHERS])
    assert choice(env, HeuristicAgent("scum")) == play(2, "3")


def test_scum_leads_the_president_first_when_it_then_goes_out() -> None:
    """{P, 8}: the President keeps the lead (J7), then the 8 goes out."""
    env = scum_table([["8", "P"], *OTHERS])
    assert choice(env, HeuristicAgent("scum")) == play(1, "P")


def test_greedy_leads_the_biggest_set() -> None:
    env = scum_table([["3", "7", "7", "12", "P"], *OTHERS])
    assert choice(env, GreedyAgent("scum")) == play(2, "7")


# ----------------------------------------------------------------------------- Scum: following
def follow_after(hand: list[str], lead: tuple[int, str]) -> Any:
    env = scum_table([["2", "2", "5", "9", "9", "S"], hand, *OTHERS[1:]])
    env.step(play(*lead))
    assert env.agent_selection == "player_1"
    return env


def test_scum_follows_a_single_9_with_the_10_not_the_president() -> None:
    env = follow_after(["7", "7", "10", "P"], (1, "9"))
    assert choice(env, HeuristicAgent("scum")) == play(1, "10")


def test_scum_does_not_break_a_pair_when_a_single_fits() -> None:
    env = follow_after(["6", "6", "8", "3"], (1, "5"))
    assert choice(env, HeuristicAgent("scum")) == play(1, "8")
    assert choice(env, GreedyAgent("scum")) == play(1, "6")  # greedy: the lowest play


def test_scum_president_wins_the_lead_that_goes_out() -> None:
    """{4, P} after a single 9: the President takes the round, then the 4 goes out."""
    env = follow_after(["4", "P"], (1, "9"))
    assert choice(env, HeuristicAgent("scum")) == play(1, "P")


def test_scum_president_beats_a_pair_it_cannot_otherwise_follow() -> None:
    env = follow_after(["3", "4", "7", "P"], (2, "9"))
    assert choice(env, HeuristicAgent("scum")) == play(1, "P")
    kept = HeuristicAgent("scum", special_top_count=0)
    assert choice(env, kept) == 0  # without that knob: pass


def test_scum_passes_rather_than_waste_the_president_on_a_single() -> None:
    env = follow_after(["3", "4", "7", "P"], (1, "9"))
    assert choice(env, HeuristicAgent("scum")) == 0


# ----------------------------------------------------------------------------- Scum: give back
@pytest.mark.parametrize(
    ("hand", "given"),
    [(["2", "5", "5", "9", "11"], "2"), (["2", "2", "4", "9", "P"], "4")],
    ids=["lowest-card", "lowest-single-keeps-the-pair"],
)
def test_scum_gives_back_the_lowest_single(hand: list[str], given: str) -> None:
    env = scum_table([hand, ["3", "6"], ["7", "8"], ["S", "10"]], trade=True)
    assert env.agent_selection == "player_0"  # the President's give-back (J5)
    assert choice(env, HeuristicAgent("scum")) == RULES.give_action(SLOT[given])


# ----------------------------------------------------------------------------- Scum: counting
def test_scum_counts_cards_and_leads_its_boss_first() -> None:
    """Every President, Wild President and other 12 has been played: the 12 is a boss."""
    policy = ScumPolicy(RULES)
    hand = [0] * 14
    hand[SLOT["12"]] = 1
    hand[SLOT["3"]] = 2
    played = [0] * 14
    played[SLOT["12"]] = 3
    played[SLOT["P"]] = 4
    played[SLOT["W"]] = 2
    mask = np.zeros(RULES.num_actions, dtype=np.int8)
    for a in (play(1, "3"), play(2, "3"), play(1, "12")):
        mask[a] = 1
    view = ClimbView(hand, 0, -1, played, LEAD, mask)
    assert policy.choose(view) == play(1, "12")
    fresh = ClimbView(hand, 0, -1, [0] * 14, LEAD, mask)
    assert policy.choose(fresh) == play(2, "3")  # the 12 can still be beaten


# ----------------------------------------------------------------------------- Scandal
def scandal_env(hands: list[list[int]], discard: list[int], stock: list[int]) -> Any:
    env = get_game("scandal").make(num_players=2)
    env.reset(seed=0, options={"hands": hands, "discard": discard, "stock": stock, "dealer": 1})
    return env


def scandal_deal(hand0: list[int], pile: list[int]) -> Any:
    """Player 0 holds ``hand0``; ``pile`` top first; the rest split between hand 1 and stock."""
    used = set(hand0) | set(pile)
    rest = [c for c in range(80) if c not in used]
    return scandal_env([hand0, rest[:10]], pile, rest[10:])


def run_turn(env: Any, agent: Any) -> list[int]:
    """Let ``agent`` play player_0's whole turn; returns its actions."""
    name = "player_0"
    agent.reset(table_info(env, "scandal", name))
    actions = []
    while env.agent_selection == name and env.agents:
        obs = env.observe(name)
        a = int(agent.act(obs["observation"], obs["action_mask"], {"agent": name}))
        assert obs["action_mask"][a] == 1
        actions.append(a)
        env.step(a)
    return actions


# Watergate (scandal 2): title 2, Nixon 17 (blue), Ford 18 (blue), "Deep Throat" 38 (red).
# The Chappaquiddick Incident (scandal 0): title 0, Ted Kennedy 23 (green), Dike Bridge 48.
JUNK = [20, 21, 40, 41, 42, 55, 56]


def test_scandal_melds_a_complete_meld_and_lays_off() -> None:
    env = scandal_deal([2, 17, 18, 38, *JUNK[:4]], pile=[60])
    actions = run_turn(env, HeuristicAgent("scandal"))
    game = env.unwrapped.game
    lay = game.rules.layout
    assert lay.MELD_START + 2 in actions
    assert int(game.meld_owner[2]) == 0
    assert all(int(game.placed_by[c]) == 0 for c in (2, 17, 18, 38))


def test_scandal_deep_draw_honours_the_duty_to_meld() -> None:
    """Title and Ted Kennedy in hand, Dike Bridge one deep under a junk card (S3)."""
    env = scandal_deal([0, 23, *JUNK[:5]], pile=[60, 48])
    actions = run_turn(env, HeuristicAgent("scandal"))
    game = env.unwrapped.game
    lay = game.rules.layout
    assert actions[0] == lay.DRAW_DISCARD + 1  # depth 1: takes 60 and 48
    assert int(game.meld_owner[0]) == 0 and int(game.placed_by[48]) == 0
    assert game.duty == -1


def test_scandal_discards_the_most_valuable_dead_card() -> None:
    """Nothing to meld: keep the Watergate cards (title in hand), throw the dead blue."""
    dead_blue = next(
        c
        for c in range(80)
        if XE.make_rules(get_game("scandal").config_class()()).deck.colours[c] == "blue"
        and c not in (17, 18)
        and 2 not in XE.make_rules(get_game("scandal").config_class()()).deck.scandals_of[c]
    )
    env = scandal_deal([2, 17, dead_blue, 40, 41], pile=[60])
    actions = run_turn(env, HeuristicAgent("scandal"))
    lay = env.unwrapped.game.rules.layout
    assert actions == [lay.DRAW_STOCK, lay.DISCARD + dead_blue]


# ----------------------------------------------------------------------------- Scandal: S4
# Iran-Contra (scandal 6): title 6, Reagan 19 (blue), North 41, Poindexter 42 (red),
# Arms for Hostages 55, Shredded Documents 57 (black). Dike Bridge 48 is scandal 0.


def decide(env: Any, agent: Any, name: str = "player_0") -> int:
    """``agent``'s choice for ``name``'s current observation (the agent is not reset)."""
    obs = env.observe(name)
    a = int(agent.act(obs["observation"], obs["action_mask"], {"agent": name}))
    assert obs["action_mask"][a] == 1
    return a


def test_scandal_takes_a_discard_that_builds_on_a_dead_card() -> None:
    """Two Iran-Contra cards and a dead card: Arms for Hostages is worth taking."""
    env = scandal_deal([41, 57, 48], pile=[55])
    lay = env.unwrapped.game.rules.layout
    assert run_turn(env, HeuristicAgent("scandal"))[0] == lay.DRAW_DISCARD


def test_scandal_does_not_swap_a_discard_for_a_card_as_good() -> None:
    """S4: every card in hand builds the same meld as the top discard, so taking it
    would only throw one as good back (how two heuristics once swapped cards for
    ever): draw from the stock."""
    env = scandal_deal([41, 42, 57], pile=[55])
    lay = env.unwrapped.game.rules.layout
    assert run_turn(env, HeuristicAgent("scandal"))[0] == lay.DRAW_STOCK


def test_scandal_heuristic_plays_a_repeated_position_differently() -> None:
    """S4: back at a draw it has met this hand, the top discard is taken only to lay
    it down at once (else the stock); back at a discard, the next-ranked card goes."""
    env = scandal_deal([41, 57, 48], pile=[55])
    agent = HeuristicAgent("scandal")
    agent.reset(table_info(env, "scandal", "player_0"))
    lay = env.unwrapped.game.rules.layout
    assert decide(env, agent) == lay.DRAW_DISCARD
    assert decide(env, agent) == lay.DRAW_STOCK  # same observation again
    env.step(lay.DRAW_STOCK)
    first, second, third = (decide(env, agent) for _ in range(3))
    assert len({first, second, third}) == 3
    assert all(lay.DISCARD <= a < lay.DISCARD + 80 for a in (first, second, third))


def test_scandal_repeat_memory_counts_positions_and_forgets_at_a_new_hand() -> None:
    """A position is the observation less the turn counter; a lower turn is a new hand."""
    env = scandal_deal([41, 57, 48], pile=[55])
    spec = env.unwrapped.obs_spec
    memory = RepeatMemory(spec)
    obs = env.observe("player_0")["observation"].copy()
    later = obs.copy()
    later[spec.slices["turn"]] = 0.5
    assert [memory.visits(obs), memory.visits(later), memory.visits(later)] == [0, 1, 2]
    assert memory.visits(obs) == 0  # the turn went down: a new hand


@pytest.mark.parametrize("kind", ["greedy", "heuristic"])
def test_scandal_no_deep_draw_leaves_a_single_card_to_draw(kind: str) -> None:
    """S4: with the stock empty, taking Dike Bridge from under the top card would
    leave one card in stock and pile, and small hands could then never meld again:
    the same deep draw taken with a stock (test above) is refused here."""
    hand0 = [0, 23, 41, 57, 40, 70]
    rest = [c for c in range(80) if c not in {*hand0, 60, 48}]
    env = scandal_env([hand0, rest], [60, 48], [])
    lay = env.unwrapped.game.rules.layout
    agent = GreedyAgent("scandal") if kind == "greedy" else HeuristicAgent("scandal")
    agent.reset(table_info(env, "scandal", "player_0"))
    assert env.observe("player_0")["action_mask"][lay.DRAW_DISCARD + 1] == 1
    assert decide(env, agent) in (lay.DRAW_STOCK, lay.DRAW_DISCARD)


@pytest.mark.parametrize("kind", ["greedy", "heuristic"])
def test_scandal_the_last_deep_draw_is_taken_to_go_out(kind: str) -> None:
    """S4, S8: the same deep draw with only the title and Ted Kennedy in hand goes
    out (meld the Chappaquiddick Incident, discard Campaign Contributions): taken."""
    hand0 = [0, 23]
    rest = [c for c in range(80) if c not in {*hand0, 60, 48}]
    env = scandal_env([hand0, rest], [60, 48], [])
    agent = GreedyAgent("scandal") if kind == "greedy" else HeuristicAgent("scandal")
    agent.reset(table_info(env, "scandal", "player_0"))
    game = env.unwrapped.game
    actions = []
    while game.hand_end == XE.END_NONE:
        actions.append(decide(env, agent))
        env.step(actions[-1])
    lay = game.rules.layout
    assert actions[0] == lay.DRAW_DISCARD + 1 and actions[-1] == lay.DISCARD + 60
    assert game.hand_end == XE.END_OUT


def test_greedy_deep_draws_to_meld_and_collects_sets() -> None:
    """Greedy takes Dike Bridge from under a card to meld the Chappaquiddick Incident
    (S3), then throws a card of the scandal it holds fewest of."""
    env = scandal_deal([0, 23, 41, 57, 40, 70], pile=[60, 48])
    actions = run_turn(env, GreedyAgent("scandal"))
    game = env.unwrapped.game
    lay = game.rules.layout
    assert actions[0] == lay.DRAW_DISCARD + 1
    assert int(game.meld_owner[0]) == 0
    # left: North, Shredded Documents (an Iran-Contra pair), and three single 5-point
    # cards (Elizabeth Ray 40, Campaign Contributions 60, a Beam Me Up card 70):
    # a single goes (equal values: the lowest id), the pair stays.
    assert actions[-1] == lay.DISCARD + 40 and game.hands[0][[41, 57]].all()


def test_greedy_takes_a_discard_that_grows_a_set() -> None:
    env = scandal_deal([41, 57, 48], pile=[55])
    lay = env.unwrapped.game.rules.layout
    actions = run_turn(env, GreedyAgent("scandal"))
    assert actions == [lay.DRAW_DISCARD, lay.DISCARD + 48]


@pytest.mark.parametrize("kind", ["greedy", "heuristic"])
def test_scandal_agents_are_deterministic(kind: str) -> None:
    """Same deal, fresh agents: the same moves (the memory is only what they saw)."""
    runs = []
    for _ in range(2):
        agents: list[Any] = [
            GreedyAgent("scandal") if kind == "greedy" else HeuristicAgent("scandal")
            for _ in range(3)
        ]
        actions, _returns, _ = play_episode("scandal", {"num_players": 3}, agents, seed=4)
        runs.append(actions)
    assert runs[0] == runs[1] and len(runs[0]) > 10


# ----------------------------------------------------------------------------- strength
def test_heuristic_beats_random_in_duplicate_scum() -> None:
    """Heuristic pair vs random pair, each deal played in both seatings: >= 90% won."""
    wins = 0
    deals = 30
    for deal in range(deals):
        total = 0.0
        for shift in (0, 1):
            mine = [(i + shift) % 2 == 0 for i in range(4)]
            agents: list[Any] = [
                HeuristicAgent("scum") if m else RandomAgent(seed=deal * 10 + i)
                for i, m in enumerate(mine)
            ]
            _actions, returns, _ = play_episode("scum", {"num_players": 4}, agents, seed=deal)
            total += sum(returns[f"player_{i}"] * (1 if m else -1) for i, m in enumerate(mine))
        wins += total > 0
    assert wins >= 0.9 * deals
