"""Self-play training for the suite's games (MaskablePPO, ``cardsuite train``).

Imported as :mod:`cardsuite.train` (the folder is ``train/`` in the
repository, so a user's own ``train.py`` cannot shadow it). Modules:
:mod:`~cardsuite.train.config` (the run config), :mod:`~cardsuite.train.wrappers`
(the single-agent Gymnasium view of one learner seat),
:mod:`~cardsuite.train.opponents` (the opponent pool),
:mod:`~cardsuite.train.trainer` (the MaskablePPO loop),
:mod:`~cardsuite.train.checkpoint`, :mod:`~cardsuite.train.policy` (a trained
agent for the arena), :mod:`~cardsuite.train.evaluate` and
:mod:`~cardsuite.train.cli`. Only the trainer, checkpoint and policy modules
import torch, and only when used. The pre-0.2 top-level name ``train`` was
retired in 0.3: importing it from a checkout raises ImportError.
"""

if __name__ == "train":  # imported from a checkout under its pre-0.2 top-level name
    raise ImportError(
        "the top-level package 'train' was retired in cardsuite 0.3; import 'cardsuite.train' instead"
    )
