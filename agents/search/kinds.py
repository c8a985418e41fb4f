"""The agent kinds ``ismcts-batched`` and ``search:`` (entry points of ``pyproject.toml``)."""

from __future__ import annotations

from cardsuite.agents.kinds import AgentKind

ISMCTS_BATCHED = AgentKind(
    "ismcts-batched",
    "cardsuite.agents.search.reference:BatchedISMCTSAgent",
    "the default ismcts under its name before 0.4 (e.g. ismcts-batched:batch=50)",
)

SEARCH = AgentKind(
    "search",
    "cardsuite.agents.search.guided:GuidedSearchAgent",
    "search over a learned agent: its policy as prior and rollout policy "
    "(search:pretrained:scum4, search:pretrained:scandal2:budget=50,temperature=2)",
    argument="name",
    wraps="cardsuite.agents.search.guided:split_spec",
    leaderboard="cardsuite.agents.search.games:guided_specs",
)
