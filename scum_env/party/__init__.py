"""Scum Party (rules/scum-party.txt, rulings P1–P8): several Scum tables as one tournament.

Each table is played by the shared climbing-game engine ([`scum_env.engine`][scum_env.engine])
under Party table rules (`scum_env.party.cards`); this package adds the
table split (P2), the ladder between tables (P7), tournament scoring (P8), the
multi-table game state and its PettingZoo env (`scum_env.scum_party_v0`).
"""
