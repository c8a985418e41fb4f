"""The YAML alias bomb (issue 25, item 1): refused at once, wherever YAML enters.

269 bytes of eight nested alias levels stand for about a billion items. Before
the fix the strict loader built the (shared) value, and the first error path
that printed it spent seconds and a gigabyte on a 254 MB message. Now the
loader measures aliases while composing and refuses the document with
`YamlLimitError` (a `ConfigError`), before any value exists; the refusal is
checked with tracemalloc (bounded memory), not with a clock.

Every echo of a value in a config or override error is cut to a few dozen
characters (`cardsuite.safe_yaml.brief`).
"""

from __future__ import annotations

import itertools
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cardsuite.config import read_yaml_mapping
from cardsuite.errors import ConfigError
from cardsuite.games import get_game, parse_options
from cardsuite.overrides import merge_overrides, parse_assignments, parse_flags
from cardsuite.safe_yaml import MAX_ALIAS_NODES, YamlLimitError, brief, load_yaml_text
from scandal_env.config import ScandalConfig
from scum_env.config import ScumConfig
from tests.malformed.common import watchdog

MAX_MESSAGE = 400  # characters: a message names the source and the limit, nothing more


def bomb_file(levels: int = 8) -> str:
    """The classic file: ``a`` holds 9 strings, each next key 9 aliases of the last."""
    names = "abcdefghijklmnop"
    lines = [f"a: &a [{','.join(['lol'] * 9)}]"]
    for prev, name in itertools.pairwise(names[:levels]):
        lines.append(f"{name}: &{name} [{','.join(['*' + prev] * 9)}]")
    return "\n".join(lines) + "\n"


def bomb_flow(levels: int = 8) -> str:
    """The same bomb on one line, as a flow sequence (a ``--key value`` value)."""
    names = "abcdefghijklmnop"
    parts = [f"&a [{','.join(['lol'] * 9)}]"]
    for prev, name in itertools.pairwise(names[:levels]):
        parts.append(f"&{name} [{','.join(['*' + prev] * 9)}]")
    return "[" + ", ".join(parts) + "]"


def refused(call: Callable[[], Any], peak_limit: int | None = 5_000_000) -> ConfigError:
    """The ConfigError ``call`` raises, checked short and one line.

    With ``peak_limit``, the Python memory the call allocates at its peak is
    checked too (tracemalloc).
    """
    if peak_limit is not None:
        tracemalloc.start()
    try:
        with watchdog(), pytest.raises(ConfigError) as info:
            call()
        peak = tracemalloc.get_traced_memory()[1] if peak_limit is not None else 0
    finally:
        tracemalloc.stop()
    message = str(info.value)
    assert len(message) <= MAX_MESSAGE, message[:500]
    assert "\n" not in message
    if peak_limit is not None:
        assert peak < peak_limit, f"peak {peak} bytes while refusing"
    return info.value


def test_the_bomb_file_is_small_and_expands_to_a_billion() -> None:
    text = bomb_file()
    assert len(text.encode()) < 320  # the 269-byte file of the report, give or take names
    assert MAX_ALIAS_NODES * 1000 < 9**8


def test_a_config_file_bomb_is_a_limit_error(tmp_path: Path) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(bomb_file())
    err = refused(lambda: read_yaml_mapping(path))
    assert isinstance(err, YamlLimitError)
    assert str(path) in str(err) and f"more than {MAX_ALIAS_NODES} nodes" in str(err)
    refused(lambda: ScumConfig.from_yaml(path))  # --config of every command
    refused(lambda: ScandalConfig.from_yaml(path))


@pytest.mark.parametrize("levels", [5, 8, 9])
def test_a_flow_bomb_is_a_limit_error_for_the_text_loader(levels: int) -> None:
    err = refused(lambda: load_yaml_text(bomb_flow(levels), "--carousel"))
    assert isinstance(err, YamlLimitError) and "--carousel" in str(err)


def test_a_key_value_bomb_is_refused_on_the_command_line_and_the_web() -> None:
    """``--key value`` (every command) and a web request's options (the same parser)."""
    err = refused(lambda: parse_flags(["--carousel", bomb_flow()], None, what="scum"))
    assert isinstance(err, YamlLimitError) and "--carousel" in str(err)
    refused(lambda: parse_options(get_game("scum"), ["--wild_queen", bomb_flow()]))
    refused(lambda: parse_options(get_game("scandal"), [f"--max_turns={bomb_flow()}"]))


def test_a_set_bomb_is_refused() -> None:
    err = refused(lambda: parse_assignments([f"total_steps={bomb_flow()}"]))
    assert "--set total_steps" in str(err)
    refused(lambda: parse_assignments([f"options.carousel={bomb_flow()}"]))
    refused(lambda: parse_assignments([f"options={bomb_flow()}"]))


def test_a_self_containing_alias_is_refused() -> None:
    with pytest.raises(YamlLimitError, match="refers to its own anchor"):
        load_yaml_text("a: &a [1, *a]\n", "f.yaml")
    with pytest.raises(YamlLimitError, match="refers to its own anchor"):
        load_yaml_text("&m {x: *m}", "f.yaml")


def test_aliases_may_not_hide_depth() -> None:
    chain = "a0: &a0 " + "[" * 60 + "]" * 60 + "\n"
    chain += "a1: &a1 " + "[" * 30 + "*a0" + "]" * 30 + "\n"
    with pytest.raises(YamlLimitError, match="nested deeper than 64 levels"):
        load_yaml_text(chain, "f.yaml")


def test_a_small_shared_block_still_loads() -> None:
    """Anchors stay allowed: a config may share a block, merges keep working."""
    text = "base: &b {carousel: true, num_players: 5}\nrun1: *b\nrun2: {<<: *b, carousel: false}\n"
    data = load_yaml_text(text, "f.yaml")
    assert data["run1"] == {"carousel": True, "num_players": 5}
    assert data["run2"] == {"carousel": False, "num_players": 5}
    fan = "x: &x [1, 2, 3]\ny: [" + ", ".join(["*x"] * 2000) + "]\n"  # 8000 nodes: allowed
    assert len(load_yaml_text(fan, "f.yaml")["y"]) == 2000


def test_a_merge_bomb_is_refused() -> None:
    """``<<: [*a, *a, ...]`` nested: merging flattens pairs, so it is a bomb too."""
    lines = ["a: &a {" + ", ".join(f"k{i}: {i}" for i in range(9)) + "}"]
    for prev, name in zip("abcdefg", "bcdefgh", strict=False):
        lines.append(f"{name}: &{name} {{<<: [{', '.join(['*' + prev] * 9)}]}}")
    refused(lambda: load_yaml_text("\n".join(lines), "f.yaml"))


HUGE = "x" * 100_000


@pytest.mark.parametrize(
    "call",
    [
        lambda: parse_flags(["--carousel", HUGE], None, what="scum") and ScumConfig(carousel=HUGE),
        lambda: ScumConfig.from_dict({"carousel": [HUGE] * 1000}),
        lambda: ScumConfig.from_dict({"trade_rules": HUGE}),
        lambda: ScumConfig.from_dict({HUGE: 1}),
        lambda: ScumConfig.from_dict({"num_players": 10**4000}),
        lambda: ScandalConfig.from_dict({"max_turns": -(10**4000)}),
        lambda: parse_flags([HUGE], ("carousel",), what="scum"),
        lambda: parse_flags(["--" + HUGE, "1"], ("carousel",), what="scum"),
        lambda: parse_flags(["--" + HUGE], None, what="scum"),
        lambda: parse_assignments([HUGE]),
        lambda: parse_assignments(["options=" + HUGE, "options.a=1"]),
        lambda: merge_overrides({"options": HUGE}, {"options": {"a": 1}}),
        lambda: load_yaml_text(f"{HUGE}: 1\n{HUGE}: 2\n", "f.yaml"),
        lambda: load_yaml_text(f"a: [{HUGE}", "f.yaml"),
        lambda: load_yaml_text("a: " + "1" * 5000, "f.yaml"),
    ],
)
def test_no_error_message_echoes_unbounded_input(call: Callable[[], Any]) -> None:
    refused(call, peak_limit=None)


def test_brief_is_short_for_anything() -> None:
    me: list[Any] = []
    me.append(me)
    for value in [HUGE, [HUGE] * 10, {HUGE: HUGE}, 10**4000, 10**5000, me, b"y" * 10_000]:
        assert len(brief(value)) <= 60
    assert brief("spanish") == "'spanish'" and brief(5) == "5"
