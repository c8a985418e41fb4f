"""Human play driven by scripted input: the view, the move prompt, malformed entries, EOF."""

from __future__ import annotations

import importlib.util
import io
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from cardsuite.agents.base import table_info
from cardsuite.agents.play.terminal import HumanAgent, HumanQuit, play_games
from cardsuite.agents.play.views import table_view
from cardsuite.cli import main
from cardsuite.errors import ConfigError
from scum_env import scum_v0


def scripted(entries: list[str], then: str | None = "1") -> Callable[[str], str]:
    """An input function answering ``entries`` in turn, then ``then`` forever (None: EOF)."""
    it: Iterator[str] = iter(entries)

    def answer(prompt: str) -> str:
        try:
            return next(it)
        except StopIteration:
            if then is None:
                raise EOFError from None
            return then

    return answer


def preset_env() -> scum_v0.ScumEnv:
    env = scum_v0.env()
    hands = [["2", "5", "P"], ["W", "3"], ["4", "6"], ["7", "8"]]
    env.reset(seed=0, options={"roles": [0, 1, 2, 3], "hands": hands})
    return env


def test_the_view_shows_only_what_the_player_knows() -> None:
    env = preset_env()
    obs = env.observe("player_0")["observation"]
    view = table_view(table_info(env, "scum", "player_0"), obs)
    assert view.splitlines() == [
        "",
        "=== player_0, President, to act ===",
        "Your hand (3 cards): 2 5 P",
        "You lead: play any set of equal cards.",
        "Players in turn order from you:",
        "  you  President         3 cards  score   0",
        "  +1   Vice President    2 cards  score   0",
        "  +2   Next to Scum      2 cards  score   0",
        "  +3   Scum              2 cards  score   0",
    ]
    env.step(env.unwrapped.rules.play_action(1, 4))  # player_0 plays a 5
    view = table_view(table_info(env, "scum", "player_1"), env.observe("player_1")["observation"])
    assert "Your hand (2 cards): 3 W" in view
    assert "Top play: 5 by Scum" not in view and "Top play: 5 by +" not in view
    assert "Top play: 5 by President" in view
    assert "4" not in view.replace("+", "")  # nobody else's cards (player_2 holds 4 and 6)


def test_malformed_entries_are_explained_and_asked_again() -> None:
    shown: list[str] = []
    human = HumanAgent(scripted(["abc", "", "0", "7", " 2 "]), shown.append)
    env = preset_env()
    human.reset(table_info(env, "scum", "player_0"))
    obs = env.observe("player_0")
    action = human.act(obs["observation"], obs["action_mask"], {"agent": "player_0"})
    assert env.unwrapped.describe_action(action) == "play 5"
    assert shown[-4:] == [
        "'abc' is not a move number; type a number from 1 to 3.",
        "Please type the number of a move, 1 to 3.",
        "There is no move 0; type a number from 1 to 3.",
        "There is no move 7; type a number from 1 to 3.",
    ]
    assert shown[-8:-4] == ["Your moves:", "   1. play 2", "   2. play 5", "   3. play P"]


def test_quit_and_end_of_input_leave_cleanly() -> None:
    human = HumanAgent(scripted(["q"]), lambda _: None)
    env = preset_env()
    human.reset(table_info(env, "scum", "player_0"))
    obs = env.observe("player_0")
    with pytest.raises(HumanQuit, match="you left the game"):
        human.act(obs["observation"], obs["action_mask"], {})
    shown: list[str] = []
    done = play_games(
        "scum", ["random"], seed=1, input_fn=scripted([], then=None), print_fn=shown.append
    )
    assert done == 0
    assert shown[-1] == "\ninput ended; leaving the game after 0 complete game(s)."


def test_a_scripted_person_plays_two_series() -> None:
    shown: list[str] = []
    done = play_games(
        "scum", ["random", "greedy" if _has("cardsuite.agents.baselines.greedy") else "random"], seat=2, seed=4,
        games=2, input_fn=scripted(["x"]), print_fn=shown.append,
    )  # fmt: skip
    assert done == 2
    text = "\n".join(shown)
    assert shown[0].startswith("scum: you are player_2; player_0 = random, player_1 = ")
    assert text.count("End of the game:") == 2
    assert "'x' is not a move number" in text
    assert "> you: " in text
    ends = [i for i, line in enumerate(shown) if line == "\nEnd of the game:"]
    last = shown[ends[-1] + 1 : ends[-1] + 5]
    assert sum("(you)" in line for line in last) == 1
    points = sorted(int(line.split("points ")[1].split(",")[0]) for line in last)
    assert points == [1, 2, 3, 4]  # J8 points of the second series


def test_bad_play_arguments_are_named() -> None:
    with pytest.raises(ConfigError, match=r"--seat 4 is out of range; seats are 0\.\.3"):
        play_games("scum", ["random"], seat=4)
    with pytest.raises(ConfigError, match="4 opponents given but only 3 other seats"):
        play_games("scum", ["random"] * 4)
    with pytest.raises(ConfigError, match="unknown agent 'nobody'"):
        play_games("scum", ["nobody"], input_fn=scripted([], then=None))


def test_cli_play_reads_stdin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("hello\n1\n"))
    assert main(["play", "scum", "--vs", "random", "--seed", "2", "--num_players", "5"]) == 0
    out = capsys.readouterr().out
    assert "you are player_0" in out and "player_4 = random" in out
    assert "'hello' is not a move number" in out
    assert out.rstrip().endswith("input ended; leaving the game after 0 complete game(s).")
    assert main(["play", "scum", "--vs", "random", "--seat", "9"]) == 2
    assert "--seat 9 is out of range" in capsys.readouterr().err


@pytest.mark.parametrize("game", ["scum_party", "scandal"])
def test_other_games_can_be_played(game: str) -> None:
    module = {"scum_party": "scum_env.scum_party_v0", "scandal": "scandal_env.scandal_v0"}[game]
    if not _has(module):
        pytest.skip(f"{module} is not written yet")
    shown: list[str] = []
    assert (
        play_games(game, ["random"], seed=0, input_fn=scripted(["?"]), print_fn=shown.append) == 1
    )
    text = "\n".join(shown)
    assert "'?' is not a move number" in text and "End of the game:" in text


def _has(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def test_scandal_view_shows_own_hand_and_public_cards_only() -> None:
    from scandal_env import scandal_v0

    env = scandal_v0.env(num_players=2)
    env.reset(seed=3)
    agent = env.agent_selection
    obs = env.observe(agent)["observation"]
    view = table_view(table_info(env, "scandal", agent), obs)
    assert view.splitlines()[1] == f"=== {agent} to act (Scandal), draw ==="
    assert "Your hand (10 cards):" in view
    spec = env.unwrapped.obs_spec
    from scandal_env.engine import make_rules

    names = make_rules(env.unwrapped.config).deck.names
    mine = [names[c] for c in spec.view(obs, "hand").nonzero()[0]]
    other = 1 - int(agent[-1])
    theirs = [names[c] for c in env.unwrapped.game.hands[other].nonzero()[0]]
    top = [names[c] for c in spec.view(obs, "discard_top").nonzero()[0]]
    assert all(f"  {name} (" in view for name in mine)
    assert not any(f"  {name} (" in view for name in theirs)  # the other hand stays hidden
    assert f"Discard pile, top first (1): {top[0]}" in view
    assert "Stock: 59 cards" in view  # 80 cards - 2 x 10 dealt - 1 discard (S2)


def test_party_view_shows_table_and_tournament() -> None:
    from scum_env import scum_party_v0

    env = scum_party_v0.env(num_players=16)
    env.reset(seed=2)
    agent = env.agent_selection
    view = table_view(table_info(env, "scum_party", agent), env.observe(agent)["observation"])
    assert f"=== {agent}, King at table 1 of 2 (8 players), to act ===" in view
    assert "Tournament: your total 0 after 0 of 5 hands; 0 players ahead of you" in view
    assert "You lead: play any set of equal cards." in view
    assert view.count(" cards  total   0") == 8  # the eight players of this table only


def last_move(prompt: str) -> str:
    """A person who always plays the last legal move (the prompt says how many there are)."""
    return prompt.split("-")[1].split(",")[0]


def test_the_terminal_log_hides_other_players_give_backs(tmp_path: Path) -> None:
    """Issue 25 item 4: seed 0, seat 0, episode=game target_score=12, the last legal move."""
    from cardsuite.agents.arena.records import make_env, read_records
    from cardsuite.agents.play.views import step

    shown: list[str] = []
    path = tmp_path / "games.jsonl"
    options = {"episode": "game", "target_score": 12}
    done = play_games(
        "scum", ["heuristic"], seed=0, options=options, input_fn=last_move,
        print_fn=shown.append, record=path,
    )  # fmt: skip
    assert done == 1
    printed = [line.split(": ", 1)[1] for line in shown if line.startswith("> ")]
    (record,) = read_records(path)
    env = make_env(record)
    expected = [
        step(env, agent, action, n).line("player_0")
        for n, (agent, action, _text) in enumerate(record["actions"], start=1)
    ]
    assert printed == expected
    hidden = [line for line in printed if line.startswith("give back a card (to player_")]
    assert hidden and not any("(to player_0)" in line for line in hidden)


def test_the_seed_is_random_unless_set_and_printed() -> None:
    first: list[str] = []
    play_games("scum", ["random"], input_fn=scripted([], then=None), print_fn=first.append)
    seed_line = first[1]
    assert seed_line.startswith("seed ") and "--seed" in seed_line
    seed = int(seed_line.split()[1])
    again: list[str] = []
    play_games(
        "scum", ["random"], seed=seed, input_fn=scripted([], then=None), print_fn=again.append
    )
    assert again == first  # the same deal, shown the same way
    other: list[str] = []
    for _ in range(3):
        other.clear()
        play_games("scum", ["random"], input_fn=scripted([], then=None), print_fn=other.append)
        if other[1] != seed_line:
            break
    assert other[1] != seed_line  # three clashes in 2**31 seeds: never


def test_play_record_appends_games_that_replay_to_the_same_end(tmp_path: Path) -> None:
    from cardsuite.agents.arena.records import read_records, replay_record, same_state
    from cardsuite.agents.play.replay import show_record

    path = tmp_path / "mine.jsonl"
    shown: list[str] = []
    done = play_games(
        "scum", ["heuristic", "random"], seat=1, seed=11, games=2, input_fn=scripted([]),
        print_fn=shown.append, record=path,
    )  # fmt: skip
    assert done == 2
    records = read_records(path)
    assert [r["seed"] for r in records] == [11, 12]
    assert records[1]["reset_options"] is not None  # game 2 continues game 1 (series 2, trades)
    for record in records:
        assert record["seats"]["player_1"] == "human"
        assert record["seats"]["player_0"] == "heuristic"
        env = replay_record(record)
        assert same_state(env, record["final_state"], None)
    replayed: list[str] = []
    show_record(records[1], replayed.append)
    assert "player_1 = human" in replayed[1]
    assert "(recorded as game 1 of" in "\n".join(shown)
    more: list[str] = []
    play_games("scum", ["random"], seed=2, input_fn=scripted([]), print_fn=more.append, record=path)
    assert len(read_records(path)) == 3  # appended, nothing rewritten
    notes = tmp_path / "notes.txt"
    notes.write_text("not a record\n")
    with pytest.raises(ConfigError, match="not a record file"):
        play_games("scum", ["random"], seed=2, input_fn=scripted([]), record=notes)
    assert notes.read_text() == "not a record\n"
