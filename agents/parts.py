"""The agents layer's table of per-game parts (`PARTS`), keyed by the game's registry name.

What this layer adds to a game (heuristics, greedy, the person's view, the search and
OpenSpiel adapters) as ``"module:attribute"`` strings, imported when first asked for. A new
game adds its row (``tests/core/test_game_records.py`` checks each game has one).
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
    """Where the agents layer keeps one game's parts (module doc).

    Attributes:
        heuristic, batched_heuristic, greedy, view, search, openspiel: the parts
            of `DESCRIPTIONS`, as ``"module:attribute"`` (or ``"module"``) strings.
        heuristic_params: the knobs the heuristic (and its batched twin) accept.
    """

    heuristic: str
    batched_heuristic: str
    greedy: str
    view: str
    search: str
    openspiel: str
    heuristic_params: tuple[str, ...] = ()


#: The knobs of the climbing heuristic (`ScumParams` fields), Scum and Scum Party alike.
CLIMB_PARAMS = ("break_min_rest", "spend_specials", "special_top_count")

PARTS: dict[str, AgentParts] = {
    "scum": AgentParts(
        heuristic="cardsuite.agents.baselines.scum:make",
        batched_heuristic="cardsuite.agents.baselines.batched_scum:BatchedScumHeuristic",
        greedy="cardsuite.agents.baselines.greedy:scum_greedy",
        view="cardsuite.agents.play.views:scum_view",
        search="cardsuite.agents.search.games:scum_search",
        openspiel="cardsuite.agents.external.openspiel.scum",
        heuristic_params=CLIMB_PARAMS,
    ),
    "scum_party": AgentParts(
        heuristic="cardsuite.agents.baselines.party:make",
        batched_heuristic="cardsuite.agents.baselines.party:BatchedPartyHeuristic",
        greedy="cardsuite.agents.baselines.greedy:party_greedy",
        view="cardsuite.agents.play.views:party_view",
        search="cardsuite.agents.search.games:party_search",
        openspiel="cardsuite.agents.external.openspiel.party",
        heuristic_params=CLIMB_PARAMS,
    ),
    "scandal": AgentParts(
        heuristic="cardsuite.agents.baselines.scandal:make",
        batched_heuristic="cardsuite.agents.baselines.batched_scandal:BatchedScandalHeuristic",
        greedy="cardsuite.agents.baselines.greedy:scandal_greedy",
        view="cardsuite.agents.play.views:scandal_view",
        search="cardsuite.agents.search.games:scandal_search",
        openspiel="cardsuite.agents.external.openspiel.scandal",
        heuristic_params=("take_cost", "deep_margin"),
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
