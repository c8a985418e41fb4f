"""The batched PPO trainer on every game: Scum Party and Scandal beside Scum.

Checks what the game-agnostic trainer must get right per game: the heuristic
it trains against is the real one (per-game memory for Scandal, S4), open
transitions are bootstrapped from each seat's own view, duplicate evaluation
is fair between the two agents, runs resume, and the agent plays in the arena.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from cardsuite.agents.learned.netspec import Snapshot
from cardsuite.batched.policies import RandomPolicy
from cardsuite.errors import CheckpointError, ConfigError
from cardsuite.train.core.evaluate import GreedyPolicy, duplicate_match
from cardsuite.train.core.games import train_game
from cardsuite.train.ppo.config import PPOConfig
from cardsuite.train.ppo.trainer import Trainer, train

GAMES = [("scum_party", 5), ("scum_party", 8), ("scandal", 2), ("scandal", 3)]


def _tiny(run_dir: Path, game: str, players: int, **changes: object) -> PPOConfig:
    base: dict[str, object] = dict(
        game=game, num_players=players, num_games=16, rollout_steps=8, total_steps=400,
        hidden=16, layers=1, eval_deals=4, eval_every=0, snapshot_every=200,
        checkpoint_every=0, tensorboard=False, quiet=True, threads=1, self_play=0.5,
        baselines="heuristic,random", eval_against="heuristic", run_dir=str(run_dir),
    )  # fmt: skip
    base.update(changes)
    return PPOConfig(**base)  # type: ignore[arg-type]


class Recorder:
    """A per-game batch policy that checks what the trainer hands it against the engine, then plays random."""

    per_game = True

    def __init__(self) -> None:
        self.trainer: Any = None
        self.rows = 0
        self.random = RandomPolicy(3)

    def __call__(self, obs: Any, mask: Any, games: Any = None, players: Any = None) -> Any:
        tr = self.trainer
        games, players = np.asarray(games), np.asarray(players)
        assert np.array_equal(players, np.asarray(tr.to_act)[games])  # the acting player ids
        assert np.array_equal(np.asarray(obs), np.asarray(tr.obs)[games])  # of those games
        assert not (tr.selfplay[games] | (players == tr.learner_seat[games])).any()
        self.rows += len(games)
        return self.random(obs, mask)


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_per_game_opponents_get_the_rows_games_and_players(
    tmp_path: Path, game: str, players: int
) -> None:
    """In the trainer's rollout, league rows reach a per-game policy with their game and player."""
    rec = Recorder()
    tr = Trainer(_tiny(tmp_path, game, players, self_play=0.25, snapshot_every=0),
                 opponents={"rec": rec})  # fmt: skip
    rec.trainer = tr
    tr.rollout()
    assert rec.rows > 0, "no league row was played"


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_open_transitions_bootstrap_from_each_seats_own_view(
    tmp_path: Path, game: str, players: int
) -> None:
    tr = Trainer(_tiny(tmp_path, game, players, self_play=1.0))
    tr.rollout()
    eng = tr.eng
    checked = 0
    for seat in range(players):
        ts, gs = tr.buf.open_transitions(seat)
        if ts.numel() == 0:
            continue
        view = torch.from_numpy(np.asarray(eng.observe_as(seat)))
        with torch.no_grad():
            want = tr.net.value(view[gs] * tr.scale)
        assert torch.equal(tr.buf.boot[ts, gs], want)
        checked += int(ts.numel())
    assert checked > 0


@pytest.mark.parametrize(("game", "players"), [("scum", 4), ("scum_party", 6), ("scandal", 2)])
def test_duplicate_evaluation_is_fair_between_the_two_agents(game: str, players: int) -> None:
    """Deterministic A vs B and B vs A are mirror images: beats add to 1, margins cancel."""
    tg = train_game(game)
    config = tg.config(players, {})
    eng = tg.make_engine(1, config)
    heuristic = tg.heuristic(eng)
    net = torch.nn.Linear(eng.obs_dim, eng.num_actions)
    torch.nn.init.normal_(net.weight, generator=torch.Generator().manual_seed(0))
    greedy = GreedyPolicy(Snapshot.of(torch.nn.Sequential(net), 0, "tanh"), np.ones(eng.obs_dim))
    ab = duplicate_match(greedy, heuristic, deals=24, seed=5, game=game, **config)
    ba = duplicate_match(heuristic, greedy, deals=24, seed=5, game=game, **config)
    assert ab.beats + ba.beats == pytest.approx(1.0)
    assert ab.margin == pytest.approx(-ba.margin, abs=1e-9)
    assert ab.mean_a == pytest.approx(ba.mean_b, abs=1e-9)
    same = duplicate_match(heuristic, heuristic, deals=24, seed=5, game=game, **config)
    assert same.beats == 0.5 and same.margin == 0.0


@pytest.mark.parametrize(("game", "players"), [("scum_party", 8), ("scandal", 2)])
def test_heuristic_beats_random_in_duplicate_deals(game: str, players: int) -> None:
    """The evaluation measures strength: the heuristic beats random on most deals."""
    tg = train_game(game)
    config = tg.config(players, {})
    eng = tg.make_engine(1, config)
    res = duplicate_match(tg.heuristic(eng), RandomPolicy(0), deals=60, seed=11, game=game,
                          **config)  # fmt: skip
    assert res.beats > 0.85 and res.margin > 0


@pytest.mark.parametrize(("game", "players"), [("scum_party", 8), ("scandal", 2)])
def test_runs_resume_and_the_agent_plays_in_the_arena(
    tmp_path: Path, game: str, players: int
) -> None:
    from cardsuite.agents.arena.tournament import run_tournament
    from cardsuite.agents.learned.safe_io import read_meta

    run = tmp_path / "run"
    short = {"num_hands": 1} if game == "scum_party" else {}
    with pytest.raises(ConfigError, match="bc_steps"):  # no episode ends: nothing to imitate
        Trainer(_tiny(tmp_path / "short", game, players, bc_steps=3, bc_games=4, options=short))
    train(_tiny(run, game, players, bc_steps=400, bc_games=8, bc_epochs=1, options=short))
    meta = read_meta(run / "agent")
    assert meta.game == game and meta.options["num_players"] == players
    more = train(_tiny(run, game, players, total_steps=800, resume=str(run), options=short))
    assert more["step"] >= 800
    with pytest.raises(CheckpointError, match="game"):
        other = "scandal" if game != "scandal" else "scum_party"
        Trainer(_tiny(run, other, 5 if other == "scum_party" else 2, resume=str(run)))
    res = run_tournament(game, [f"ppo:{run / 'agent'}", "heuristic"], games=2, duplicate=True,
                         seed=1, players=players)  # fmt: skip
    assert res.agents[0].illegal_actions == 0


def test_unknown_game_names_the_field() -> None:
    with pytest.raises(ConfigError, match="field 'game'"):
        PPOConfig(game="bridge")
    with pytest.raises(ConfigError, match="num_players"):
        train_game("scandal").config(2, {"num_players": 3})


def test_a_run_never_overwrites_another(tmp_path: Path) -> None:
    """Both batched trainers refuse a run folder that already holds files (unless resuming)."""
    from cardsuite.train.dmc.config import DMCConfig
    from cardsuite.train.dmc.trainer import DMCTrainer

    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "notes.txt").write_text("mine")
    with pytest.raises(ConfigError, match="already holds files"):
        Trainer(_tiny(taken, "scum", 4))
    with pytest.raises(ConfigError, match="already holds files"):
        DMCTrainer(DMCConfig(run_dir=str(taken)))
    assert (taken / "notes.txt").read_text() == "mine" and len(list(taken.iterdir())) == 1
