"""Config YAML from a hostile or careless user: a ConfigError naming the file and key.

Every YAML file cardsuite reads goes through `cardsuite.safe_yaml`
(issue 12): no Python objects, no silently repeated key, no deep nesting,
UTF-8 only, bounded size.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardsuite.config import read_yaml_mapping
from cardsuite.errors import ConfigError
from cardsuite.safe_yaml import MAX_DEPTH, load_yaml_text
from scum_env.config import ScumConfig
from tests.malformed.common import named_or_ok

CASES = [
    (b"carousel: true\ncarousel: false\n", "duplicate key 'carousel' (lines 1 and 2)"),
    (b"a:\n  b: 1\n  b: 2\n", "duplicate key 'b' (lines 2 and 3)"),
    (b"num_players: 4\n\xff\xfe: 1\n", "not valid UTF-8 (byte 15)"),
    (b"x: " + b"[" * 200 + b"]" * 200 + b"\n", f"nested deeper than {MAX_DEPTH} levels"),
    (b"[" * 100_000, f"nested deeper than {MAX_DEPTH} levels"),
    (b"a: !!python/object/apply:os.system [echo pwned]\n", "is not valid YAML"),
    (b"a: [1, 2\n", "is not valid YAML"),
]


@pytest.mark.parametrize(("text", "message"), CASES)
def test_bad_yaml_is_a_config_error_naming_the_file(
    tmp_path: Path, text: bytes, message: str
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_bytes(text)
    with pytest.raises(ConfigError) as info:
        read_yaml_mapping(path)
    assert message in str(info.value) and str(path) in str(info.value)
    assert "\n" not in str(info.value)
    with pytest.raises(ConfigError, match=str(path)):
        ScumConfig.from_yaml(path)


def test_merge_keys_may_be_overridden_and_anchors_work() -> None:
    data = load_yaml_text("base: &b {x: 1}\nother:\n  <<: *b\n  x: 2\n", "f.yaml")
    assert data == {"base": {"x": 1}, "other": {"x": 2}}


def test_non_files_and_huge_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="is not a regular file"):
        read_yaml_mapping("/dev/zero")
    with pytest.raises(ConfigError, match="is not a regular file"):
        read_yaml_mapping(tmp_path)
    with pytest.raises(ConfigError, match=r"cannot read config file"):
        read_yaml_mapping(tmp_path / "none.yaml")
    big = tmp_path / "big.yaml"
    big.write_bytes(b"#" * (2 << 20))
    with pytest.raises(ConfigError, match="the limit is"):
        read_yaml_mapping(big)


def test_shipped_configs_still_load() -> None:
    for path in sorted(Path("configs").glob("*/*.yaml")):
        assert isinstance(read_yaml_mapping(path), dict), path


yaml_bytes = st.one_of(
    st.binary(max_size=200),
    st.lists(
        st.sampled_from(
            ["a", "b", ":", " ", "\n", "  ", "- ", "[", "]", "{", "}", ",", "&x", "*x", "<<",
             "!!python/name:os.system", "'", '"', "1", "true", "\xff", "#", "?", "|", ">"]
        ),
        max_size=60,
    ).map(lambda parts: "".join(parts).encode("utf-8", "surrogateescape")),
)  # fmt: skip


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(yaml_bytes)
def test_any_bytes_give_data_or_a_config_error(text: bytes) -> None:
    named_or_ok(lambda: load_yaml_text(text, "fuzz.yaml"))
