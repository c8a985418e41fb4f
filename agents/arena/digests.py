"""SHA-256 digests a benchmark report carries: of the rules engine and of every reference agent."""

from __future__ import annotations

import hashlib
import importlib
import sys
import types
from pathlib import Path

from cardsuite.agents.registry import KINDS, make_agent, parse_spec
from cardsuite.games import get_game, resolve

#: The suite's own packages whose modules count as an agent's code.
_OWN = ("cardsuite.agents.", "cardsuite.train.")


def engine_hash(game: str) -> str:
    """SHA-256 of ``game``'s rules engine: every file of its package (``scum_env``, ...).

    The deal set's hash sees a changed deal, not a changed rule; this sees
    both (and any other edit of the package's files, a docstring too).
    """
    package = importlib.import_module(get_game(game).module.partition(".")[0])
    return source_tree_hash(Path(str(package.__file__)).parent)


def source_tree_hash(root: Path) -> str:
    """SHA-256 of every file under ``root`` but Python's caches (relative path, then bytes).

    Files are taken in the sorted order of their relative paths; the source
    and the data beside it (Scandal's ``data/deck.json``) count alike.
    """
    digest = hashlib.sha256()
    files_in = [
        f
        for f in root.rglob("*")
        if f.is_file() and "__pycache__" not in f.parts and f.suffix not in (".pyc", ".pyo")
    ]
    for file in sorted(files_in, key=lambda f: f.relative_to(root).as_posix()):
        digest.update(file.relative_to(root).as_posix().encode() + b"\0")
        digest.update(file.read_bytes() + b"\0")
    return digest.hexdigest()


def agent_hash(spec: str, game: str) -> str:
    """SHA-256 of an agent: its spec, the source of its code and, for a shipped agent, its files.

    The code is the agent class's module and every ``cardsuite.agents`` or
    ``cardsuite.train`` module it reaches through its module-level names
    (transitively), plus the loaded modules whose name starts with the class
    module's; a ``name`` kind whose class keeps its agents in folders
    (``folder(NAME)``: ``pretrained:NAME``) adds every file of that folder.
    """
    agent = make_agent(spec, game)
    digest = hashlib.sha256(spec.strip().encode() + b"\0")
    for name in sorted(_code_modules(type(agent).__module__)):
        source = getattr(sys.modules[name], "__file__", None)
        if source and source.endswith(".py"):
            digest.update(name.encode() + b"\0" + Path(source).read_bytes() + b"\0")
    parsed = parse_spec(spec)
    kind = KINDS.get(parsed.kind)
    folder = getattr(resolve(kind.target), "folder", None) if kind and parsed.path else None
    if folder is not None:
        for file in sorted(Path(folder(parsed.path)).iterdir()):
            if file.is_file():
                digest.update(file.name.encode() + b"\0" + file.read_bytes() + b"\0")
    close = getattr(agent, "close", None)
    if callable(close):
        close()
    return digest.hexdigest()


def _code_modules(root: str) -> set[str]:
    """``root`` and the suite's agent/training modules it reaches (`agent_hash`)."""
    package, _, stem = root.rpartition(".")
    found = {
        m
        for m in list(sys.modules)
        if m.rpartition(".")[0] == package and m.rpartition(".")[2].startswith(stem)
    }
    todo = list(found | {root})
    while todo:
        module = sys.modules.get(todo.pop())
        if module is None:
            continue
        found.add(module.__name__)
        for value in list(vars(module).values()):
            name = (
                value.__name__
                if isinstance(value, types.ModuleType)
                else getattr(value, "__module__", None)
            )
            if (
                isinstance(name, str)
                and name.startswith(_OWN)
                and name in sys.modules
                and name not in found
            ):
                found.add(name)
                todo.append(name)
    return found
