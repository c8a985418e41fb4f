"""What an agent kind is: the record that the arena's registry keeps for each kind.

Kept apart from [`cardsuite.agents.registry`][cardsuite.agents.registry] so that a layer registering
its own kinds (``cardsuite.agents.learned.kinds``, a third-party package) can import it
without importing, and so re-entering, the registry while it loads its plug-ins.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AgentKind:
    """One kind of agent the registry can build.

    Attributes:
        name: the spec name (``"ismcts"``).
        target: ``"module:Class"`` imported on first use.
        doc: one line for help texts.
        argument: what follows ``name:`` in a spec: ``"params"`` (``key=value``
            pairs passed to ``Class(game, seed=..., **params)``), ``"path"`` (a
            checkpoint path, loaded by ``Class.load(path, game, seed)``) or
            ``"name"`` (a name, e.g. of a shipped agent, also ``Class.load``).
        extra: the ``pip install cardsuite[EXTRA]`` that provides the kind, if any.
        operator_only: the spec names a file, a module or a command that the
            process would open or run (``exec:``, ``ppo:PATH``): a server offers
            it only when the person running it listed the spec
            (``cardsuite serve --agents``), never because a request named it.
        wraps: ``"module:function"`` splitting the text after ``name:`` into the
            spec of the agent this kind wraps and this kind's own parameters
            (``search:pretrained:scum4:budget=50`` wraps ``pretrained:scum4``),
            so a server checks the wrapped spec and the parameters as its own.
    """

    name: str
    target: str
    doc: str
    argument: str = "params"
    extra: str | None = None
    operator_only: bool = False
    wraps: str | None = None
