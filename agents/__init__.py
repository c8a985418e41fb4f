"""Agents: the protocol, the baselines, the searches, learned and external agents; evaluation and play.

Imported as `cardsuite.agents` (the ``agents/`` folder). ``base``, ``kinds``, ``registry``
and ``parts`` (the protocol, agent kinds, agents by spec string, the per-game parts) sit at
the top; the folders ``baselines/``, ``search/``, ``learned/``, ``external/``, ``arena/``
and ``play/`` each say in their docstring what lives there and what they may import.

Imports: the core and the games, never ``cardsuite.train``. Modules that moved in 0.3 keep
their old names for a release, with a `DeprecationWarning` naming the new home.
"""

from cardsuite.moved import alias_modules

if __name__ == "agents":  # imported from a checkout under its pre-0.2 top-level name
    raise ImportError(
        "the top-level package 'agents' was retired in cardsuite 0.3; import 'cardsuite.agents' instead"
    )

alias_modules(
    {
        "cardsuite.agents.batched_heuristic_party": "cardsuite.agents.baselines.party",
        "cardsuite.agents.batched_heuristic_scandal": "cardsuite.agents.baselines.batched_scandal",
        "cardsuite.agents.batched_heuristic_scum": "cardsuite.agents.baselines.batched_scum",
        "cardsuite.agents.benchmark": "cardsuite.agents.arena.evaluation_cli",
        "cardsuite.agents.dataset": "cardsuite.agents.arena.dataset",
        "cardsuite.agents.exec_agent": "cardsuite.agents.external.exec",
        "cardsuite.agents.greedy": "cardsuite.agents.baselines.greedy",
        "cardsuite.agents.guided_search": "cardsuite.agents.search.guided",
        "cardsuite.agents.heuristic": "cardsuite.agents.baselines.heuristic",
        "cardsuite.agents.heuristic_party": "cardsuite.agents.baselines.party",
        "cardsuite.agents.heuristic_scandal": "cardsuite.agents.baselines.scandal",
        "cardsuite.agents.heuristic_scum": "cardsuite.agents.baselines.scum",
        "cardsuite.agents.ismcts": "cardsuite.agents.search.reference",
        "cardsuite.agents.ismcts_batched": "cardsuite.agents.search.reference",
        "cardsuite.agents.leaderboard": "cardsuite.agents.arena.leaderboard",
        "cardsuite.agents.move_log": "cardsuite.agents.play.views",
        "cardsuite.agents.openspiel": "cardsuite.agents.external.openspiel",
        "cardsuite.agents.openspiel.base": "cardsuite.agents.external.openspiel.base",
        "cardsuite.agents.openspiel.demo": "cardsuite.agents.external.openspiel.demo",
        "cardsuite.agents.openspiel.party": "cardsuite.agents.external.openspiel.party",
        "cardsuite.agents.openspiel.scandal": "cardsuite.agents.external.openspiel.scandal",
        "cardsuite.agents.openspiel.scum": "cardsuite.agents.external.openspiel.scum",
        "cardsuite.agents.paired_root": "cardsuite.agents.search.roots",
        "cardsuite.agents.ratings": "cardsuite.agents.arena.ratings",
        "cardsuite.agents.record_schema": "cardsuite.agents.arena.record_schema",
        "cardsuite.agents.records": "cardsuite.agents.arena.records",
        "cardsuite.agents.replay": "cardsuite.agents.play.replay",
        "cardsuite.agents.results": "cardsuite.agents.arena.results",
        "cardsuite.agents.search_base": "cardsuite.agents.search.base",
        "cardsuite.agents.search_kinds": "cardsuite.agents.search.kinds",
        "cardsuite.agents.search_leaves": "cardsuite.agents.search.rollouts",
        "cardsuite.agents.simulate": "cardsuite.agents.arena.simulate",
        "cardsuite.agents.size_generic": "cardsuite.agents.learned.layout",
        "cardsuite.agents.stats": "cardsuite.agents.arena.stats",
        "cardsuite.agents.tournament_cli": "cardsuite.agents.arena.cli",
        "cardsuite.agents.views": "cardsuite.agents.play.views",
        "cardsuite.agents.web": "cardsuite.agents.play.web",
        "cardsuite.agents.web.app": "cardsuite.agents.play.web.app",
        "cardsuite.agents.web.cli": "cardsuite.agents.play.web.cli",
        "cardsuite.agents.web.limits": "cardsuite.agents.play.web.limits",
        "cardsuite.agents.web.models": "cardsuite.agents.play.web.models",
        "cardsuite.agents.web.sessions": "cardsuite.agents.play.web.sessions",
    }
)
