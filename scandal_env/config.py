"""The Scandal game config (every RULINGS option is a field)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from cardsuite.config import ConfigBase, doc_field, illegal_action_field, illegal_penalty_field
from cardsuite.errors import ConfigError

#: S2: cards dealt to each player, by number of players.
HAND_SIZES: dict[int, int] = {2: 10, 3: 7, 4: 7, 5: 6, 6: 6}

#: Directory of the shipped presets (``configs/scandal/*.yaml``).
PRESET_DIR = Path(__file__).resolve().parent.parent / "configs" / "scandal"


@dataclass(frozen=True)
class ScandalConfig(ConfigBase):
    """Options of a Scandal game; defaults reproduce the rule book."""

    num_players: int = doc_field(2, "players, 2 to 6 (S2)")
    target_score: int = doc_field(
        500, "the game ends after the hand in which someone reaches this total (S9)", ge=1
    )
    max_turns: int = doc_field(
        300,
        "a hand ends as blocked (truncation, scored normally) after this many turns "
        "(S4); a finite limit guarantees every hand ends. The default is over twice "
        "the longest hand the baseline agents played (139 turns; none of 45,000 hands "
        "cut; docs/scandal.md, Turn limit)",
        ge=1,
    )
    max_hands: int = doc_field(
        100,
        "episode='game' only: the game ends as truncated after this many hands "
        "(blocked hands can keep every total below the target forever)",
        ge=1,
    )
    deck: str | None = doc_field(None, "deck file path; None = the canonical deck (S1)")
    episode: Literal["hand", "game"] = doc_field(
        "hand", "'hand': an episode is one hand; 'game': hands until the target is reached"
    )
    reward_scale: float = doc_field(
        100.0, "reward at the end of each hand = that hand's net score (S9) / reward_scale", gt=0
    )
    illegal_action: Literal["raise", "penalize"] = illegal_action_field()
    illegal_penalty: float = illegal_penalty_field()

    def validate(self) -> None:
        """Check the S2 player count (the limits and scale are bounded by their fields)."""
        if self.num_players not in HAND_SIZES:
            self._fail("num_players", f"must be 2 to 6 (S2), got {self.num_players}")

    @property
    def hand_size(self) -> int:
        """Cards dealt to each player (S2)."""
        return HAND_SIZES[self.num_players]

    @classmethod
    def preset(cls, name: str, **overrides: object) -> ScandalConfig:
        """Load ``configs/scandal/<name>.yaml``; ``overrides`` win over the file."""
        path = PRESET_DIR / f"{name}.yaml"
        if not path.is_file():
            known = sorted(p.stem for p in PRESET_DIR.glob("*.yaml"))
            raise ConfigError(f"unknown Scandal preset {name!r}; known presets: {', '.join(known)}")
        return cls.from_yaml(path, **overrides)
