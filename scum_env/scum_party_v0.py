"""Placeholder replaced below by the generated documentation page."""

from __future__ import annotations

from cardsuite.aec import env_factories
from cardsuite.docs import doc_page
from cardsuite.errors import *  # noqa: F403  (the named errors, importable from here)
from cardsuite.errors import __all__ as _errors
from scum_env.party.config import PartyConfig
from scum_env.party.encoding import observation_spec, state_spec
from scum_env.party.engine import action_rules
from scum_env.party.env import PartyEnv
from scum_env.party.tables import split_tables, swap_sizes

__all__ = [*_errors, "PartyEnv", "env", "raw_env"]


raw_env, env = env_factories(PartyEnv)


_DOC = """Scum Party — PettingZoo AEC environment ``scum_env.scum_party_v0``
=====================================================================

Scum Party as printed in its rule book, with the project's rulings P1–P8,
each stated on the Scum Party page (``docs/scum_party.md``): 5 to 50 players, one table up to 15 players,
several ranked tables above, a ladder between tables after every hand and a
tournament score. One env holds every player of every table.

{example}

=================== =====================================================
Agents              ``player_0`` .. ``player_{{n-1}}``, n = 5..50 (P2);
                    identities never change as players move between
                    tables; tables, seats and roles are state
Action space        ``Discrete(A)``, fixed per config, sized for the
                    largest table's decks (table below)
Observation space   ``Dict(observation=Box(float32, (D,)), action_mask=Box(int8, (A,)))``,
                    the same for every player, padded to the largest table
State               ``state()``: float32 global state (all hands) for critics
Turn order          interleaved over tables (below); at a table King first,
                    down to the Scum (P3); players who went out are skipped
                    but stay in ``agents``
Episode             a tournament of ``num_hands`` hands (default 5); every
                    agent terminates together at its end
=================== =====================================================

Game flow
---------
Tables (P2): up to 15 players play at one table; more sit at ``ceil(n/15)``
tables of 5–15 players as equal as possible, larger tables on top (or the
sizes given in ``table_sizes``), ranked from the top table (0, the Throne
Room) down. Splits by default: {split_examples}.

Cards (P1): standard 52-card decks plus two Jokers each, by table size: 5–8
players 2 decks, 9–12 three, 13–15 four; ranks 2 < ... < K < A < Joker; suits
never matter. A single Joker beats a play of any size and nothing beats it.
First hand: seats from a seeded random draw (P3) or ``options["seating"]``.
Every hand, at every table: the Scum deals one card at a time from itself
upwards (P4); the forced trades are done by the engine (P5): the Scum's two
highest to the King, then the King's two lowest to the Scum, the Assistant
Scum's highest to the Assistant King, then the Assistant King's lowest back.
The King leads (P6); the leader must play 1+ cards of one rank; every other
player with cards then may once play as many cards of a higher rank (or a
single Joker), or pass; the highest play wins and leads next; if its player
went out, the lead goes to the highest-ranking player still holding cards. A
Joker ends the trick at once. A table's hand ends when one player holds cards.

Interleaving: the top table acts first; after every decision the turn moves to
the next table below that still has its hand in progress (wrapping from the
bottom table to the top). Tables that finished wait. When every table has
finished: the ladder (P7) — between adjacent tables the bottom m of the upper
and the top m of the lower table swap, m = floor(min(sizes) / 2) (default
splits: {swap_examples}); new seats: arrivals from above, then those who stay,
then arrivals from below, each in finish order — then the hand is scored from
the new seats (P8): T - t points at table t (0 = top) of T, King +2,
Assistant King +1, Assistant Scum -1, Scum -2. The next hand is dealt at every
table and the top table acts first again.

Options (``env(**config)``, also ``configs/scum_party/*.yaml``)
---------------------------------------------------------------
{config_table}

Episodes and rewards
--------------------
* An episode is one tournament of ``num_hands`` hands. ``reset(seed=s)``
  starts one from a seeded seat draw; ``reset()`` starts the next tournament
  from the env's own random stream.
* ``reward="points"`` (default): after every hand each agent receives that
  hand's P8 points (table points plus role points, after the ladder) at the
  step that finished the last table; the episode return is the tournament
  total. ``"final"``: the tournament total, once, at the end. ``"rank"``: at
  the end, (players with a lower total - players with a higher total) / (n - 1).
* Illegal actions: ``raw_env`` raises ``IllegalActionError`` naming the
  action and why it is illegal (state unchanged); ``env()`` gives the offender
  ``illegal_penalty`` (default -1), every other agent 0, and ends the episode
  (``infos[agent]["illegal_action"]``).
* ``infos`` at the end: ``standing`` (1-based, ties share the better rank;
  also as ``finish_position``), ``score``, ``points`` (last hand), ``table``,
  ``position`` and ``role`` (the seat taken after the last ladder), ``hands``.

Reset options
-------------
``reset(seed=None, options=None)``; ``options`` may hold

* ``seating``: initial seats, one list per table (top first) of player
  indices in role order (King first), or one flat list of all players cut by
  the table sizes;
* ``hands``: one list of card names per player, as dealt before the trades of
  the first hand (``"2"`` .. ``"10"``, ``"J"``, ``"Q"``, ``"K"``, ``"A"``,
  ``"JK"``; suit letters are accepted and ignored: ``"AS"``, ``"10H"``);
  hands may hold fewer cards than the pack; more copies than a table's decks
  hold is an error;
* ``trade``: ``False`` skips the first hand's forced trades (scripted
  scenarios only; P5 trades in every hand);
* ``scores``: tournament totals per player;
* ``state``: a JSON string from ``scum_env.party.engine.to_json`` (or its parsed
  dict) to resume; every field is checked (``StateError`` names a bad one).

A bad preset raises ``PresetError`` naming the problem.

Determinization (search): ``env.unwrapped.determinize(agent, rng)`` returns a
full ``Party`` state: the agent's own table resampled under everything it has
seen (``scum_env.knowledge.resample_hidden``), every other table's hands
redealt at random with the same sizes (the agent sees nothing there).

Rendering: ``render()`` shows the table to act and the ladder;
``env.unwrapped.render_table(t)`` and ``render_ladder()`` one at a time.

Actions ({players} players, {decks} decks at the largest table: A = {num_actions})
--------------------------------------------------------------
A = 1 + 14 * 4d for d decks at the config's largest table: 113 (2 decks),
169 (3), 225 (4; e.g. 13–15 players, or 50 players at [13, 13, 12, 12]). The
action table has the same meaning at every table; a table with fewer decks
uses only its prefix (its mask never allows more cards of one rank than its
decks hold).

{action_table}

Observation ({players} players: D = {obs_size})
----------------------------------
Per-player pieces have P entries, P = the largest table of the config; they
are relative to the observer's own table: entry 0 is the observer, entry i
the i-th player after it in turn order; entries past the table's size are 0
(``seats`` marks the real ones). A player sees nothing of another table's
cards. Counts are raw unless the table says otherwise.

{obs_table}

Global state ({players} players: {state_size} floats)
----------------------------------------
{state_table}
"""


def _action_table(config: PartyConfig) -> str:
    rules = action_rules(config)
    k, c = rules.num_slots, rules.max_count
    return "\n".join(
        [
            "| ids | move |",
            "|---|---|",
            "| `0` | pass (never legal for the leader, P6) |",
            f"| `1 + (c-1)*{k} + r`, c = 1..{c}, r = 0..{k - 1} | play c cards of rank r; "
            "ranks 0..8 = 2..10, 9 J, 10 Q, 11 K, 12 A, 13 Joker (at most 2 per deck) |",
        ]
    )


def _build_doc() -> str:
    config = PartyConfig()
    rules = action_rules(config)
    spec = observation_spec(config)
    sspec = state_spec(config)
    splits = ", ".join(f"{n}: {list(split_tables(n))}" for n in (15, 16, 31, 46, 50))
    swaps = ", ".join(
        f"{list(split_tables(n))} -> {list(swap_sizes(split_tables(n)))}" for n in (16, 31, 50)
    )
    return doc_page(
        _DOC,
        setup=[
            "import pettingzoo, scum_env            # importing registers the env",
            'env = pettingzoo.make("aec", "cardsuite/scum_party-v0", num_players=50)',
        ],
        config=PartyConfig,
        spec=spec,
        num_actions=rules.num_actions,
        action_table=_action_table(config),
        split_examples=splits,
        swap_examples=swaps,
        state_table=sspec.table(),
        players=config.num_players,
        decks=rules.num_decks,
        state_size=sspec.size,
    )


#: The Markdown page of this env and its generated tables (``python -m cardsuite.docs``).
DOC_PAGE = "docs/scum_party.md"
DOC_TABLES = {
    "config-table": PartyConfig.doc_table,
    "action-table": lambda: _action_table(PartyConfig()),
    "observation-table": lambda: observation_spec(PartyConfig()).table(),
    "state-table": lambda: state_spec(PartyConfig()).table(),
}


__doc__ = _build_doc()
