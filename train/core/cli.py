"""The one command-line grammar of the training commands: the shared flags (`add_run_flags`),
one flag per config field (`add_field_flags`), unknown flags named (`reject_unknown`) and a
batched trainer's entry points (`trainer_entry`)."""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import sys
import typing
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar, get_args, get_origin

from cardsuite.cli import RULE_HELP, add_table_flag, deprecated, rule_text, rule_values
from cardsuite.config import ConfigBase, read_yaml_mapping, shipped_configs
from cardsuite.errors import CardsuiteError, ConfigError
from cardsuite.games import get_game
from cardsuite.overrides import merge_overrides, parse_assignments
from cardsuite.safe_yaml import load_yaml_text
from cardsuite.train.core.log import print_eval
from cardsuite.train.core.rundir import restartable
from cardsuite.train.core.settings import RunConfig

C = TypeVar("C", bound=RunConfig)

#: The shared flags and the config field each sets (``--players``: the player count).
COMMON = {
    "game": "game",
    "seed": "seed",
    "players": "num_players",
    "device": "device",
    "total_steps": "total_steps",
    "budget_minutes": "budget_minutes",
    "tensorboard": "tensorboard",
}


def add_run_flags(parser: argparse.ArgumentParser) -> None:
    """The flags every training command shares (module doc)."""
    g = parser.add_argument_group("run (every training command)")
    g.add_argument("--config", metavar="NAME_OR_PATH",
                   help="a preset by name (ppo_scum4, train/scum_quick) or a YAML file")  # fmt: skip
    g.add_argument("--run-dir", metavar="DIR",
                   help="the run folder (never overwritten; default runs/<name>)")  # fmt: skip
    g.add_argument("--out", dest="out", metavar="DIR", help="deprecated: use --run-dir")
    g.add_argument("--resume", metavar="DIR", help="continue the run (or checkpoint) in DIR")
    g.add_argument("--seed", type=int, metavar="N", help="the run's seed")
    add_table_flag(g, "--game", "the game: scum, scum_party or scandal")
    add_table_flag(g, "--players", "players at the table")
    add_table_flag(g, "--rule", RULE_HELP)
    g.add_argument("--device", metavar="cpu|cuda", help="torch device of the learner")
    g.add_argument("--total-steps", type=int, metavar="N", help="learner decisions to train on")
    g.add_argument("--budget-minutes", type=float, metavar="M",
                   help="also stop after M minutes (0: no limit)")  # fmt: skip
    g.add_argument("--tensorboard", action=argparse.BooleanOptionalAction, default=None,
                   help="write TensorBoard events to RUN/tb")  # fmt: skip
    g.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override a config field (repeatable), e.g. --set total_steps=20000")  # fmt: skip


def run_dir(ns: argparse.Namespace) -> str | None:
    """``--run-dir``, or the deprecated ``--out`` (with a warning on stderr)."""
    out = getattr(ns, "out", None)
    if out and getattr(ns, "run_dir", None):
        raise ConfigError("give --run-dir only (--out is its deprecated spelling)")
    if out:
        deprecated("--out", "--run-dir")
        return str(out)
    value = getattr(ns, "run_dir", None)
    return str(value) if value else None


def resolve_preset(name: str | None) -> str | None:
    """``--config NAME_OR_PATH``: a file, a shipped preset (``train/NAME``), or a bare
    training preset name (``ppo_scum4`` for ``configs/train/ppo_scum4.yaml``)."""
    if name and f"train/{name.removesuffix('.yaml')}" in shipped_configs():
        return f"train/{name}"
    return name


def preset(name: str | None) -> dict[str, Any]:
    """The mapping of ``--config`` (`resolve_preset`); empty without one."""
    resolved = resolve_preset(name)
    return read_yaml_mapping(resolved) if resolved else {}


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def add_field_flags(parser: argparse.ArgumentParser, cls: type[ConfigBase]) -> None:
    """One ``--flag`` per field of ``cls`` that the shared flags do not already set."""
    hints = typing.get_type_hints(cls)
    g = parser.add_argument_group(f"{cls.__name__} fields (override the preset)")
    taken = {*COMMON.values(), "run_dir", "resume"}
    for f in dataclasses.fields(cls):
        if f.name in taken:
            continue
        tp, doc = hints[f.name], f.metadata.get("doc", "")
        default = f.default if f.default_factory is dataclasses.MISSING else f.default_factory()
        help_text = f"{doc} (default {default!r})".replace("%", "%%")
        if f.name == "options":
            help_text = "deprecated: use --rule KEY=VALUE"
        if tp is bool:
            g.add_argument(_flag(f.name), dest=f.name, action=argparse.BooleanOptionalAction,
                           default=None, help=help_text)  # fmt: skip
        elif get_origin(tp) is Literal:
            g.add_argument(_flag(f.name), dest=f.name, choices=get_args(tp), default=None,
                           help=help_text)  # fmt: skip
        else:
            g.add_argument(_flag(f.name), dest=f.name, default=None, metavar=f.name.upper(),
                           type=_reader(f.name, tp), help=help_text)  # fmt: skip


def _reader(name: str, tp: Any) -> Any:
    def read(raw: str) -> Any:
        if tp in (int, float):
            return tp(raw.replace("_", ""))
        if get_origin(tp) is dict:
            value = load_yaml_text(raw, _flag(name))
            if not isinstance(value, dict):
                raise ValueError(raw)
            return value
        return raw

    read.__name__ = "a number" if tp in (int, float) else "a value"
    return read


def common_values(ns: argparse.Namespace) -> dict[str, Any]:
    """The field values the shared flags set (only those given)."""
    given = {name: getattr(ns, flag, None) for flag, name in COMMON.items()}
    return {name: value for name, value in given.items() if value is not None}


def config_from_args(cls: type[C], ns: argparse.Namespace) -> C:
    """The preset of ``--config`` (with ``--resume`` and no preset: the checkpoint's config)
    with the field flags, shared flags and ``--set`` applied."""
    names, source = set(cls.field_names()), getattr(ns, "config", None)
    doc = cls.upgrade(preset(source), source, warn=True)
    if not doc and getattr(ns, "resume", None):
        from cardsuite.train.core.rundir import recorded_config  # light command start-up

        saved = recorded_config(ns.resume)
        if isinstance(saved, dict):  # a config saved with older names is read silently
            doc = {k: v for k, v in cls.upgrade(saved).items()
                   if k in names and k not in ("run_dir", "resume")}  # fmt: skip
    flags = {f: getattr(ns, f) for f in names if getattr(ns, f, None) is not None}
    flags.update(common_values(ns))
    if rd := run_dir(ns):
        flags["run_dir"] = rd
    if getattr(ns, "resume", None):
        flags["resume"] = str(ns.resume)
    if "options" in flags:  # --options MAPPING, the spelling before --rule
        rules = " ".join(rule_text(k, v) for k, v in flags["options"].items())
        deprecated("--options", rules or "--rule KEY=VALUE")
    config = cls.from_dict(merge_overrides({**doc, **flags}, set_values(cls, ns), source),
                           source=source)  # fmt: skip
    return check_rules(config, ns)


def check_rules(config: C, ns: argparse.Namespace) -> C:
    """``config``, once its game has every ``--rule`` key (else a ConfigError naming it)."""
    rule_values(getattr(ns, "rules", None) or [], get_game(config.game))
    return config


def set_values(cls: type[C], ns: argparse.Namespace) -> dict[str, Any]:
    """The ``--set`` values (in today's field names) with the ``--rule`` options merged in."""
    sets = dict(cls.upgrade(parse_assignments(list(getattr(ns, "overrides", []) or [])), warn=True))
    if rules := rule_values(getattr(ns, "rules", None) or []):
        sets["options"] = {**(sets.get("options") or {}), **rules}
    return sets


def reject_unknown(parser: argparse.ArgumentParser, extra: list[str]) -> None:
    """A ConfigError for leftover arguments, naming the closest known flag."""
    if not extra:
        return
    known = [s for a in parser._actions for s in a.option_strings]
    first = next((t for t in extra if t.startswith("-")), extra[0])
    hint = difflib.get_close_matches(first.split("=")[0], known, n=1)
    suggestion = f" (did you mean {hint[0]}?)" if hint else ""
    raise ConfigError(f"unknown argument {first!r}{suggestion}; see --help")


def trainer_command(
    sub: Any, name: str, cls: type[C], train: Callable[[C], dict[str, Any]], *, help: str,
    description: str,
) -> tuple[str, Callable[[argparse.Namespace, list[str]], int]]:  # fmt: skip
    """The subcommand ``cardsuite NAME`` of a trainer configured by ``cls`` (the shared flags
    and one per field): it runs ``train(config)`` and prints its ``eval`` rows; ``(name,
    run)`` as a ``cardsuite.commands`` entry point returns it."""
    parser = sub.add_parser(name, help=help, description=description, allow_abbrev=False)
    add_run_flags(parser)
    add_field_flags(parser, cls)

    def run(ns: argparse.Namespace, extra: list[str]) -> int:
        reject_unknown(parser, extra)
        config = config_from_args(cls, ns)
        try:
            result = train(config)
        except KeyboardInterrupt:  # before the loop (the warm start), or a second Ctrl-C
            out_dir = getattr(config, "out_dir", None)  # the run folder of a new run
            home = config.resume or (out_dir() if out_dir else config.run_dir)
            if home and restartable(Path(home)):
                print(f"{home} has no checkpoint yet; `cardsuite {name} --resume {home}` "
                      "trains it again from the start with its recorded config", file=sys.stderr)  # fmt: skip
            raise
        if result.get("interrupted"):
            return 130  # Ctrl-C: the checkpoint is written
        print_eval(result["eval"])
        return 0

    return name, run


def command_main(add_command: Callable[[Any], tuple[str, Any]], argv: Sequence[str] | None) -> int:
    """``python -m cardsuite.train.NAME [flags]``: the subcommand ``add_command`` builds (an
    error of the suite: one line on stderr and status 2, as under ``cardsuite``)."""
    parser = argparse.ArgumentParser(prog="cardsuite", allow_abbrev=False)
    name, run = add_command(parser.add_subparsers(dest="command"))
    ns, extra = parser.parse_known_args([name, *(sys.argv[1:] if argv is None else argv)])
    try:
        return int(run(ns, extra))
    except CardsuiteError as err:
        print(f"cardsuite {name}: error: {err}", file=sys.stderr)
        return 2


def trainer_entry(
    name: str, cls: type[C], make: Callable[[C], Any], *, help: str, description: str
) -> tuple[Callable[[C], Any], Callable[[Any], tuple[str, Any]], Callable[..., int]]:
    """A batched trainer's ``train(args)``, ``add_command`` and ``main`` (``python -m``)."""

    def train(args: C) -> Any:
        """Train one run with ``args``; the final step and evaluation rows."""
        return make(args).train()

    def add_command(sub: Any) -> tuple[str, Any]:
        """The ``cardsuite NAME`` subcommand (a ``cardsuite.commands`` entry point)."""
        return trainer_command(sub, name, cls, train, help=help, description=description)

    def main(argv: Sequence[str] | None = None) -> int:
        """``python -m`` with the flags of ``cardsuite NAME``."""
        return command_main(add_command, argv)

    return train, add_command, main
