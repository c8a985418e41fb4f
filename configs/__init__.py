"""The presets shipped with cardsuite, installed as the package data of `cardsuite.configs`.

`configs/<game>/*.yaml` hold rule presets and `configs/train/*.yaml` training
presets; `cardsuite.config.resolve_config` finds them by name
(`--config scum/six_players`). This file only makes the folder a package, so
that setuptools' `package-dir` mapping installs it (editable installs too).
"""
