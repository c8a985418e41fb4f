"""Scum Party configuration: players, tables, hands, rewards (P1–P8), defaults those of
the rule book (presets: ``configs/scum_party/*.yaml``, `PartyConfig.from_yaml`)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

from cardsuite.config import ConfigBase, doc_field, illegal_action_field, illegal_penalty_field
from scum_env.party.tables import check_sizes, split_tables

MIN_PLAYERS = 5
MAX_PLAYERS = 50


@dataclass(frozen=True)
class PartyConfig(ConfigBase):
    """Rules, episode and reward options of Scum Party."""

    num_players: int = doc_field(8, "players, 5–50 (P2)")
    num_hands: int = doc_field(
        5,
        "hands in a tournament (one episode, P8); 5 lets a player climb from the bottom "
        "of a four-table party to the top table and score there",
    )
    table_sizes: str | None = doc_field(
        None,
        "fixed table sizes, top table first, as `'13,13,12,12'` or a YAML list; 5–15 "
        "each, summing to `num_players`; `None`: the P2 split",
    )
    reward: Literal["points", "final", "rank"] = doc_field(
        "points",
        "`points`: each hand's P8 points, to every agent when the hand is scored; "
        "`final`: the tournament total, at the end only; `rank`: at the end, (players "
        "below - players above) / (n - 1), in [-1, 1]",
    )
    illegal_action: Literal["raise", "penalize"] = illegal_action_field()
    illegal_penalty: float = illegal_penalty_field()

    def __post_init__(self) -> None:
        """Accept ``table_sizes`` as an int or a list or tuple of ints, then validate."""
        sizes: Any = self.table_sizes
        if isinstance(sizes, int) and not isinstance(sizes, bool):
            sizes = [sizes]
        if isinstance(sizes, list | tuple):
            if not all(isinstance(s, int) and not isinstance(s, bool) for s in sizes):
                self._fail("table_sizes", f"must be whole numbers of players, got {sizes!r}")
            object.__setattr__(self, "table_sizes", ",".join(str(s) for s in sizes))
        super().__post_init__()

    def validate(self) -> None:
        """P2 player range, table sizes that fit, at least one hand."""
        if not MIN_PLAYERS <= self.num_players <= MAX_PLAYERS:
            self._fail(
                "num_players",
                f"Scum Party is played by {MIN_PLAYERS} to {MAX_PLAYERS} players (P2), "
                f"got {self.num_players}",
            )
        if self.num_hands < 1:
            self._fail("num_hands", f"a tournament needs at least 1 hand, got {self.num_hands}")
        if self.table_sizes is not None:
            sizes = self._parse_sizes()
            why = check_sizes(sizes)
            if why:
                self._fail("table_sizes", why)
            if sum(sizes) != self.num_players:
                self._fail(
                    "table_sizes",
                    f"tables {self.table_sizes!r} seat {sum(sizes)} players, "
                    f"but num_players is {self.num_players}",
                )

    def _parse_sizes(self) -> tuple[int, ...]:
        text = str(self.table_sizes).replace(" ", "")
        try:
            return tuple(int(part) for part in text.split(","))
        except ValueError:
            self._fail(
                "table_sizes",
                f"expected comma-separated numbers of players like '8,8', got {self.table_sizes!r}",
            )

    @cached_property
    def sizes(self) -> tuple[int, ...]:
        """Players at each table, top table first (P2)."""
        if self.table_sizes is None:
            return split_tables(self.num_players)
        return self._parse_sizes()

    @property
    def num_tables(self) -> int:
        """Number of tables."""
        return len(self.sizes)

    @property
    def max_table(self) -> int:
        """Players at the largest table (observations are padded to it)."""
        return max(self.sizes)
