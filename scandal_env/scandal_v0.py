"""Placeholder replaced below by the generated documentation page."""

from __future__ import annotations

from cardsuite.aec import env_factories
from cardsuite.docs import doc_page
from cardsuite.errors import *  # noqa: F403  (the named errors, importable from here)
from cardsuite.errors import __all__ as _errors
from scandal_env.config import ScandalConfig
from scandal_env.encoding import obs_spec
from scandal_env.engine import make_rules
from scandal_env.env import ScandalEnv

__all__ = [*_errors, "ScandalEnv", "env", "raw_env"]


raw_env, env = env_factories(ScandalEnv)


_DOC = """Scandal — PettingZoo AEC environment ``scandal_env.scandal_v0``
===============================================================

The rummy-like melding game of political scandals, with the project's
rulings S1–S9, each stated on the Scandal page (``docs/scandal.md``).

{example}

=================== =====================================================
Agents              ``player_0`` .. ``player_{{n-1}}``, n = 2..6 (S2)
Action space        ``Discrete({num_actions})`` (table below)
Observation space   ``Dict(observation=Box(float32, (D,)), action_mask=Box(int8, ({num_actions},)))``
State               ``state()``: float32 global state (every hand, the stock order)
Turn order          from the dealer's left (the non-dealer with 2 players), clockwise;
                    a turn is several steps of the same agent
Episode end         every agent terminates (or truncates) together
=================== =====================================================

Game summary
------------
80 cards (S1): for each of 16 scandals a brown title card, plus blue
(15 points), green (10), red (5) and black (5) cards of one scandal and 7 gold
cards that belong to 2–4 scandals (5 points per scandal). The dealer rotates
(S2); hands of 10 / 7 / 7 / 6 / 6 cards for 2–6 players; one card starts the
discard pile. A turn: **draw** from the stock or the discard pile (a card
deeper in the pile takes every card above it too and must be melded at once,
S3; an empty stock is the pile turned over, S4); **meld** any number of new
sets (title + a blue or green card + one more card of the scandal, one meld
per scandal per hand, S5) and **lay off** cards on any melded scandal (credited
to the player who lays them, S6); **discard** one card, never the top discard
drawn this turn (S7). Discarding the last card ends the hand at once (S8): each
player scores the value of the cards they melded or laid off minus the value of
the cards left in hand (S9). A hand with nothing to draw, or reaching
``max_turns`` turns, is blocked: scored the same way, reported as truncation.

The mask only offers steps from which the turn can still be finished: a deep
draw only if its card can then be melded with a card left over, a meld only if
it can be completed, never a step that empties the hand before the discard.

Options (``env(**config)``, also ``configs/scandal/*.yaml``)
-----------------------------------------------------------
{config_table}

Episodes and rewards
--------------------
* ``episode="hand"`` (default): an episode is one hand. When it ends every
  agent receives its net hand score (S9) divided by ``reward_scale``
  (default 100); terminated when a player went out, truncated when blocked.
* ``episode="game"``: hands follow each other (the deal rotating, S2) until
  someone reaches ``target_score`` after a hand (S9, terminated) or
  ``max_hands`` hands were played (truncated). Every hand's net score / scale
  is rewarded when that hand ends, so the return is the final total / scale.
* Illegal actions: ``raw_env`` raises ``IllegalActionError`` naming the action
  in words and why it is illegal (state unchanged); ``env()`` gives the
  offender ``illegal_penalty`` (default -1), every other agent 0, and ends the
  episode (``infos[agent]["illegal_action"]``).
* ``infos`` at the end of an episode: ``hand_score``, ``score``, ``hand_end``
  (``out``, ``blocked`` or ``max_turns``), ``hands_played``, ``game_over``,
  ``winner`` (highest total; several on a tie).

Reset options
-------------
``reset(seed=None, options=None)``; ``options`` may hold a preset first deal —
``hands`` (one list of card names or ids per player, required for a preset),
``discard`` (top first; default: one card turned up from the shuffled rest, or
an empty pile when ``hands`` and ``stock`` place every card),
``stock`` (top first; default: the shuffled rest), ``dealer`` (seat) — or
``state``: a JSON string from ``scandal_env.engine.to_json`` to resume exactly.
A bad preset raises ``PresetError`` naming the problem.

Actions ({num_actions} ids for the canonical deck, any number of players)
-------------------------------------------------------------------------
Card ids: titles 0–15 (scandal order), then blue, green, red, black cards, then
gold 73–79 (``scandal_env/data/deck.json``, ``docs/scandal.md``).

{action_table}

Observation (2 players: D = {obs_size}; 6 players: D = {obs_size6})
-------------------------------------------------------------------
Per-player pieces are relative: block 0 is the observer, block i the i-th
player after the observer in turn order.

{obs_table}
"""


def _build_doc() -> str:
    rules = make_rules(ScandalConfig())
    spec = obs_spec(rules)
    return doc_page(
        _DOC,
        setup=[
            "import numpy as np",
            "from scandal_env import scandal_v0",
            "env = scandal_v0.env(num_players=3)",
        ],
        config=ScandalConfig,
        spec=spec,
        num_actions=rules.layout.size,
        action_table=rules.layout.table(),
        obs_size6=obs_spec(make_rules(ScandalConfig(num_players=6))).size,
    )


#: The Markdown page of this env and its generated tables (``python -m cardsuite.docs``).
DOC_PAGE = "docs/scandal.md"
DOC_TABLES = {
    "config-table": ScandalConfig.doc_table,
    "action-table": lambda: make_rules(ScandalConfig()).layout.table(),
    "observation-table": lambda: obs_spec(make_rules(ScandalConfig())).table(),
}


__doc__ = _build_doc()
