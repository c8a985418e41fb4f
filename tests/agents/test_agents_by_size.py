"""``cardsuite agents``: the shipped agents by table size, from their model cards (issue 60)."""

from __future__ import annotations

import re
from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cardsuite.agents.learned.cards import ModelCard, Result
from cardsuite.cli import main

LEGEND = """\
The share of unseen duplicate deals (seed 2,000,003) each agent won against the heuristic, ± its 95%
interval, from its model card; -: not measured. Recommended: the largest share above 50% (the first
listed on a tie)."""

SCANDAL_AT_4 = f"""\
Shipped agents of Scandal (model cards: agents/learned/models/NAME/README.md):
  pretrained:scandal2        2–6 players: Scandal at 2 players, size-generic; PPO, with a critic
  pretrained:scandal2_table  2–6 players: Scandal at 2 players, any-table; PPO, 8M decisions, with a critic
  pretrained:scandal4        2–6 players: Scandal, size-generic PPO for 2-6 players; scandal2 wins more at 4

| agent                     | sits at | 4 players           |
|---------------------------|---------|---------------------|
| pretrained:scandal2       | 2–6     | 71.5% ± 6.3         |
| pretrained:scandal2_table | 2–6     | 49.5% ± 7.0         |
| pretrained:scandal4       | 2–6     | 60.5% ± 4.8         |
| recommended               |         | pretrained:scandal2 |

{LEGEND}

* pretrained:scandal4: at 4 players, where its headline was measured, pretrained:scandal2 wins more
  (71.5% ± 6.3 against 60.5% ± 4.8): seat pretrained:scandal2 there.
"""

PARTY = f"""\
| agent                    | sits at | 5 players      | 8 players         | 13 players     | 20 players         | 50 players         |
|--------------------------|---------|----------------|-------------------|----------------|--------------------|--------------------|
| pretrained:party8        | 5–50    | 30.25% ± 6.2   | 59.8% ± 4.8       | 23.25% ± 5.8   | 46.25% ± 6.7       | 33.75% ± 6.5       |
| pretrained:party20       | 5–50    | -              | 41.4% ± 4.8       | -              | 65.75% ± 4.6       | 37.6% ± 4.7        |
| pretrained:party50       | 5–50    | -              | 35.75% ± 4.6      | -              | 43.0% ± 4.8        | 61.75% ± 4.7       |
| pretrained:party_generic | 5–50    | -              | 53.75% ± 6.9      | 42.5% ± 12.8   | 57.25% ± 6.9       | 49.75% ± 6.9       |
| recommended              |         | none above 50% | pretrained:party8 | none above 50% | pretrained:party20 | pretrained:party50 |

{LEGEND}

* pretrained:party_generic: at 20 players, where its headline was measured, pretrained:party20 wins
  more (65.75% ± 4.6 against 57.25% ± 6.9): seat pretrained:party20 there.
"""  # fmt: skip

SCUM_AT_5 = f"""\
| agent            | sits at | 5 players |
|------------------|---------|-----------|
| pretrained:scum4 | 4       | -         |
| pretrained:scum6 | 6       | -         |
| recommended      |         | -         |

{LEGEND}
"""


def _agents(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["agents", *argv]) == 0
    return capsys.readouterr().out


def test_one_table_size_recommends_the_strongest_agent_there(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``scandal4`` is named for 4 players, but ``scandal2`` wins more there: the table
    recommends it and says so under the table."""
    out = _agents(capsys, "--game", "scandal", "--players", "4")
    assert out.startswith("Agent kinds (cardsuite tournament --agents SPEC):\n")
    assert out.split("\n\n", 1)[1] == SCANDAL_AT_4


def test_every_measured_size_and_dashes_where_none_was_measured(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _agents(capsys, "--game", "scum_party").endswith("\n\n" + PARTY)
    assert _agents(capsys, "--game", "scum", "--players", "5").endswith("\n\n" + SCUM_AT_5)


def test_without_a_game_every_game_is_listed(capsys: pytest.CaptureFixture[str]) -> None:
    out = _agents(capsys)
    assert [line for line in out.splitlines() if line.startswith("Shipped agents of")] == [
        f"Shipped agents of {title} (model cards: agents/learned/models/NAME/README.md):"
        for title in ("Scum", "Scum Party", "Scandal")
    ]
    assert (
        PARTY in out
        and "| recommended      |         | pretrained:scum4 | pretrained:scum6 |" in out
    )


@pytest.mark.parametrize(
    "argv, named",
    [
        (["--players", "4"], "--players needs --game: .*"),
        (["--game", "scum", "--players", "3"], "--players: .*Scum is played by 4 to 12 .*"),
        (["--game", "chess"], "unknown game 'chess'.*"),
    ],
)
def test_a_bad_table_is_a_named_error(
    argv: list[str], named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["agents", *argv]) == 2
    assert re.fullmatch(f"cardsuite agents: error: {named}\n", capsys.readouterr().err)


def _card(name: str, rows: list[tuple[int, float]], retired: bool) -> ModelCard:
    evaluation = tuple(Result("heuristic", n, won, 5.0, 100, 2_000_003) for n, won in rows)
    return ModelCard(name, "scandal", "s", "generic", (2,), (2, 6), "c", "0", date(2026, 12, 8),
                     evaluation, retired="gone" if retired else "")  # fmt: skip


_ROWS = st.lists(st.tuples(st.integers(2, 6), st.integers(0, 400).map(lambda q: q / 4)),
                 min_size=1, max_size=6)  # fmt: skip


@given(st.lists(st.tuples(_ROWS, st.booleans()), min_size=1, max_size=5))
def test_the_recommendation_is_the_first_largest_share_above_half(
    specs: list[tuple[list[tuple[int, float]], bool]],
) -> None:
    """Every cell is the card's first row at that size or "-", and the recommended agent
    has the largest share above 50% among the agents not retired, the first on a tie."""
    from cardsuite.agents.learned.strength import recommend, share, size_table

    cards = [_card(f"a{i}", rows, retired) for i, (rows, retired) in enumerate(specs)]
    table = size_table(cards, [2, 3, 4, 5, 6]).splitlines()
    for i, (rows, _) in enumerate(specs):
        cells = [c.strip() for c in table[2 + i].split("|")[3:-1]]
        firsts = {n: next((w for m, w in rows if m == n), None) for n in range(2, 7)}
        assert cells == ["-" if w is None else f"{w}% ± 5.0" for w in firsts.values()]
    for n in range(2, 7):
        shares = [(s.won, c) for c in cards if not c.retired and (s := share(c, n))]
        above = [(won, c) for won, c in shares if won > 50]
        best = recommend(cards, n)
        if not above:
            assert best is None
        else:
            top = max(won for won, _ in above)
            assert best is next(c for won, c in above if won == top)
