"""Scum configuration: every rule option of RULINGS J1–J9 as a field, defaults those of
the primary 4J rule book (presets: ``configs/scum/*.yaml``, `ScumConfig.from_yaml`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from cardsuite.config import ConfigBase, doc_field, illegal_action_field, illegal_penalty_field

MIN_PLAYERS = 4
MAX_PLAYERS = 12


@dataclass(frozen=True)
class ScumConfig(ConfigBase):
    """Rules, episode and reward options of Scum (4J rules)."""

    num_players: int = doc_field(4, "players, 4–12 (J2); one deck per six players (J1)")
    trade_rules: Literal["english", "spanish"] = doc_field(
        "english",
        "J5: `english` — Next to Scum trades one card with the Vice President; "
        "`spanish` — Scum makes that trade",
    )
    carousel: bool = doc_field(
        False,
        "J9: a round goes on until every other player with cards has passed since the last play",
    )
    color_clash: bool = doc_field(
        False, "J9: equal ranks ordered by colour Red > Orange > Green > Blue"
    )
    wild_queen: bool = doc_field(
        False, "J9: a President no longer ends the round; a Wild President beats it"
    )
    target_score: int | None = doc_field(
        None, "J2/J8: points that end a game; `None` = 40 up to six players, 60 above"
    )
    episode: Literal["series", "game"] = doc_field(
        "series",
        "`series`: an episode is one series of a running game (rewards from J8 points); "
        "`game`: an episode is a whole game to the target score (win/loss reward)",
    )
    reward: Literal["points", "centered"] = doc_field(
        "points",
        "series episodes: `points` — the J8 points n+1-k of the k-th player out; "
        "`centered` — the same, shifted and scaled to [-1, 1] (sums to 0)",
    )
    illegal_action: Literal["raise", "penalize"] = illegal_action_field()
    illegal_penalty: float = illegal_penalty_field()

    def validate(self) -> None:
        """J2 player range and a positive target."""
        if not MIN_PLAYERS <= self.num_players <= MAX_PLAYERS:
            self._fail(
                "num_players",
                f"Scum is played by {MIN_PLAYERS} to {MAX_PLAYERS} players (J2), got {self.num_players}",
            )
        if self.target_score is not None and self.target_score < 1:
            self._fail(
                "target_score", f"must be a positive number of points, got {self.target_score}"
            )

    @property
    def num_decks(self) -> int:
        """J1: one 54-card deck per six players."""
        return (self.num_players + 5) // 6

    @property
    def target(self) -> int:
        """The effective target score (J2): 40 up to six players, 60 above."""
        if self.target_score is not None:
            return self.target_score
        return 40 if self.num_players <= 6 else 60
