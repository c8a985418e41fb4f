"""The arena: seating, duplicate deals, statistics, workers, validation, output files."""

from __future__ import annotations

import csv
import importlib.util
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cardsuite.agents import registry
from cardsuite.agents.arena.records import read_records
from cardsuite.agents.arena.stats import competition_ranks, mean_ci, seat_ranks
from cardsuite.agents.arena.tournament import num_rotations, plan_games, run_tournament, seating
from cardsuite.agents.base import TableInfo
from cardsuite.agents.registry import KINDS, AgentKind
from cardsuite.cli import main
from cardsuite.errors import ConfigError


class IllegalAgent:
    """Always plays an illegal action (the first masked-out id)."""

    name = "illegal"

    def __init__(self, game: str, seed: int | None = None) -> None:
        self.game = game

    def reset(self, table: TableInfo, seed: int | None = None) -> None:
        """Nothing to reset."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        """An action the mask forbids."""
        return int(np.flatnonzero(action_mask == 0)[0])


# ------------------------------------------------------------------ seating
def test_two_agents_at_four_seats_alternate() -> None:
    assert num_rotations(2, 4) == 2
    assert seating(2, 4, 0) == (0, 1, 0, 1)
    assert seating(2, 4, 1) == (1, 0, 1, 0)


def test_three_agents_at_four_seats_use_all_four_rotations() -> None:
    assert num_rotations(3, 4) == 4
    assert [seating(3, 4, r) for r in range(4)] == [
        (0, 1, 2, 0),
        (1, 2, 0, 0),
        (2, 0, 0, 1),
        (0, 0, 1, 2),
    ]


@given(st.integers(2, 12).flatmap(lambda n: st.tuples(st.integers(2, n), st.just(n))))
def test_every_agent_sits_in_every_seat_equally_often(kn: tuple[int, int]) -> None:
    k, n = kn
    p = num_rotations(k, n)
    patterns = [seating(k, n, r) for r in range(p)]
    assert len(set(patterns)) == p  # the rotations are distinct
    share = [sum(1 for s in range(n) if s % k == a) for a in range(k)]  # seats per game
    for seat in range(n):
        for agent in range(k):
            sits = sum(1 for pattern in patterns if pattern[seat] == agent)
            assert sits * n == p * share[agent]


def test_duplicate_plans_repeat_the_deal_seed_over_rotations() -> None:
    plans = plan_games(2, 4, 3, duplicate=True, seed=5)
    assert [(p.deal, p.rotation) for p in plans] == [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1)]
    assert plans[0].deal_seed == plans[1].deal_seed != plans[2].deal_seed
    assert len({p.agent_seeds for p in plans}) == 6
    single = plan_games(2, 4, 3, duplicate=False, seed=5)
    assert len({p.deal_seed for p in single}) == 3


# ---------------------------------------------------------------- statistics
def test_competition_ranks_share_the_best_rank() -> None:
    assert competition_ranks([3.0, 1.0, 3.0, 0.0]) == [1, 3, 1, 4]
    assert competition_ranks([2.0, 1.0, 2.0], higher_is_better=False) == [2, 1, 2]


def test_seat_ranks_use_finish_positions_else_rewards() -> None:
    infos = [{"finish_position": 2}, {"finish_position": 1}, {"finish_position": 3}]
    assert seat_ranks([1.0, 1.0, 1.0], infos, "series") == [2, 1, 3]
    assert seat_ranks([1.0, -1.0, -1.0], infos, "game") == [1, 2, 2]
    assert seat_ranks([0.5, -0.2, 0.5], [{}, {}, {}], "hand") == [1, 3, 1]


def test_mean_ci_is_the_student_t_interval() -> None:
    mean, half = mean_ci([1.0, 2.0, 3.0, 4.0])
    assert mean == 2.5
    assert half == pytest.approx(3.182446305 * np.std([1, 2, 3, 4], ddof=1) / 2)  # t(0.975, 3)
    assert mean_ci([7.0]) == (7.0, None)


# ---------------------------------------------------------------- tournaments
def test_identical_random_agents_come_out_equal() -> None:
    result = run_tournament("scum", ["random", "random"], games=200, seed=0)
    d = result.to_dict()
    a, b = d["per_agent"]["random#1"], d["per_agent"]["random#2"]
    assert d["agents"] == ["random#1", "random#2"]
    assert d["games"] == 200 and d["deals"] == 200 and not d["duplicate"]
    assert abs(a["mean_score"] - b["mean_score"]) < np.hypot(a["score_ci"], b["score_ci"])
    # Scum 4p series: the points 4+3+2+1 split over two seats each, and rank = 5 - points.
    assert a["mean_score"] + b["mean_score"] == pytest.approx(5.0)
    assert a["mean_rank"] == pytest.approx(5.0 - a["mean_score"])
    assert a["win_rate"] + b["win_rate"] == pytest.approx(0.5)
    assert a["games"] == 200 and a["seat_games"] == 400
    h = d["head_to_head"]
    assert h["random#1"]["random#2"] + h["random#2"]["random#1"] == pytest.approx(1.0)


def test_duplicate_deals_repeat_the_same_hands(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    result = run_tournament(
        "scum", ["random", "random", "random"], games=2, duplicate=True, seed=4, record=path
    )
    assert result.to_dict()["games"] == 8 and result.rotations == 4
    records = read_records(path)
    assert [(r["deal"], r["rotation"]) for r in records] == [
        (d, r) for d in (0, 1) for r in range(4)
    ]
    for deal in (0, 1):
        group = [r for r in records if r["deal"] == deal]
        starts = {json.dumps(r["initial_state"]["hands"]) for r in group}
        orders = {tuple(r["initial_state"]["order"]) for r in group}
        assert len(starts) == 1 and len(orders) == 1  # the same hands and roles
        assert len({tuple(r["seats"].values()) for r in group}) == 4  # in every rotation
    first = records[0]["initial_state"]["hands"]
    assert first != records[4]["initial_state"]["hands"]


def test_worker_count_does_not_change_results() -> None:
    kwargs: dict[str, Any] = {"games": 6, "seed": 9, "duplicate": True, "players": 5}
    one = run_tournament("scum", ["random", "random", "random"], workers=1, **kwargs)
    two = run_tournament("scum", ["random", "random", "random"], workers=2, **kwargs)
    assert one.to_dict() == two.to_dict()
    assert [g.rewards for g in one.results] == [g.rewards for g in two.results]


def test_seed_changes_results_and_repeats_them() -> None:
    a = run_tournament("scum", ["random", "random"], games=10, seed=1).to_dict()
    b = run_tournament("scum", ["random", "random"], games=10, seed=1).to_dict()
    c = run_tournament("scum", ["random", "random"], games=10, seed=2).to_dict()
    assert a == b
    assert a["per_agent"] != c["per_agent"]


def test_illegal_actions_end_games_and_are_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    kinds = dict(KINDS)
    kinds["illegal"] = AgentKind("illegal", f"{__name__}:IllegalAgent", "test")
    monkeypatch.setattr(registry, "KINDS", kinds)
    d = run_tournament("scum", ["illegal", "random"], games=4, seed=0).to_dict()
    bad, good = d["per_agent"]["illegal"], d["per_agent"]["random"]
    assert bad["illegal_actions"] == 4 and good["illegal_actions"] == 0
    assert bad["mean_score"] == -0.5  # one seat penalized -1, its other seat 0
    assert good["mean_score"] == 0.0 and good["mean_rank"] == 1.0 and good["win_rate"] == 1.0
    assert bad["mean_rank"] == 2.5
    assert d["head_to_head"]["random"]["illegal"] == 1.0


@pytest.mark.parametrize(
    ("agents", "kwargs", "named"),
    [
        (["random"], {}, "at least 2 agent specs"),
        (["random", "bogus"], {}, "unknown agent 'bogus'"),
        (["random"] * 5, {}, "5 agent specs but only 4 seats"),
        (["random", "random"], {"games": 0}, "games must be a positive integer, got 0"),
        (["random", "random"], {"workers": 0}, "workers must be a positive integer, got 0"),
        (["random", "random"], {"seed": -1}, "seed must be a non-negative integer"),
        (["random", "random"], {"players": 3}, "num_players"),
        (
            ["random", "random"],
            {"players": 5, "options": {"num_players": 6}},
            "players=5 contradicts option num_players=6",
        ),
        (["random", "random"], {"options": {"bogus_rule": 1}}, "bogus_rule"),
    ],
)
def test_bad_tournaments_are_named(agents: list[str], kwargs: dict[str, Any], named: str) -> None:
    kwargs.setdefault("games", 2)
    with pytest.raises(ConfigError, match=named):
        run_tournament("scum", agents, **kwargs)


def test_write_produces_every_file(tmp_path: Path) -> None:
    result = run_tournament("scum", ["random", "random"], games=6, seed=0)
    paths = result.write(tmp_path / "out")
    assert [p.name for p in paths] == [
        "results.json",
        "results.csv",
        "head_to_head.csv",
        "results.png",
    ]
    assert json.loads(paths[0].read_text()) == result.to_dict()
    rows = list(csv.reader(paths[1].open()))
    assert rows[0][:4] == ["agent", "spec", "mean_score", "score_ci"]
    assert [r[0] for r in rows[1:]] == ["random#1", "random#2"]
    h2h = list(csv.reader(paths[2].open()))
    assert h2h[0] == ["agent", "random#1", "random#2"] and h2h[1][1] == ""
    assert paths[3].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_format_table_and_progress_bar(capsys: pytest.CaptureFixture[str]) -> None:
    result = run_tournament("scum", ["random", "random"], games=3, seed=0, progress=True)
    assert "scum tournament" in capsys.readouterr().err
    table = result.format_table()
    assert table.startswith("scum: 3 games, 4 players, seed 0 (seats rotated)")
    assert "head-to-head" in table and "random#2" in table


# ----------------------------------------------------------------------- CLI
def test_cli_tournament_prints_the_table_and_writes_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, rec = tmp_path / "res", tmp_path / "games.jsonl"
    code = main(
        ["tournament", "scum", "--agents", "random", "random", "--games", "4", "--carousel",
         "true", "--no-progress", "--out", str(out), "--record", str(rec), "--duplicate"]
    )  # fmt: skip
    text = capsys.readouterr().out
    assert code == 0
    assert text.startswith("scum: 8 games, 4 players, seed 0 (duplicate, 4 deals x 2 rotations)")
    assert (out / "results.json").is_file() and len(read_records(rec)) == 8
    assert json.loads((out / "results.json").read_text())["options"] == {"carousel": True}


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["--agents", "random", "random", "--bogus", "1"], "unknown option --bogus"),
        (["--agents", "random", "nope"], "unknown agent 'nope'"),
        (["--agents", "random", "random", "--games", "0"], "games must be a positive integer"),
        (["--agents", "random", "random", "--workers", "0"], "workers must be a positive"),
    ],
)
def test_cli_tournament_errors_exit_2(
    argv: list[str], named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["tournament", "--game", "scum", "--no-progress", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cardsuite tournament: error:") and named in err


# ------------------------------------------------------------ other games
@pytest.mark.parametrize("game", ["scum_party", "scandal"])
def test_other_games_play_a_small_duplicate_tournament(game: str, tmp_path: Path) -> None:
    module = {"scum_party": "scum_env.scum_party_v0", "scandal": "scandal_env.scandal_v0"}[game]
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not written yet")
    path = tmp_path / "g.jsonl"
    result = run_tournament(game, ["random", "random"], games=2, duplicate=True, record=path)
    d = result.to_dict()
    assert d["games"] == 2 * result.rotations
    assert sum(a["seat_games"] for a in d["per_agent"].values()) == d["games"] * d["players"]
    records = read_records(path)
    assert len(records) == d["games"]
    for record in records:  # the arena's score is the episode return
        for agent, info in record["infos"].items():
            if game == "scum_party":  # reward="points": the return is the tournament total
                assert record["rewards"][agent] == info["score"]
            else:  # episode="hand": the return is the hand score / reward_scale
                assert record["rewards"][agent] == pytest.approx(info["hand_score"] / 100.0)


def test_tournament_workers_exit_when_the_tournament_is_killed() -> None:
    # SIGKILL gives the tournament no clean-up: its worker processes must still go
    # (exit_with_parent), not play on and then wait for ever on the pool's queue.
    import subprocess
    import sys
    import time

    psutil = pytest.importorskip("psutil")
    script = (
        "from cardsuite.agents.arena.tournament import run_tournament\n"
        "run_tournament('scum', ['random', 'greedy'], games=200000, players=4, workers=2)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.PIPE)
    workers: list[Any] = []

    def pool_workers(parent: Any) -> list[Any]:
        found = []
        for child in parent.children():
            try:
                if "spawn_main" in " ".join(child.cmdline()):
                    found.append(child)
            except psutil.Error:  # a child that came and went between the two calls
                continue
        return found

    try:
        tournament = psutil.Process(proc.pid)
        # A generous deadline: a loaded machine (CI beside other jobs) has taken over a
        # minute to import and start the pool; the loop ends as soon as both are up.
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            workers = pool_workers(tournament)
            if len(workers) == 2 or proc.poll() is not None:
                break
            time.sleep(0.1)
        if proc.poll() is not None:
            err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
            pytest.fail(f"the tournament exited ({proc.returncode}) before the test: {err}")
        assert len(workers) == 2, "the tournament did not start its two workers in 300 s"
        proc.kill()
        proc.wait()
        _gone, alive = psutil.wait_procs(workers, timeout=60)
        assert not alive, f"workers left behind: {[w.pid for w in alive]}"
    finally:
        if proc.poll() is None:
            proc.kill()
        for worker in workers:
            if worker.is_running():
                worker.kill()


def test_tournament_workers_start_with_one_blas_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """Spawned workers get one BLAS/OpenMP thread unless the user chose; the parent is unchanged."""
    import multiprocessing
    import os
    from concurrent.futures import ProcessPoolExecutor

    from cardsuite.agents.arena.workers import THREAD_VARIABLES, one_thread_per_worker

    for name in THREAD_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MKL_NUM_THREADS", "3")  # the user's choice is kept
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        with one_thread_per_worker():
            futures = [pool.submit(os.getenv, name) for name in THREAD_VARIABLES]
        seen = [f.result() for f in futures]
    assert seen == ["1", "1", "3"]
    assert os.environ.get("OPENBLAS_NUM_THREADS") is None
    assert os.environ.get("OMP_NUM_THREADS") is None
    assert os.environ["MKL_NUM_THREADS"] == "3"


@pytest.mark.parametrize(
    ("old", "name", "home"),
    [
        ("cardsuite.agents.benchmark", "load_deal_set", "deal_sets"),
        ("cardsuite.agents.benchmark", "agent_hash", "deal_sets"),
        ("cardsuite.agents.benchmark", "VersusReference", "evaluation"),
        ("cardsuite.agents.leaderboard", "read_checkpoint", "round_robin"),
        ("cardsuite.agents.leaderboard", "shipped_agents", "round_robin"),
        ("cardsuite.agents.ratings", "deals_for_half_width", "stats"),
        ("cardsuite.agents.ratings", "mean_interval", "stats"),
        ("cardsuite.agents.arena", "plan_games", "tournament"),
        ("cardsuite.agents.arena", "one_thread_per_worker", "workers"),
    ],
)
def test_a_name_that_moved_resolves_with_a_warning_naming_its_home(
    old: str, name: str, home: str
) -> None:
    import importlib
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the old module name's own warning
        module = importlib.import_module(old)
    new = f"cardsuite.agents.arena.{home}"
    with pytest.warns(DeprecationWarning, match=f"moved to {new}.{name}; import it from there"):
        found = getattr(module, name)
    assert found is getattr(importlib.import_module(new), name)
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        module.no_such_name  # noqa: B018


def test_only_the_names_an_old_module_held_are_forwarded() -> None:
    from cardsuite.agents.arena import leaderboard, ratings, results

    with pytest.raises(AttributeError, match="no attribute 'head_to_head'"):
        ratings.head_to_head  # noqa: B018  (a stats name that was never in ratings)
    with pytest.raises(AttributeError, match="no attribute 'play_pair'"):
        leaderboard.play_pair  # noqa: B018
    assert results.check_results_dir.__module__ == "cardsuite.agents.arena.results"  # home again
