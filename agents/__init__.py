"""Agents and the arena: the agent protocol, the baselines, tournaments, records.

Imported as :mod:`cardsuite.agents` (the folder is ``agents/`` in the
repository). The old top-level name ``agents`` still works from a checkout for
one release, with a DeprecationWarning.
"""

if __name__ == "agents":  # imported under its pre-0.2 top-level name
    from cardsuite._compat import redirect

    redirect("agents", "cardsuite.agents")
