"""Every import arrow points down, folder by folder, and no import closes a circle (issues 13, 56).

The graph is read from the source with ``ast``: every ``import`` and ``from ...
import`` of the project's own modules, at module level or inside a function
(imports under ``if TYPE_CHECKING:`` never run and are left out). Folders are
named for their purpose (``docs/design.md``); `RULES` says, for each folder,
which others it may import, and the tests check:

* the layers: ``train -> agents -> games -> cardsuite``, with the facade
  ``cardsuite.api`` on top; a game package never imports another game;
* inside ``agents/`` and ``train/``: each folder imports only the folders its
  ``__init__`` docstring names (``RULES``);
* no circle of imports between modules, counting imports inside functions, so
  no function-level import can hide one; a lazy import exists only to keep an
  optional heavy dependency (torch, ray, pyspiel, numba, starlette) or a
  command off the start-up path.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: repository folder -> installed package name (pyproject's package-dir)
INSTALLED = {"agents": "cardsuite.agents", "train": "cardsuite.train"}
SOURCES = ("cardsuite", "scum_env", "scandal_env", "agents", "train")

#: folder (an installed module prefix) -> the prefixes it may import besides itself, the
#: core and the games. Longest prefix wins; a module is ruled by the deepest folder it is in.
CORE = ("cardsuite",)  # the core's own modules; see _is_core for what it excludes
RULES: dict[str, tuple[str, ...]] = {
    # the core imports only itself (cardsuite.api is the facade above everything)
    "cardsuite": (),
    "cardsuite.api": ("cardsuite.agents", "cardsuite.train"),
    "scum_env": (),
    "scandal_env": (),
    # agents: the protocol, kinds, registry and parts sit at the top of the folder
    "cardsuite.agents": ("cardsuite.agents.base", "cardsuite.agents.kinds",
                         "cardsuite.agents.registry", "cardsuite.agents.parts"),
    "cardsuite.agents.baselines": ("cardsuite.agents.baselines",),
    "cardsuite.agents.learned": ("cardsuite.agents.learned",),
    "cardsuite.agents.external": ("cardsuite.agents.external",),
    "cardsuite.agents.search": ("cardsuite.agents.search", "cardsuite.agents.baselines",
                                "cardsuite.agents.learned"),
    "cardsuite.agents.arena": ("cardsuite.agents.arena",),
    "cardsuite.agents.play": ("cardsuite.agents.play", "cardsuite.agents.arena"),
    # train: every folder may use the agents layer and the training core
    "cardsuite.train": ("cardsuite.agents", "cardsuite.train.core"),
    "cardsuite.train.core": (),
    "cardsuite.train.ppo": ("cardsuite.train.ppo",),
    "cardsuite.train.dmc": ("cardsuite.train.dmc",),
    "cardsuite.train.sb3": ("cardsuite.train.sb3",),
    "cardsuite.train.rllib": ("cardsuite.train.rllib",),
    "cardsuite.train.tools": ("cardsuite.train",),
}  # fmt: skip
GAMES = ("scum_env", "scandal_env")
#: the top-level modules of agents/ (base, kinds, registry, parts) may import the core
#: and the games only; the folders below inherit the folder rules above them.
TOP_OF_AGENTS = ("cardsuite.agents.base", "cardsuite.agents.kinds", "cardsuite.agents.registry",
                 "cardsuite.agents.parts")  # fmt: skip


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[0] in INSTALLED:
        parts = INSTALLED[parts[0]].split(".") + parts[1:]
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


@cache
def modules() -> dict[str, Path]:
    """Every module of the project's packages by installed name."""
    return {_module_name(p): p for top in SOURCES for p in sorted((ROOT / top).rglob("*.py"))}


def _type_checking(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (
        (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
        or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")
    )


def _walk(node: ast.AST, in_function: bool) -> Iterator[tuple[ast.AST, bool]]:
    for child in ast.iter_child_nodes(node):
        if _type_checking(child):
            continue
        inner = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
        yield child, inner
        yield from _walk(child, inner)


def _resolve(name: str) -> str | None:
    """The project module ``name`` refers to (a module, or the module holding the name)."""
    known = modules()
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


@cache
def imports(module: str) -> tuple[tuple[int, str, bool], ...]:
    """``(line, imported project module, inside a function)`` of every import of ``module``."""
    tree = ast.parse(modules()[module].read_text(encoding="utf-8"))
    found = []
    for node, lazy in _walk(tree, False):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{alias.name}" for alias in node.names]
        for name in names:
            target = _resolve(name)
            if target is not None and target != module:
                found.append((node.lineno, target, lazy))
    return tuple(found)


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def _folder(module: str) -> str:
    """The deepest folder of `RULES` that holds ``module``."""
    return max((f for f in RULES if _within(module, f)), key=len)


def _is_core(module: str) -> bool:
    return (
        _within(module, "cardsuite")
        and not _within(module, "cardsuite.agents")
        and not _within(module, "cardsuite.train")
        and module != "cardsuite.api"
    )


def allowed(module: str, target: str) -> bool:
    """Whether ``module`` may import ``target`` (module doc)."""
    if _is_core(target) and target != "cardsuite":
        return True  # everyone stands on the core (the package __init__ is the facade's door)
    if _is_core(module):
        return module == "cardsuite" and target == "cardsuite.api"
    game = next((g for g in GAMES if _within(target, g)), None)
    if game is not None:  # a game is imported by itself and the layers above, never by another
        return not any(_within(module, g) for g in GAMES) or _within(module, game)
    if module in TOP_OF_AGENTS:
        return target in TOP_OF_AGENTS
    folder = _folder(module)
    extra = RULES[folder]
    # a folder inherits its parent folder's allowances (agents/search may use agents' top...)
    parent = folder.rpartition(".")[0]
    while parent in RULES:
        extra = extra + RULES[parent]
        parent = parent.rpartition(".")[0]
    return any(_within(target, prefix) for prefix in (folder, *extra))


def test_every_folder_imports_only_what_its_rules_allow() -> None:
    bad = [
        f"{modules()[m].relative_to(ROOT)}:{line} ({_folder(m)}) imports {target}"
        for m in sorted(modules())
        for line, target, _lazy in imports(m)
        if not allowed(m, target)
    ]
    assert bad == [], "imports that climb or cross folders:\n" + "\n".join(bad)


def cycles() -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), lazy imports too."""
    graph = {m: sorted({t for _, t, _ in imports(m)}) for m in modules()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_no_import_circle_even_through_imports_inside_functions() -> None:
    assert cycles() == []


def test_the_checks_catch_what_they_are_for() -> None:
    assert not allowed("cardsuite.agents.arena.tournament", "cardsuite.train.core.league")
    assert not allowed("cardsuite.games", "scum_env.engine")
    assert not allowed("scum_env.engine", "scandal_env.engine")
    assert not allowed("cardsuite.agents.baselines.scum", "cardsuite.agents.search.reference")
    assert not allowed("cardsuite.agents.registry", "cardsuite.agents.arena.tournament")
    assert not allowed("cardsuite.train.ppo.trainer", "cardsuite.train.dmc.trainer")
    assert allowed("cardsuite.train.ppo.trainer", "cardsuite.train.core.league")
    assert allowed("cardsuite.agents.search.guided", "cardsuite.agents.learned.netspec")
    assert allowed("cardsuite.api", "cardsuite.agents.registry")
    assert allowed("scum_env.party.engine", "scum_env.engine")


OLD_NAMES = ("scum_env.suite", "agents", "train")  # retired in 0.3


@pytest.mark.parametrize("folder", ["cardsuite", "scum_env", "scandal_env", "agents", "train",
                                    "benchmarks", "tests"])  # fmt: skip
def test_nothing_uses_the_retired_import_paths(folder: str) -> None:
    bad = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("tests/core/"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            bad += [f"{rel}:{node.lineno} imports {n}" for n in names
                    if any(_within(n, old) for old in OLD_NAMES)]  # fmt: skip
    assert bad == [], "use cardsuite.* instead of the retired 0.1 paths:\n" + "\n".join(bad)
