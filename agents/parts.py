"""The agents layer's per-game parts (`PARTS`, by the game's registry name) as
``"module:attribute"`` strings, imported when first asked for; a new game adds its row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cardsuite.errors import ConfigError
from cardsuite.games import resolve

#: part -> the contract its consumers rely on.
DESCRIPTIONS: dict[str, str] = {
    "heuristic": "the heuristic factory: make(config, obs_spec, **params) -> act(obs, mask)",
    "batched_heuristic": "the batched heuristic class: cls.from_engine(engine, **params)",
    "greedy": "the greedy baseline factory: make(config, obs_spec) -> act(obs, mask)",
    "view": "the person's text view: view(table, observation, names) -> str",
    "search": "the ISMCTS adapter: a SearchKind (build(config, params), default cutoff, max_hand)",
    "openspiel": "the OpenSpiel adapter module (registers the game with pyspiel on import)",
}


@dataclass(frozen=True)
class AgentParts:
    """One game's parts of `DESCRIPTIONS`, and ``heuristic_params``, the heuristic's knobs."""

    heuristic: str
    batched_heuristic: str
    greedy: str
    view: str
    search: str
    openspiel: str
    heuristic_params: tuple[str, ...] = ()


#: The knobs of the climbing heuristic (`ScumParams` fields), Scum and Scum Party alike.
CLIMB_PARAMS = ("break_min_rest", "spend_specials", "special_top_count")


def _parts(short: str, batched: str, params: tuple[str, ...]) -> AgentParts:
    """A game's parts where each follows the layout's naming: ``baselines.SHORT:make``,
    ``greedy:SHORT_greedy``, ``views:SHORT_view``, ``games:SHORT_search``, ``openspiel.SHORT``."""
    agents = "cardsuite.agents"
    return AgentParts(
        heuristic=f"{agents}.baselines.{short}:make",
        batched_heuristic=f"{agents}.baselines.{batched}",
        greedy=f"{agents}.baselines.greedy:{short}_greedy",
        view=f"{agents}.play.views:{short}_view",
        search=f"{agents}.search.games:{short}_search",
        openspiel=f"{agents}.external.openspiel.{short}",
        heuristic_params=params,
    )


PARTS: dict[str, AgentParts] = {
    "scum": _parts("scum", "batched_scum:BatchedScumHeuristic", CLIMB_PARAMS),
    "scum_party": _parts("party", "party:BatchedPartyHeuristic", CLIMB_PARAMS),
    "scandal": _parts(
        "scandal", "batched_scandal:BatchedScandalHeuristic", ("take_cost", "deep_margin")
    ),
}


def agent_parts(game: str, need: str = "") -> AgentParts:
    """The parts of ``game`` (``-`` or capitals allowed in the name).

    Raises:
        ConfigError: no row for ``game``, naming the games that have one (and
            ``need``, the part the caller wanted, in the message).
    """
    key = game.replace("-", "_").lower() if isinstance(game, str) else game
    if key not in PARTS:
        what = f"no {need}" if need else "no agents"
        raise ConfigError(f"{what} for game {game!r}; games: {', '.join(sorted(PARTS))}")
    return PARTS[key]


def part(game: str, name: str) -> Any:
    """The object part ``name`` (one of `DESCRIPTIONS`) of ``game`` names, imported now."""
    if name not in DESCRIPTIONS:
        raise ConfigError(f"unknown agent part {name!r}; parts: {', '.join(DESCRIPTIONS)}")
    return resolve(getattr(agent_parts(game, name), name))
