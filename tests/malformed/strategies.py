"""Hypothesis strategies that break valid inputs: JSON values, mutated documents.

`mutated` takes a valid JSON document (a record, a saved state, a deck)
and returns a strategy of copies with one or a few leaves or subtrees
replaced by hostile values, keys dropped, or lists cut and padded, so the
suite reaches deep fields, not only the top level.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import strategies as st

HOSTILE_INTS = st.sampled_from([-1, 0, 1, 2, 3, 9, 99, 999, -(2**63), 2**63, 2**70])
HOSTILE_SCALARS = st.one_of(
    HOSTILE_INTS,
    st.integers(min_value=-5, max_value=120),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.sampled_from([1.5, -0.5, 1e308]),
    st.booleans(),
    st.none(),
    st.text(max_size=8),
    st.sampled_from(["", "abc", "\x1b[31mred", "/dev/zero", "player_9", "A", "W", "10"]),
)
JSON_VALUES = st.recursive(
    HOSTILE_SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


def paths(doc: Any, prefix: tuple[Any, ...] = (), limit: int = 4000) -> list[tuple[Any, ...]]:
    """Every path (keys and indices) to a node of ``doc``, the root excluded."""
    out: list[tuple[Any, ...]] = []
    stack = [(doc, prefix)]
    while stack and len(out) < limit:
        node, at = stack.pop()
        children = (
            node.items()
            if isinstance(node, dict)
            else enumerate(node)
            if isinstance(node, list)
            else ()
        )
        for key, child in children:
            out.append((*at, key))
            stack.append((child, (*at, key)))
    return out


def _set(doc: Any, path: tuple[Any, ...], value: Any, op: str) -> None:
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    last = path[-1]
    if op == "drop":
        del parent[last]
    elif op == "cut" and isinstance(parent[last], list):
        parent[last] = parent[last][: len(parent[last]) // 2]
    elif op == "pad" and isinstance(parent[last], list):
        parent[last] = [*parent[last], *(parent[last][:1] or [0])]
    else:
        parent[last] = value


@st.composite
def mutated(draw: st.DrawFn, doc: Any, max_changes: int = 3) -> Any:
    """A deep copy of ``doc`` with 1..``max_changes`` hostile changes."""
    out = copy.deepcopy(doc)
    for _ in range(draw(st.integers(1, max_changes))):
        where = paths(out)
        if not where:
            break
        path = draw(st.sampled_from(where))
        op = draw(st.sampled_from(["set", "set", "set", "drop", "cut", "pad"]))
        value = draw(JSON_VALUES) if op == "set" else None
        _set(out, path, value, op)
    return out
