"""The leaderboard: duplicate round-robin, per-deal outcomes, order-free ratings, outputs."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cardsuite.agents.arena import leaderboard as lb
from cardsuite.agents.arena import round_robin
from cardsuite.agents.arena.leaderboard import plot, to_markdown
from cardsuite.agents.arena.round_robin import deal_outcomes, run_leaderboard
from cardsuite.agents.arena.tournament import run_tournament
from cardsuite.errors import ConfigError


def test_deal_outcomes_agree_with_the_arena_head_to_head() -> None:
    res = run_tournament("scum", ["heuristic", "random"], games=12, duplicate=True, seed=3)
    won = deal_outcomes(res)
    assert won.shape == (12,)
    assert float(won.mean()) == pytest.approx(res.head_to_head[0][1])


def test_identical_agents_draw_every_deal() -> None:
    res = run_tournament("scum", ["heuristic", "heuristic"], games=5, duplicate=True, seed=0)
    assert deal_outcomes(res).tolist() == [0.5] * 5


def test_round_robin_ranks_the_heuristic_above_random(tmp_path: Path) -> None:
    board = run_leaderboard(
        "scum", 4, ["random", "heuristic", "greedy"], deals=8, seed=1, resamples=50
    )
    h2h = board.head_to_head
    assert h2h[1][0] is not None and h2h[0][1] is not None
    assert h2h[1][0] + h2h[0][1] == pytest.approx(1.0)
    assert board.agents[board.order()[0]] == "heuristic"
    r = board.ratings
    assert r.anchor == "random" and r.rating[0] == 0.0
    assert r.rating[1] > r.rating[0]
    assert all(lo <= x <= hi for lo, x, hi in zip(r.low, r.rating, r.high, strict=True))
    lo, hi = board.h2h_interval[1][0] or (np.nan, np.nan)
    assert lo <= h2h[1][0] <= hi
    text = to_markdown(board, "cardsuite leaderboard scum --players 4 --deals 8")
    assert "| 1 | `heuristic` |" in text and text.count("\n|") >= 8
    png = plot(board, tmp_path / "lb.png")
    assert png.stat().st_size > 1000
    data = json.loads(json.dumps(board.to_dict()))
    assert len(data["pairs"]) == 3 and len(data["pairs"][0]["outcomes"]) == 8


def test_plot_leaves_the_callers_matplotlib_backend_alone(tmp_path: Path) -> None:
    import matplotlib

    board = run_leaderboard("scum", 4, ["random", "greedy"], deals=2, seed=0, resamples=0)
    before = matplotlib.get_backend()
    plot(board, tmp_path / "lb.png")
    assert matplotlib.get_backend() == before


def test_needs_two_agents() -> None:
    with pytest.raises(ConfigError, match="at least 2"):
        run_leaderboard("scum", 4, ["random"], deals=1)


def test_sections_are_replaced_or_appended() -> None:
    from cardsuite.agents.arena.leaderboard import merge_section

    a = "### scum, 4 players\n\nold 4p\n"
    b = "### scum, 6 players\n\n6p\n"
    doc = merge_section(merge_section("", a), b)
    assert doc.startswith("# Leaderboard") and "old 4p" in doc and "6p" in doc
    doc2 = merge_section(doc, "### scum, 4 players\n\nnew 4p\n")
    assert "old 4p" not in doc2 and "new 4p" in doc2 and "6p" in doc2
    assert doc2.index("new 4p") < doc2.index("6p")


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cardsuite.cli", "leaderboard", *args],
        cwd=cwd, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_cli_writes_nothing_without_out_and_takes_rule_options(tmp_path: Path) -> None:
    """Issue 23 item 5: progress on stderr, rule options as --key value, no file by default."""
    res = _cli("--game", "scum", "--players", "4", "--deals", "2", "--agents", "random",
               "greedy", "--resamples", "0", "--rule", "carousel=true", cwd=tmp_path)  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert "| 1 |" in res.stdout and "--rule carousel=true" in res.stdout
    assert "leaderboard" in res.stderr  # the tqdm bar
    assert list(tmp_path.iterdir()) == []


def test_cli_writes_where_asked(tmp_path: Path) -> None:
    out = tmp_path / "docs" / "lb.md"
    res = _cli("scum", "--players", "4", "--deals", "2", "--agents", "random", "greedy",
               "--resamples", "0", "--out", str(out), "--json", str(tmp_path / "lb.json"),
               "--no-progress", cwd=tmp_path)  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert out.is_file() and (tmp_path / "docs" / "img" / "leaderboard_scum_4.png").is_file()
    assert json.loads((tmp_path / "lb.json").read_text())["deals_per_pair"] == 2
    again = _cli("scum", "--players", "4", "--deals", "1", "--agents", "random", "greedy",
                 "--json", str(tmp_path / "lb.json"), "--no-progress", cwd=tmp_path)  # fmt: skip
    assert again.returncode != 0 and "already exists" in again.stderr


def test_cli_names_a_bad_rule_option(tmp_path: Path) -> None:
    res = _cli("scum", "--players", "4", "--deals", "1", "--carousle", "true", cwd=tmp_path)
    assert res.returncode != 0 and "carousle" in res.stderr and "Traceback" not in res.stderr


def test_rule_options_take_a_preset_then_flags() -> None:
    from cardsuite.agents.arena.cli import rule_options
    from cardsuite.games import get_game

    scum = get_game("scum")
    assert rule_options(scum, "scum/six_players", ["--carousel", "true"]) == {
        "num_players": 6,
        "carousel": True,
    }
    with pytest.raises(ConfigError, match="carousle"):
        rule_options(scum, None, ["--carousle", "true"])


# ------------------------------------------------------------------ checkpoint
AGENTS = ["random", "greedy", "heuristic"]


def test_an_interrupted_run_resumes_from_its_checkpoint_to_the_same_board(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed after 2 of 3 pairs, the rerun plays only the third; the board is the same."""
    whole = run_leaderboard("scum", 4, AGENTS, deals=3, seed=2, resamples=0)
    ckpt = tmp_path / "lb.jsonl"
    real = run_tournament
    played: list[list[str]] = []

    def interrupted(game: str, agents: list[str], **kw: object) -> object:
        if len(played) == 2:
            raise KeyboardInterrupt
        played.append(list(agents))
        return real(game, agents, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr("cardsuite.agents.arena.round_robin.run_tournament", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run_leaderboard("scum", 4, AGENTS, deals=3, seed=2, resamples=0, checkpoint=ckpt)
    assert len(ckpt.read_text().splitlines()) == 2
    played.clear()
    monkeypatch.setattr("cardsuite.agents.arena.round_robin.run_tournament", real)

    def counting(game: str, agents: list[str], **kw: object) -> object:
        played.append(list(agents))
        return real(game, agents, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr("cardsuite.agents.arena.round_robin.run_tournament", counting)
    resumed = run_leaderboard("scum", 4, AGENTS, deals=3, seed=2, resamples=0, checkpoint=ckpt)
    assert played == [["greedy", "heuristic"]]
    assert resumed.to_dict() == whole.to_dict()
    assert len(ckpt.read_text().splitlines()) == 3


def test_a_checkpoint_of_other_settings_is_refused(tmp_path: Path) -> None:
    ckpt = tmp_path / "lb.jsonl"
    run_leaderboard("scum", 4, AGENTS[:2], deals=2, seed=0, resamples=0, checkpoint=ckpt)
    with pytest.raises(ConfigError, match="line 1 is from another run"):
        run_leaderboard("scum", 4, AGENTS[:2], deals=2, seed=1, resamples=0, checkpoint=ckpt)
    with pytest.raises(ConfigError, match="line 1 is from another run"):
        run_leaderboard("scum", 4, AGENTS[:2], deals=3, seed=0, resamples=0, checkpoint=ckpt)
    bad = tmp_path / "bad.jsonl"
    key = round_robin.checkpoint_key("scum", 4, {}, 0, 2)
    bad.write_text(json.dumps({**key, "a": "random", "b": "greedy", "outcomes": [1, 2]}) + "\n")
    with pytest.raises(ConfigError, match=r"outcomes of 0, 0\.5 or 1"):
        round_robin.read_checkpoint(bad, key)
    with pytest.raises(ConfigError, match="cannot write --checkpoint"):
        run_leaderboard(
            "scum", 4, AGENTS[:2], deals=2, resamples=0, checkpoint=tmp_path / "no" / "x.jsonl"
        )


def test_a_line_cut_short_is_ignored_and_then_dropped(tmp_path: Path) -> None:
    key = round_robin.checkpoint_key("scum", 4, {}, 0, 2)
    ckpt = tmp_path / "lb.jsonl"
    round_robin.append_checkpoint(ckpt, key, "random", "greedy", np.array([0.0, 0.5]))
    with ckpt.open("a") as fh:
        fh.write('{"game": "scum", "play')  # the run was killed mid-line
    assert list(round_robin.read_checkpoint(ckpt, key)) == [("random", "greedy")]
    round_robin.append_checkpoint(ckpt, key, "random", "heuristic", np.array([0.0, 0.0]))
    lines = ckpt.read_text().splitlines()
    assert len(lines) == 2 and all(json.loads(line)["deals"] == 2 for line in lines)
    assert round_robin.read_checkpoint(ckpt, key)[("random", "heuristic")].tolist() == [0.0, 0.0]


def test_weights_sha256_follows_the_files_an_agent_plays(tmp_path: Path) -> None:
    import hashlib
    import shutil

    from cardsuite.agents.learned.pretrained import agent_dir
    from cardsuite.agents.registry import weights_sha256

    shipped = agent_dir("scum4") / "weights.safetensors"
    want = hashlib.sha256(shipped.read_bytes()).hexdigest()
    assert weights_sha256("pretrained:scum4") == want
    assert weights_sha256("search:pretrained:scum4:budget=5") == want  # through the wrapper
    run = tmp_path / "run"
    shutil.copytree(agent_dir("scum4"), run)
    assert weights_sha256(f"ppo:{run}") == want
    for spec in ("heuristic", "ismcts-batched:budget=3", "pretrained:nosuch", f"ppo:{run}x"):
        assert weights_sha256(spec) is None


def test_a_pair_whose_agent_now_plays_other_weights_is_refused(tmp_path: Path) -> None:
    """A name re-shipped (or a run retrained into the same folder) after its pair was saved:
    the line names the agent and both digests, and is never reused silently."""
    import shutil

    from safetensors.numpy import load_file, save_file

    from cardsuite.agents.learned.pretrained import agent_dir

    run = tmp_path / "run"
    shutil.copytree(agent_dir("scum4"), run)
    agents = ["random", f"ppo:{run}"]
    ckpt = tmp_path / "lb.jsonl"
    board = run_leaderboard("scum", 4, agents, deals=1, resamples=0, checkpoint=ckpt)
    line = json.loads(ckpt.read_text())
    assert line["weights"][0] is None and len(line["weights"][1]) == 64
    again = run_leaderboard("scum", 4, agents, deals=1, resamples=0, checkpoint=ckpt)
    assert again.to_dict() == board.to_dict()  # the same files: the line is reused
    tensors = load_file(run / "weights.safetensors")
    first = sorted(tensors)[0]
    tensors[first] = tensors[first] + np.ones_like(tensors[first])
    save_file(tensors, run / "weights.safetensors")
    with pytest.raises(ConfigError, match=r"line 1: 'ppo:.*' played weights of SHA-256 .* now"):
        run_leaderboard("scum", 4, agents, deals=1, resamples=0, checkpoint=ckpt)
    # a line written before weights were recorded is taken as it is; a malformed record is not
    key = round_robin.checkpoint_key("scum", 4, {}, 0, 1)
    legacy = tmp_path / "legacy.jsonl"
    legacy.write_text(json.dumps({**key, "a": "random", "b": agents[1], "outcomes": [1]}) + "\n")
    assert round_robin.read_checkpoint(legacy, key)[("random", agents[1])].tolist() == [1.0]
    broken = tmp_path / "broken.jsonl"
    broken.write_text(
        json.dumps({**key, "a": "random", "b": "greedy", "outcomes": [1], "weights": "x"}) + "\n"
    )
    with pytest.raises(ConfigError, match="weights must be a list of two SHA-256"):
        round_robin.read_checkpoint(broken, key)


def test_a_pilot_times_every_pair_and_projects_the_run() -> None:
    rows = round_robin.pilot("scum", 4, AGENTS, pilot_deals=1, deals=200, seed=0)
    assert [(r["a"], r["b"]) for r in rows] == [
        ("random", "greedy"), ("random", "heuristic"), ("greedy", "heuristic")
    ]  # fmt: skip
    for r in rows:
        assert r["games"] == 2  # 2 agents at 4 seats (A B A B): 2 rotations per deal
        assert r["cpu_s"] > 0 and r["projected_cpu_s"] == pytest.approx(200 * r["cpu_s"])
        assert r["cpu_s_per_game"] == pytest.approx(r["cpu_s"] / 2)
    text = lb.pilot_text(rows, 1, 200)
    assert "| `random` vs `greedy` | 2 |" in text and "projected total:" in text
    with pytest.raises(ConfigError, match="at least 1"):
        round_robin.pilot("scum", 4, AGENTS, pilot_deals=0, deals=200)


def test_the_board_seats_each_games_ismcts_baseline_at_the_given_parameters() -> None:
    from cardsuite.agents.arena.round_robin import default_agents

    def searches(game: str, options: dict[str, int], ismcts: str) -> list[str]:
        return [a for a in default_agents(game, options, ismcts) if a.startswith("ismcts")]

    # every game: ``ismcts``, the batched search (issue 58)
    assert searches("scum", {"num_players": 4}, "") == ["ismcts"]
    assert searches("scum_party", {"num_players": 8}, "") == ["ismcts"]
    assert searches("scandal", {"num_players": 2}, "") == ["ismcts"]
    assert searches("scandal", {"num_players": 4}, "budget=30") == ["ismcts:budget=30"]
    assert searches("scum", {"num_players": 6}, "budget=10") == ["ismcts:budget=10"]


def test_the_markdown_names_gaps_the_deals_do_not_measure() -> None:
    """random lost every deal: the board says its distance to the others is the prior's."""
    from cardsuite.agents.arena.ratings import PairDeals, rate
    from cardsuite.agents.arena.round_robin import Board

    agents = ["random", "heuristic", "greedy"]
    pairs = [
        PairDeals(0, 1, np.zeros(10)),
        PairDeals(0, 2, np.zeros(10)),
        PairDeals(1, 2, np.r_[np.ones(6), np.zeros(4)]),
    ]
    h2h: list[list[float | None]] = [[None, 0.0, 0.0], [1.0, None, 0.6], [1.0, 0.4, None]]
    ci: list[list[tuple[float, float] | None]] = [
        [None if i == j else (0.0, 1.0) for j in range(3)] for i in range(3)
    ]
    board = Board("scum", 4, 10, 0, agents, pairs, rate(agents, pairs, resamples=0), h2h, ci)
    text = to_markdown(board, "cardsuite leaderboard scum")
    assert (
        "Not measured: the rating gaps between the groups {`heuristic`, `greedy`}, {`random`}"
        in text
    )
    data = board.to_dict()
    assert data["rating_tiers"] == {"random": 1, "heuristic": 0, "greedy": 0}
    assert data["unmeasured"].startswith("Not measured")
    pairs[1] = PairDeals(0, 2, np.r_[1.0, np.zeros(9)])  # random beat greedy once
    board = Board("scum", 4, 10, 0, agents, pairs, rate(agents, pairs, resamples=0), h2h, ci)
    assert "Not measured" not in to_markdown(board, "x") and board.to_dict()["unmeasured"] is None


def test_a_name_that_plays_anothers_weights_is_rated_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A name listed in `SHARED` plays another name's folder (the same weights): both sit
    at the table, but the board rates the weights once; the twin still loads and is listed
    as available. (No shipped name shares weights since party20 and party50 became two
    networks on 2026-12-05; the mechanism is checked with a twin of party_generic.)"""
    from cardsuite.agents.arena.round_robin import shipped_agents
    from cardsuite.agents.learned import pretrained
    from cardsuite.agents.learned.pretrained import PretrainedAgent

    assert pretrained.SHARED == {}
    shipped = shipped_agents("scum_party", {"num_players": 20})
    assert shipped == [
        "pretrained:party8",
        "pretrained:party20",
        "pretrained:party50",
        "pretrained:party_generic",
    ]  # party8 is any-table: it sits at 20 players too
    monkeypatch.setitem(pretrained.SHARED, "twin", "party_generic")
    monkeypatch.setitem(pretrained.CATALOGUE, "twin", pretrained.CATALOGUE["party_generic"])
    assert PretrainedAgent.shares("twin") == "party_generic"
    assert "twin" in PretrainedAgent.available("scum_party", {"num_players": 20})
    assert shipped_agents("scum_party", {"num_players": 20}) == shipped  # rated once
    from cardsuite.agents.registry import make_agent

    twin = make_agent("pretrained:twin", "scum_party", seed=0)
    assert twin.meta == make_agent("pretrained:party_generic", "scum_party", seed=0).meta
    assert shipped_agents("scum", {"num_players": 4}) == ["pretrained:scum4"]


def _twice(game: str, shipped: list[str]) -> list[str]:
    """A kind's leaderboard entries (`test_a_kind_names_its_own_leaderboard_entries`)."""
    return [f"twice:{spec}" for spec in shipped]


def test_a_kind_names_its_own_leaderboard_entries(monkeypatch: pytest.MonkeyPatch) -> None:
    """The board asks the registry, never the search layer: a kind's ``leaderboard``
    function names the specs it adds for the shipped agents (``search:`` does so)."""
    from cardsuite.agents.arena.round_robin import default_agents
    from cardsuite.agents.kinds import AgentKind
    from cardsuite.agents.registry import KINDS

    kind = AgentKind("twice", "cardsuite.agents.base:RandomAgent", "test",
                     leaderboard="tests.agents.test_leaderboard:_twice")  # fmt: skip
    monkeypatch.setitem(KINDS, "twice", kind)
    agents = default_agents("scum", {"num_players": 4}, "")
    assert agents[:4] == ["random", "greedy", "heuristic", "ismcts"]
    assert "search:pretrained:scum4" in agents and agents[-1] == "twice:pretrained:scum4"
    assert KINDS["search"].leaderboard is not None  # the guided search declares its entries


def test_the_default_checkpoint_keeps_pairs_and_goes_once_the_board_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --checkpoint, finished pairs are kept in leaderboard-GAME-Np-HASH.jsonl in the
    current folder while the run lasts (issue 59); a read-only folder only prints."""
    from cardsuite.agents.arena import leaderboard
    from cardsuite.cli import main

    monkeypatch.chdir(tmp_path)
    args = ["leaderboard", "scum", "--players", "4", "--deals", "2", "--agents", "random",
            "greedy", "--resamples", "0", "--no-progress"]  # fmt: skip
    seen: list[str] = []
    real = round_robin.append_checkpoint

    def spy(path: Path, *rest: object, **kw: object) -> None:
        seen.append(Path(path).name)
        real(path, *rest, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(round_robin, "append_checkpoint", spy)
    assert main(args) == 0
    assert len(seen) == 1 and re.fullmatch(r"leaderboard-scum-4p-[0-9a-f]{8}\.jsonl", seen[0])
    assert "keeps the finished pairs (0 of 1 now)" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # removed once the board was written
    monkeypatch.setattr(leaderboard.os, "access", lambda *_a: False)
    assert main(args) == 0
    assert "read-only, so finished pairs are not kept" in capsys.readouterr().err
    assert len(seen) == 1 and list(tmp_path.iterdir()) == []
