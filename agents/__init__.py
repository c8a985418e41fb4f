"""Agents and the arena: the agent protocol, the baselines, tournaments, records.

Imported as `cardsuite.agents` (the folder is ``agents/`` in the
repository; setuptools' `package-dir` maps it). The pre-0.2 top-level name
``agents`` was retired in 0.3: importing it from a checkout raises ImportError.
"""

if __name__ == "agents":  # imported from a checkout under its pre-0.2 top-level name
    raise ImportError(
        "the top-level package 'agents' was retired in cardsuite 0.3; import 'cardsuite.agents' instead"
    )
