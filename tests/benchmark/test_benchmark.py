"""cardsuite benchmark: fixed deal sets (hashes recomputed), the reference pool, the report."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from cardsuite.agents.arena import deal_sets, evaluation, evaluation_cli
from cardsuite.agents.arena.stats import deals_for_half_width
from cardsuite.errors import ConfigError

SETS = [("scum", 4), ("scum", 6), ("scum_party", 8), ("scandal", 2), ("scandal", 4)]


@pytest.mark.parametrize(("game", "players"), SETS)
def test_the_engine_still_deals_every_shipped_deal_set(game: str, players: int) -> None:
    """An engine change that changes a deal (or its seeding) fails here: bump the protocol."""
    ds = deal_sets.load_deal_set(game, players)
    assert (ds.game, ds.players, ds.deals) == (game, players, 400)
    assert ds.options[{"scum_party": "num_players"}.get(game, "num_players")] == players
    assert deal_sets.deal_set_hash(ds.game, ds.options, ds.seed, ds.deals) == ds.sha256
    assert (
        deal_sets.deal_set_hash(ds.game, ds.options, ds.seed, deal_sets.QUICK_DEALS)
        == ds.quick_sha256
    )


def test_the_hash_sees_a_changed_deal() -> None:
    ds = deal_sets.load_deal_set("scum", 4)
    assert deal_sets.deal_set_hash(ds.game, ds.options, ds.seed + 1, 3) != deal_sets.deal_set_hash(
        ds.game, ds.options, ds.seed, 3
    )


def test_the_default_size_gives_five_point_intervals() -> None:
    assert all(deal_sets.load_deal_set(g, n).deals >= deals_for_half_width(0.05) for g, n in SETS)


def test_unknown_size_names_the_deal_sets() -> None:
    with pytest.raises(ConfigError, match="scum_4p"):
        deal_sets.load_deal_set("scum", 5)


def test_pool_has_the_baselines_ismcts_and_the_shipped_agent() -> None:
    ds = deal_sets.load_deal_set("scum", 4)
    assert deal_sets.reference_pool(ds) == [
        "random", "greedy", "heuristic", "ismcts-reference:budget=100", "pretrained:scum4"
    ]  # fmt: skip
    assert deal_sets.reference_pool(ds, quick=True)[3] == "ismcts-reference:budget=10"
    assert deal_sets.reference_pool(ds, ismcts="ismcts:budget=7")[3] == "ismcts:budget=7"


def test_the_pool_is_fixed_with_the_deal_set(monkeypatch: pytest.MonkeyPatch) -> None:
    """An agent shipped later does not join a deal set's pool (it would change the numbers)."""
    before = deal_sets.reference_pool(deal_sets.load_deal_set("scum_party", 8))
    monkeypatch.setattr(deal_sets, "shipped_agents", lambda game, options: ["pretrained:new"])
    assert deal_sets.reference_pool(deal_sets.load_deal_set("scum_party", 8)) == before
    # pretrained:party8 left this pool when it was re-shipped (2026-12-05): a calibrated
    # rating belongs to the weights it was measured with
    assert before == ["random", "greedy", "heuristic", "ismcts-reference:budget=100"]
    assert (
        deal_sets.reference_pool_now("scum_party", 8, "ismcts:budget=100")[-1] == "pretrained:new"
    )


def test_scandal_pools_seat_the_leaderboards_ismcts() -> None:
    """Protocol 2: Scandal's pools seat ismcts-batched (the per-game reference takes ~9 s a
    hand); the quick run swaps in the same kind at budget 10; Scum's protocol-1 pools keep
    the reference (``ismcts-reference``); a new deal set seats ``ismcts`` (protocol 3)."""
    for n in (2, 4):
        ds = deal_sets.load_deal_set("scandal", n)
        assert ds.protocol == "cardsuite-benchmark/2" != deal_sets.PROTOCOL
        assert ds.ismcts == "ismcts-batched:budget=100"
        assert deal_sets.reference_pool(ds)[3] == ds.ismcts
        assert deal_sets.reference_pool(ds, quick=True)[3] == "ismcts-batched:budget=10"
    # pretrained:scandal4 left both Scandal pools when it was re-shipped (2026-12-05)
    assert deal_sets.load_deal_set("scandal", 4).pool == (
        "random",
        "greedy",
        "heuristic",
        ds.ismcts,
    )
    assert deal_sets.load_deal_set("scandal", 2).pool[-1] == "pretrained:scandal2_table"
    scum = deal_sets.load_deal_set("scum", 4)
    assert scum.protocol == "cardsuite-benchmark/1" and scum.ismcts == "ismcts-reference:budget=100"
    assert deal_sets.baseline_ismcts("scum") == deal_sets.baseline_ismcts("scandal")
    data = deal_sets.deal_set_data("scandal", 2, 24003, deals=3)
    assert data["protocol"] == deal_sets.PROTOCOL and data["ismcts"] == "ismcts:budget=100"


def test_a_deal_set_of_an_unknown_protocol_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(deal_sets, "PROTOCOLS", ("cardsuite-benchmark/9",))
    with pytest.raises(ConfigError, match=r"deal set scum_4p is for 'cardsuite-benchmark/1'"):
        deal_sets.load_deal_set("scum", 4)


def test_a_deal_set_without_a_valid_pool_is_refused() -> None:
    with pytest.raises(ConfigError, match="'pool' must list"):
        deal_sets._pool({"ismcts": "ismcts:budget=100", "pool": ["random"]}, "x")
    with pytest.raises(ConfigError, match="'pool' must list"):
        deal_sets._pool({"ismcts": "ismcts"}, "x")


def test_agent_hash_covers_spec_code_and_weights() -> None:
    a = deal_sets.agent_hash("ismcts:budget=10", "scum")
    assert a == deal_sets.agent_hash("ismcts:budget=10", "scum")
    assert a != deal_sets.agent_hash("ismcts:budget=11", "scum")
    assert "cardsuite.agents.baselines.scum" in deal_sets._code_modules(
        "cardsuite.agents.search.reference"
    )


def test_a_shipped_agents_hash_is_its_weights_and_metadata_not_its_model_card(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("safetensors")
    from cardsuite.agents.learned import pretrained

    shutil.copytree(pretrained.agent_dir("scum4"), tmp_path / "scum4")
    monkeypatch.setattr(pretrained, "agent_dir", lambda name: tmp_path / name)
    before = deal_sets.agent_hash("pretrained:scum4", "scum")
    card = tmp_path / "scum4" / "README.md"
    card.write_text(card.read_text() + "\nAn edited model card.\n")
    assert deal_sets.agent_hash("pretrained:scum4", "scum") == before
    meta = tmp_path / "scum4" / "agent.json"
    meta.write_text(meta.read_text() + "\n")  # the same metadata, other bytes
    assert deal_sets.agent_hash("pretrained:scum4", "scum") != before


def test_engine_hash_sees_every_file_of_the_games_package(tmp_path: Path) -> None:
    """A changed rule changes no deal; the engine's hash in the report still shows it."""
    assert deal_sets.engine_hash("scum") == deal_sets.engine_hash(
        "scum_party"
    )  # one package, scum_env
    assert deal_sets.engine_hash("scum") != deal_sets.engine_hash("scandal")
    root = tmp_path / "pkg"
    (root / "sub" / "__pycache__").mkdir(parents=True)
    (root / "rules.py").write_text("PASS_ENDS_TRICK = True\n")
    (root / "sub" / "deck.json").write_text("[1, 2]")
    before = deal_sets.source_tree_hash(root)
    (root / "sub" / "__pycache__" / "rules.cpython-311.pyc").write_bytes(b"cache")
    assert deal_sets.source_tree_hash(root) == before  # caches are not the engine
    (root / "rules.py").write_text("PASS_ENDS_TRICK = False\n")
    assert deal_sets.source_tree_hash(root) != before
    (root / "rules.py").write_text("PASS_ENDS_TRICK = True\n")
    assert deal_sets.source_tree_hash(root) == before
    (root / "sub" / "deck.json").write_text("[1, 3]")
    assert deal_sets.source_tree_hash(root) != before
    (root / "sub" / "deck.json").rename(root / "deck.json")  # same bytes, another path
    (root / "deck.json").write_text("[1, 2]")
    assert deal_sets.source_tree_hash(root) != before


def _small(monkeypatch: pytest.MonkeyPatch, ratings: dict[str, float] | None = None) -> None:
    """A two-reference pool, so a report takes a second; ``ratings`` None: uncalibrated."""
    monkeypatch.setattr(
        evaluation, "reference_pool", lambda ds, quick=False, ismcts=None: ["random", "heuristic"]
    )
    real = deal_sets.load_deal_set
    if ratings is not None:
        monkeypatch.setattr(
            evaluation, "load_deal_set",
            lambda g, n: dataclasses.replace(real(g, n), reference_ratings=ratings,
                                             calibration="test", calibration_deals=7),
        )  # fmt: skip
    else:  # whatever the shipped file holds (scum_4p's full pool is calibrated)
        monkeypatch.setattr(
            evaluation, "load_deal_set",
            lambda g, n: dataclasses.replace(real(g, n), reference_ratings={},
                                             calibration="", calibration_deals=0),
        )  # fmt: skip


def test_report_without_calibration_names_why_there_is_no_rating(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _small(monkeypatch)
    report = evaluation.run_benchmark("greedy", "scum", 4, deals=6, resamples=100)
    assert not report["citable"] and report["deal_set"]["deals"] == 6
    assert [r["reference"] for r in report["versus"]] == ["random", "heuristic"]
    for row in report["versus"]:
        assert row["deals_won_low"] <= row["deals_won"] <= row["deals_won_high"]
        assert row["mean_points_low"] <= row["mean_points"] <= row["mean_points_high"]
        assert len(row["outcomes"]) == 6 and len(row["reference_sha256"]) == 64
    assert report["versus"][0]["deals_won"] == 1.0  # greedy beats random on every deal
    assert report["rating"]["elo"] is None and "--calibrate" in report["rating"]["basis"]
    assert report["rating"]["uncalibrated"] == ["random", "heuristic"]
    assert report["rating"]["calibration_deals"] is None
    card = evaluation_cli.to_markdown(report, "cmd")
    assert "not citable" in card and "| `heuristic` |" in card
    assert "**Uncalibrated references: `random`, `heuristic`.**" in card
    assert "(6 deals against each reference)" in card
    assert card.count("| uncalibrated |") == 2 and "calibrated by a round-robin" not in card
    assert report["engine_sha256"] == deal_sets.engine_hash("scum")
    assert (
        f"Rules engine (SHA-256 of its package's source): `{deal_sets.engine_hash('scum')[:16]}…`"
        in card
    )
    json.dumps(report, allow_nan=False)


def test_rating_against_calibrated_references(monkeypatch: pytest.MonkeyPatch) -> None:
    _small(monkeypatch, {"random": 0.0, "heuristic": 600.0})
    report = evaluation.run_benchmark("heuristic", "scum", 4, deals=4, resamples=100)
    r = report["rating"]
    # the heuristic draws itself on every deal (same seats, same cards): about 600
    assert report["versus"][1]["outcomes"] == [0.5] * 4
    assert 400 < r["elo"] < 800 and r["low"] <= r["elo"] <= r["high"]
    assert "calibrated" in r["basis"]
    assert r["uncalibrated"] == [] and r["reference_ratings"] == {"random": 0.0, "heuristic": 600.0}
    card = evaluation_cli.to_markdown(report, "cmd")
    assert "Uncalibrated" not in card and "| 600 |" in card
    assert "round-robin of the full pool on 7 deals per pair" in card


def test_a_pool_that_gained_a_reference_names_it_uncalibrated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _small(monkeypatch, {"random": 0.0})  # heuristic has no stored rating
    report = evaluation.run_benchmark("greedy", "scum", 4, deals=2, resamples=50)
    assert report["rating"]["elo"] is None and report["rating"]["uncalibrated"] == ["heuristic"]
    card = evaluation_cli.to_markdown(report, "cmd")
    assert "**Uncalibrated references: `heuristic`.**" in card and "| 0 |" in card


def test_a_reference_with_other_weights_loses_its_calibrated_rating(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A reference re-shipped with new weights (the deal set's ``reference_weights`` no longer
    match) is named uncalibrated: its stored rating was measured with other weights."""
    _small(monkeypatch, {"random": 0.0, "heuristic": 600.0})
    real = evaluation.load_deal_set
    calibrated_with = "ab" * 32
    monkeypatch.setattr(
        evaluation, "load_deal_set",
        lambda g, n: dataclasses.replace(real(g, n), reference_weights={"heuristic": calibrated_with}),
    )  # fmt: skip
    report = evaluation.run_benchmark("greedy", "scum", 4, deals=2, resamples=50)
    r = report["rating"]
    assert r["elo"] is None and r["uncalibrated"] == ["heuristic"]
    assert r["reference_ratings"] == {"random": 0.0, "heuristic": None}
    assert r["stale_weights"] == {"heuristic": {"calibrated": calibrated_with, "now": None}}
    assert "heuristic now plays other weights than it was calibrated with" in r["basis"]
    card = evaluation_cli.to_markdown(report, "cmd")
    assert "**Uncalibrated references: `heuristic`.**" in card
    assert "`heuristic` now plays other weights than it was calibrated with (SHA-256 `abab" in card
    assert "stores no" not in card and card.count("| uncalibrated |") == 1
    json.dumps(report, allow_nan=False)


def test_stale_references_compare_the_shipped_weights() -> None:
    """The digest of a shipped agent's weights file decides; rule-based references and
    references the deal set records nothing for are never stale."""
    from cardsuite.agents.registry import weights_sha256

    ds = deal_sets.load_deal_set("scum", 4)
    now = weights_sha256("pretrained:scum4")
    assert now is not None
    same = dataclasses.replace(ds, reference_weights={"pretrained:scum4": now})
    assert deal_sets.stale_references(same, ["random", "pretrained:scum4"]) == {}
    other = dataclasses.replace(ds, reference_weights={"pretrained:scum4": "0" * 64})
    assert deal_sets.stale_references(other, ["random", "pretrained:scum4"]) == {
        "pretrained:scum4": ("0" * 64, now)
    }
    assert deal_sets.stale_references(dataclasses.replace(ds, reference_weights={}), ds.pool) == {}


@pytest.mark.parametrize(("game", "players"), SETS)
def test_every_recorded_reference_plays_the_weights_it_was_calibrated_with(
    game: str, players: int
) -> None:
    """Re-shipping a reference's weights without calibrating it again (or taking it out of
    the pool, as pretrained:party8 and pretrained:scandal4 were) fails here."""
    ds = deal_sets.load_deal_set(game, players)
    assert set(ds.reference_weights) <= set(ds.pool)
    assert deal_sets.stale_references(ds, ds.pool) == {}


def test_a_malformed_weights_record_is_refused_naming_the_field() -> None:
    with pytest.raises(ConfigError, match="'reference_weights' must map specs"):
        deal_sets._reference_weights({"reference_weights": ["x"]}, "scum_4p")
    with pytest.raises(ConfigError, match="'reference_weights' entry 'pretrained:scum4' must be"):
        deal_sets._reference_weights({"reference_weights": {"pretrained:scum4": "abc"}}, "scum_4p")
    assert deal_sets._reference_weights({}, "scum_4p") == {}


@pytest.mark.parametrize(("game", "players"), SETS)
def test_every_deal_set_says_how_it_was_calibrated(game: str, players: int) -> None:
    """Stored ratings cover the whole pool and name their deals per pair; none: 0 deals."""
    ds = deal_sets.load_deal_set(game, players)
    for quick, table, deals, how in (
        (False, ds.reference_ratings, ds.calibration_deals, ds.calibration),
        (True, ds.quick_reference_ratings, ds.quick_calibration_deals, ds.quick_calibration),
    ):
        if table:
            assert sorted(table) == sorted(deal_sets.reference_pool(ds, quick=quick))
            assert table["random"] == 0.0 and f"({deals} deals per pair" in how
            assert deals >= (deal_sets.QUICK_DEALS if quick else deals_for_half_width(0.05))
        else:
            assert deals == 0 and how == ""


def test_quick_cards_say_quick(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import argparse

    _small(monkeypatch)
    monkeypatch.setattr(evaluation, "QUICK_DEALS", 2)
    sub = argparse.ArgumentParser().add_subparsers()
    _, run = evaluation_cli.add_command(sub)
    ns = argparse.Namespace(spec="greedy", game="scum", players=4, quick=True, ismcts=None,
                            workers=1, out=None, resamples=50, no_progress=True, calibrate=False,
                            checkpoint=None)  # fmt: skip
    assert run(ns, []) == 0
    out, err = capsys.readouterr()
    assert "QUICK RUN: not citable" in out and "QUICK" in err
    assert "2 deals, ISMCTS at `ismcts-reference:budget=10`" in out
    report = evaluation.run_benchmark("greedy", "scandal", 2, quick=True, resamples=50)
    assert report["protocol"] == "cardsuite-benchmark/2" and not report["citable"]
    assert "2 deals, ISMCTS at `ismcts-batched:budget=10`" in evaluation_cli.to_markdown(
        report, "cmd"
    )


def test_out_is_written_once_and_never_overwritten(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import argparse

    _small(monkeypatch)
    sub = argparse.ArgumentParser().add_subparsers()
    _, run = evaluation_cli.add_command(sub)
    out = tmp_path / "bench"
    ns = argparse.Namespace(spec="greedy", game="scum", players=4, quick=True, ismcts=None,
                            workers=1, out=str(out), resamples=50, no_progress=True, calibrate=False,
                            checkpoint=None)  # fmt: skip
    monkeypatch.setattr(evaluation, "QUICK_DEALS", 2)
    assert run(ns, []) == 0
    assert sorted(p.name for p in out.iterdir()) == ["benchmark.json", "benchmark.md"]
    assert json.loads((out / "benchmark.json").read_text())["quick"] is True
    with pytest.raises(ConfigError, match="already holds"):
        run(ns, [])
    with pytest.raises(ConfigError, match="fixed by its deal set"):
        run(ns, ["--carousel", "true"])


def test_calibrate_rates_the_pool_on_the_deal_set(monkeypatch: pytest.MonkeyPatch) -> None:
    _small(monkeypatch)
    monkeypatch.setattr(evaluation, "QUICK_DEALS", 3)
    result = evaluation.calibrate("scum", 4, quick=True, resamples=0)
    ratings = result["quick_reference_ratings"]
    assert ratings["random"] == 0.0 and ratings["heuristic"] > 0
    assert result["leaderboard"]["deals_per_pair"] == 3
    assert result["quick_calibration_deals"] == 3
    assert result["reference_weights"] == {}  # rule-based references play no weights
    assert np.isfinite(list(ratings.values())).all()


def test_calibration_resumes_from_its_checkpoint(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A calibration spread over sittings: the finished pairs are read back, not replayed."""
    import argparse

    import cardsuite.agents.arena.round_robin as arena

    _small(monkeypatch)
    monkeypatch.setattr(evaluation, "QUICK_DEALS", 2)
    sub = argparse.ArgumentParser().add_subparsers()
    _, run = evaluation_cli.add_command(sub)
    ckpt = tmp_path / "calib.jsonl"

    def ns(out: str) -> argparse.Namespace:
        return argparse.Namespace(spec=None, game="scum", players=4, quick=True, ismcts=None,
                                  workers=1, out=str(tmp_path / out), resamples=20,
                                  no_progress=True, calibrate=True, checkpoint=str(ckpt))  # fmt: skip

    assert run(ns("a"), []) == 0
    assert len(ckpt.read_text().splitlines()) == 1  # one pair: random against heuristic
    first = json.loads((tmp_path / "a" / "calibration.json").read_text())

    def no_games(*args: object, **kwargs: object) -> None:
        raise AssertionError("a pair in the checkpoint was played again")

    monkeypatch.setattr(arena, "run_tournament", no_games)
    assert run(ns("b"), []) == 0
    again = json.loads((tmp_path / "b" / "calibration.json").read_text())
    assert again["quick_reference_ratings"] == first["quick_reference_ratings"]
    bench = ns("c")
    bench.calibrate, bench.spec = False, "greedy"
    with pytest.raises(ConfigError, match="--checkpoint is for --calibrate"):
        run(bench, [])


def test_an_exec_agent_takes_the_benchmark(monkeypatch: pytest.MonkeyPatch) -> None:
    import shlex
    import sys

    _small(monkeypatch)
    bot = Path(__file__).resolve().parents[2] / "examples" / "bots" / "random_bot.py"
    spec = f"exec:{shlex.quote(sys.executable)} {shlex.quote(str(bot))}"
    report = evaluation.run_benchmark(spec, "scum", 4, deals=3, resamples=50)
    assert report["agent"] == spec and all(r["illegal_games"] == 0 for r in report["versus"])


def _versus(ds: deal_sets.DealSet, won: float) -> list[evaluation.VersusReference]:
    n = 40
    return [
        evaluation.VersusReference(ref, "0" * 64, np.full(n, won), np.zeros(n), np.zeros(n), 0)
        for ref in deal_sets.reference_pool(ds)
    ]


def test_a_rating_the_deals_cannot_measure_says_so() -> None:
    """An agent that won (or lost) every deal against every reference gets the prior's
    rating: the report marks it not measured and says which side of the pool it is on."""
    ds = deal_sets.load_deal_set("scum", 4)
    top = evaluation.benchmark_rating(_versus(ds, 1.0), ds, quick=False, resamples=0, seed=0)
    assert top["measured"] is False and "won every deal" in top["basis"]
    assert "above every reference" in top["basis"]
    assert top["elo"] > max(ds.reference_ratings.values())
    bottom = evaluation.benchmark_rating(_versus(ds, 0.0), ds, quick=False, resamples=0, seed=0)
    assert bottom["measured"] is False and "below every reference" in bottom["basis"]
    level = evaluation.benchmark_rating(_versus(ds, 0.5), ds, quick=False, resamples=0, seed=0)
    assert level["measured"] is True and "not measured" not in level["basis"]


def test_a_second_benchmark_into_the_same_folder_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """One writer per --out folder (issue 59): a benchmark running into a folder holds its
    lock; a second one into it gets RunLockedError naming the holder, and nothing is
    overwritten. The lock is gone once the first has written its files."""
    import argparse
    import os

    from cardsuite.errors import RunLockedError
    from cardsuite.runlock import RunLock

    _small(monkeypatch)
    sub = argparse.ArgumentParser().add_subparsers()
    _, run = evaluation_cli.add_command(sub)
    out = tmp_path / "out"
    ns = argparse.Namespace(spec="greedy", game="scum", players=4, quick=True, ismcts=None,
                            workers=1, out=str(out), resamples=20, no_progress=True,
                            calibrate=False, checkpoint=None)  # fmt: skip
    real = evaluation_cli.run_benchmark

    def another_process_holds_it(*args: object, **kwargs: object) -> object:
        lock = (out / ".lock").read_text()
        (out / ".lock").write_text(lock.replace(f'"pid": {os.getpid()}', '"pid": 1'))
        with pytest.raises(RunLockedError, match="in use by cardsuite benchmark"):
            RunLock(out, "cardsuite benchmark").acquire()
        (out / ".lock").write_text(lock)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(evaluation_cli, "run_benchmark", another_process_holds_it)
    assert run(ns, []) == 0
    assert (out / "benchmark.json").is_file() and not (out / ".lock").exists()
