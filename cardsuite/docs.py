"""The generated parts of the documentation: build them, check them, rewrite them.

Every env module's docstring is its documentation page (`doc_page`). The same
tables appear in the game's Markdown page between ``<!-- NAME -->`` and
``<!-- /NAME -->`` markers: an env module lists them in ``DOC_TABLES`` (name
to a function returning the Markdown) and its page in ``DOC_PAGE``; other
layers add tables through the ``cardsuite.doc_tables`` entry points
(`TABLES_GROUP`)::

    python -m cardsuite.docs --write     # rewrite every generated table
    python -m cardsuite.docs --check     # exit 1 and name each stale table
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from cardsuite.config import ConfigBase
from cardsuite.games import games
from cardsuite.obsspec import ObsSpec

#: The command that regenerates the tables, named by every drift failure.
WRITE_COMMAND = "python -m cardsuite.docs --write"

#: Entry-point group of the other generated tables: each entry point names a
#: function returning ``(page, marker, generate)`` triples (the training layer's
#: config tables), so this core module names no layer above it.
TABLES_GROUP = "cardsuite.doc_tables"


#: The AEC loop of every env page's example, after the lines that make the env.
_EXAMPLE_LOOP = """\
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else int(
            np.flatnonzero(obs["action_mask"])[0])
        env.step(action)"""


def doc_page(
    template: str,
    *,
    config: type[ConfigBase],
    spec: ObsSpec,
    num_actions: int,
    action_table: str,
    setup: Sequence[str] = (),
    **fields: Any,
) -> str:
    """An env module's documentation page: ``template`` with the standard tables filled in.

    The standard fields are ``config_table``, ``action_table``, ``obs_table``,
    ``num_actions``, ``obs_size`` and ``example`` (a code block: the ``setup``
    lines that make the env, then the AEC loop); ``fields`` adds game-specific ones.
    """
    example = "\n".join([".. code-block:: python", "", *(f"    {line}" for line in setup)])
    return template.format(
        config_table=config.doc_table(),
        action_table=action_table,
        obs_table=spec.table(),
        num_actions=num_actions,
        obs_size=spec.size,
        example=f"{example}\n{_EXAMPLE_LOOP}",
        **fields,
    )


@dataclass(frozen=True)
class Block:
    """One generated table of a Markdown page."""

    page: Path
    name: str
    generate: Callable[[], str]


def _pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- {re.escape(name)} -->\n)(.*?)(\n<!-- /{re.escape(name)} -->)", re.S)


def blocks(root: Path) -> list[Block]:
    """Every generated table of every registered game, with its page under ``root``."""
    found = []
    for game in games().values():
        module = game.env_module()
        page = getattr(module, "DOC_PAGE", None)
        tables: dict[str, Callable[[], str]] = getattr(module, "DOC_TABLES", {})
        if page is not None:
            found += [Block(root / page, name, generate) for name, generate in tables.items()]
    for ep in sorted(entry_points(group=TABLES_GROUP), key=lambda e: e.name):
        found += [Block(root / page, name, generate) for page, name, generate in ep.load()()]
    return found


def stale_tables(root: Path) -> list[str]:
    """``page: table`` for each generated table whose page is missing it or out of date."""
    stale = []
    for block in blocks(root):
        text = block.page.read_text(encoding="utf-8") if block.page.is_file() else ""
        found = _pattern(block.name).findall(text)
        if len(found) != 1 or found[0][1] != block.generate():
            stale.append(f"{block.page.relative_to(root)}: {block.name}")
    return stale


def write_tables(root: Path) -> list[str]:
    """Rewrite every stale table in place; returns what changed.

    Raises:
        SystemExit: when a page lacks a table's markers (add them by hand once).
    """
    changed = []
    for block in blocks(root):
        text = block.page.read_text(encoding="utf-8")
        pattern = _pattern(block.name)
        if len(pattern.findall(text)) != 1:
            raise SystemExit(
                f"{block.page}: needs exactly one '<!-- {block.name} -->' ... "
                f"'<!-- /{block.name} -->' pair of markers"
            )
        table = block.generate()
        new = pattern.sub(lambda m: m.group(1) + table + m.group(3), text)  # noqa: B023 (used now)
        if new != text:
            block.page.write_text(new, encoding="utf-8")
            changed.append(f"{block.page.relative_to(root)}: {block.name}")
    return changed


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m cardsuite.docs [--write | --check] [--root DIR]``."""
    parser = argparse.ArgumentParser(
        prog="python -m cardsuite.docs", description="Check or rewrite the generated doc tables."
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="rewrite stale tables in place")
    mode.add_argument("--check", action="store_true", help="exit 1 if a table is stale (default)")
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="repository root")
    args = parser.parse_args(argv)
    if args.write:
        for line in write_tables(args.root):
            print(f"rewrote {line}")
        return 0
    stale = stale_tables(args.root)
    for line in stale:
        print(f"stale: {line}")
    if stale:
        print(f"run: {WRITE_COMMAND}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
