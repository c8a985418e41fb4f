"""Deprecated alias of :mod:`cardsuite`, the shared core (moved in 0.2).

``scum_env.suite.errors``, ``.config``, ``.obsspec`` and ``.aec`` are now
``cardsuite.errors``, ``cardsuite.config``, ``cardsuite.obsspec`` and
``cardsuite.aec``. Importing the old names still works for one release and
emits a DeprecationWarning.
"""

from cardsuite._compat import redirect

redirect(__name__, "cardsuite")
