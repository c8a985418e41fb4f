"""No module picks a game's part by its name: each layer asks its one per-game table (issues 20, 56).

An ``ast`` scan of ``agents/`` and ``train/`` for the three ways a part used
to be picked by name: a comparison of something with a game-name literal
(``if game == "scum"``, ``game in ("scum", "scandal")``), a table keyed by
game names (``{"scum": ..., "scandal": ...}``) and an import of a module path
built from a string (``import_module(f"{package}.render_rgb")``). Each part
is a field of the game's record (`cardsuite.games.PARTS`) or a row of its
layer's one per-game table (`cardsuite.agents.parts.PARTS`,
`cardsuite.train.core.games.TRAINING`), the only tables keyed by game names.

The allow-list names each remaining site by file and kind with the count
found, so a new if-chain fails even in a listed file.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

from cardsuite.games import games

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("agents", "train")

#: (file, kind) -> how many such sites it may hold, and why.
ALLOWED: dict[tuple[str, str], tuple[int, str]] = {
    ("agents/parts.py", "table"): (1, "the agents layer's per-game table"),
    ("train/core/games.py", "table"): (1, "the training layer's per-game table"),
}


def _is_game_name(node: ast.AST, names: set[str]) -> bool:
    return isinstance(node, ast.Constant) and node.value in names


def sites(path: Path, names: set[str]) -> list[tuple[int, str]]:
    """``(line, kind)`` of every place ``path`` picks by a game name (module doc)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            for side in sides:
                items = side.elts if isinstance(side, ast.Tuple | ast.List | ast.Set) else [side]
                if any(_is_game_name(item, names) for item in items):
                    found.append((node.lineno, "compare"))
                    break
        elif isinstance(node, ast.Dict):
            if sum(_is_game_name(k, names) for k in node.keys if k is not None) >= 2:
                found.append((node.lineno, "table"))
        elif isinstance(node, ast.Call):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if (
                called in ("import_module", "__import__")
                and node.args
                and isinstance(node.args[0], ast.JoinedStr | ast.BinOp)
            ):
                found.append((node.lineno, "import by built name"))
    return found


def test_the_scan_finds_each_kind_of_site(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import importlib\n"
        "def f(game, package):\n"
        "    if game == 'scum':\n"
        "        return 1\n"
        "    if game in ('scum_party', 'other'):\n"
        "        return 2\n"
        "    table = {'scum': 1, 'scandal': 2}\n"
        "    return importlib.import_module(f'{package}.render_rgb'), table\n"
    )
    kinds = [kind for _, kind in sites(sample, {"scum", "scum_party", "scandal"})]
    assert sorted(kinds) == ["compare", "compare", "import by built name", "table"]


def test_no_agent_or_trainer_picks_a_game_part_by_name() -> None:
    names = set(games())
    counts: Counter[tuple[str, str]] = Counter()
    lines: dict[tuple[str, str], list[int]] = {}
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for line, kind in sites(path, names):
                counts[(rel, kind)] += 1
                lines.setdefault((rel, kind), []).append(line)
    bad = [
        f"{rel}:{lines[(rel, kind)]} {kind} on a game name ({n} found)"
        for (rel, kind), n in sorted(counts.items())
        if n > ALLOWED.get((rel, kind), (0, ""))[0]
    ]
    assert bad == [], "ask the game's record or the layer's per-game table instead:\n" + "\n".join(
        bad
    )
