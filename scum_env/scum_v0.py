"""Placeholder replaced below by the generated documentation page."""

from __future__ import annotations

from cardsuite.aec import env_factories
from cardsuite.docs import doc_page
from cardsuite.errors import *  # noqa: F403  (the named errors, importable from here)
from cardsuite.errors import __all__ as _errors
from scum_env.config import ScumConfig
from scum_env.encoding import observation_spec
from scum_env.env import ScumEnv
from scum_env.rules import scum_rules

__all__ = [*_errors, "ScumEnv", "env", "raw_env"]


raw_env, env = env_factories(ScumEnv)


_DOC = """Scum (4J rules) — PettingZoo AEC environment ``scum_env.scum_v0``
=====================================================================

Scum as printed in the 4J rule book, every rule and variant, with the
project's rulings J1–J9, each stated on the Scum page (``docs/scum.md``).

{example}

=================== =====================================================
Agents              ``player_0`` .. ``player_{{n-1}}``, n = 4..12 (J2);
                    identities never change, roles and seats are state
Action space        ``Discrete(A)``, fixed per config (table below)
Observation space   ``Dict(observation=Box(float32, (D,)), action_mask=Box(int8, (A,)))``
State               ``state()``: float32 global state (all hands) for critics
Turn order          role order, President first (J3); players who went out
                    are skipped but stay in ``agents``
Episode end         every agent terminates together, rewards then
=================== =====================================================

Game flow
---------
Cards: 54 per deck — Red/Orange/Green/Blue 2..12, a Scum and a President card
of each colour, two Wild Presidents; Scum < 2 < ... < 12 < President < Wild
President; one deck per six players (J1). First series: roles from a seeded
random draw (or ``options["roles"]``), no trades. Every series: the cards are
dealt one at a time from the President (J4); from the second series on, the
trades (J5): the Scum's two highest go to the President (forced, done by the
engine), the President gives back two cards of its choice (two decisions),
Next to Scum's highest goes to the Vice President, who gives back one card
(``trade_rules="spanish"``: the Scum makes that trade); four players: one
card each way between President and Scum only. The President leads (J6); the
leader must play a set (1+ cards of one rank); each other player with cards
then gets one chance, in turn order, to beat it with as many cards of a higher
rank, or to pass; a single President or Wild President beats a set of any
size. A President or Wild President ends the round at once (J7). The highest
play wins and leads next; a winner who is out hands the lead to the next player
in turn order with cards. The series ends when one player holds cards; the
k-th out scores n+1-k points (J8). Variants (J9): ``carousel``,
``color_clash``, ``wild_queen``, in any combination.

Options (``env(**config)``, also ``configs/scum/*.yaml``)
---------------------------------------------------------
{config_table}

Episodes and rewards
--------------------
* ``episode="series"`` (default): an episode is one series of a running game.
  After a seeded ``reset(seed=...)`` it is the game's first series (drawn roles,
  no trades); a later ``reset()`` without seed or options continues the same
  game with the next series — roles from the finish order and the trades
  (J3, J5) — until someone reaches the target (J2, J8), after which a new game
  starts. The reward, given to every agent when the series ends, is its J8
  points n+1-k (``reward="points"``) or those points centered and scaled to
  [-1, 1] (``reward="centered"``).
* ``episode="game"``: an episode is a whole game to the target score; the
  winner (highest total, ties broken by the last series' finish order, J8)
  gets +1 and every other agent -1.
* Illegal actions: ``raw_env`` raises ``IllegalActionError`` naming the
  action and why it is illegal (state unchanged); ``env()`` gives the offender
  ``illegal_penalty`` (default -1), every other agent 0, and ends the episode
  (``infos[agent]["illegal_action"]``).
* ``infos`` at the end of an episode: ``finish_position``, ``role`` (role
  during the last series), ``points``,
  ``score``, ``series``, ``game_over``, ``winner``.

Reset options
-------------
``reset(seed=None, options=None)``; ``options`` may hold

* ``roles``: players in role order, President first (a permutation of 0..n-1);
* ``hands``: one list of card names per player, as dealt before the trades
  (``"R7"``, ``"BS"`` Blue Scum, ``"OP"`` Orange President, ``"W"`` Wild
  President; without ``color_clash`` the colour letter may be left out);
  hands may hold fewer cards than the pack (the rest stays out of play, for
  scripted scenarios); more copies of a card than the pack holds is an error;
* ``trade``: ``True`` to start with the trades, as in a later series;
* ``scores``: game totals per player (below the target);
* ``state``: a JSON string from ``scum_env.engine.to_json`` (or its parsed dict)
  to resume exactly; every field is checked (``StateError`` names a bad one).

A bad preset raises ``PresetError`` naming the problem.

Actions (4 players, default rules: A = {num_actions})
-----------------------------------------------------
{action_table}

Observation (4 players, default rules: D = {obs_size})
------------------------------------------------------
Per-player pieces are relative: entry 0 is the observer, entry i the i-th
player after the observer in turn order. Counts are raw (not normalized)
unless the table says otherwise.

{obs_table}
"""


def _action_table() -> str:
    rules = scum_rules(ScumConfig())
    k, c = rules.num_slots, rules.max_count
    return "\n".join(
        [
            "| ids | move |",
            "|---|---|",
            "| `0` | pass (never legal for the leader, J6) |",
            f"| `1 + (c-1)*K + s`, c = 1..{c}, s = 0..K-1 (K = {k}) | play c cards whose best "
            "card is slot s; slots: 0 Scum, 1..11 ranks 2..12, 12 President, 13 Wild President; "
            "with `color_clash` K = 53 slots (rank x colour, Blue < Green < Orange < Red, then "
            "the Wild President) and the other c-1 cards are the lowest colours of that rank |",
            f"| `{rules.give_base} + s` | give back one card of slot s (J5 give-back decision) |",
        ]
    )


def _build_doc() -> str:
    rules = scum_rules(ScumConfig())
    return doc_page(
        _DOC,
        setup=[
            "import pettingzoo, scum_env            # importing registers the env",
            'env = pettingzoo.make("aec", "cardsuite/scum-v0", num_players=5)',
        ],
        config=ScumConfig,
        spec=observation_spec(rules),
        num_actions=rules.num_actions,
        action_table=_action_table(),
    )


#: The Markdown page of this env and its generated tables (``python -m cardsuite.docs``).
DOC_PAGE = "docs/scum.md"
DOC_TABLES = {
    "config-table": ScumConfig.doc_table,
    "action-table": _action_table,
    "observation-table": lambda: observation_spec(scum_rules(ScumConfig())).table(),
}


__doc__ = _build_doc()
