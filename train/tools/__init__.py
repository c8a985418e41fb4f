"""Commands and reports on trained agents: ``exploit``, ``export``, ``curves`` (over seeds),
``citable`` (the results table) and ``docs`` (the generated doc tables).

May import: everything below it (the trainers, the core, agents, games).
"""
