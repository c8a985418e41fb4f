"""The web table in a real browser: Playwright driving Debian's chromium (no browser download).

Skipped, with the reason, where the ``playwright`` package or ``/usr/bin/chromium``
is missing (``.ci/setup`` installs both). Screenshots are saved as test
artefacts under ``$CARDSUITE_ARTEFACTS`` (default ``tmp/artefacts/web`` in
the repository).
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("CARDSUITE_CHROMIUM", "/usr/bin/chromium")
playwright_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install playwright)"
)
if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
    pytest.skip(f"no chromium at {CHROMIUM} (apt-get install -y chromium)", allow_module_level=True)
pytest.importorskip(
    "starlette", reason="the web extra is not installed (pip install cardsuite[web])"
)
uvicorn = pytest.importorskip("uvicorn", reason="the web extra is not installed")

from cardsuite.agents.play.web.app import create_app  # noqa: E402

pytestmark = pytest.mark.browser
ARTEFACTS = Path(
    os.environ.get(
        "CARDSUITE_ARTEFACTS", Path(__file__).resolve().parents[2] / "tmp" / "artefacts" / "web"
    )
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server(record_file: Path) -> Iterator[tuple[str, Any]]:
    """The app served by uvicorn in a thread on a free localhost port."""
    app = create_app(record_file)
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        if time.monotonic() > deadline:
            pytest.fail("the server did not start within 20 s")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}", app
    srv.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def page(browser: Any, server: tuple[str, Any]) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1300, "height": 950})
    pg = context.new_page()
    pg.set_default_timeout(20_000)
    pg.goto(server[0] + "/")
    pg.wait_for_selector("#game option", state="attached")
    yield pg
    context.close()


def shot(page: Any, name: str) -> None:
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTEFACTS / f"{name}.png"), full_page=True)


def start(page: Any, mode: str, game: str, players: int, agents: str, options: str = "") -> None:
    page.check(f"input[name=mode][value={mode}]")
    page.select_option("#game", game)
    page.fill("#players", str(players))
    page.fill("#agents", agents)
    page.fill("#options", options)
    page.fill(
        "#seed", "0"
    )  # the page deals a random seed by default; these scripted games need one deal
    page.click("#start")
    page.wait_for_selector("#game-area:not([hidden])")


def click_moves_to_the_end(page: Any, pick: str, limit: int) -> int:
    """Click a legal move button (``pick``: "first" or "last") until the game is over."""
    clicks = 0
    while "Game over" not in page.inner_text("#controls h3"):
        assert clicks < limit, f"the game did not end after {limit} moves"
        buttons = page.locator("[data-testid=moves] button")
        count = buttons.count()
        assert count > 0, "the person's turn offers no move"
        before = page.inner_text("#log")
        (buttons.first if pick == "first" else buttons.nth(count - 1)).click()
        page.wait_for_function(
            "before => document.getElementById('log').innerText !== before", arg=before
        )
        clicks += 1
    return clicks


def test_play_a_whole_scum_game(page: Any) -> None:
    start(page, "play", "scum", 4, "heuristic", "episode=game target_score=10")
    assert "player_0 (you)" in page.inner_text("#seats")
    assert "S = Scum" in page.inner_text("#legend")
    hidden = page.locator(".seat:not(.you) .card:not(.hidden)")
    assert hidden.count() == 0  # no card of another seat is drawn face up
    shot(page, "scum_start")
    clicks = click_moves_to_the_end(page, "last", 400)
    assert clicks > 5
    assert "Game over" in page.inner_text("#controls") and "reward" in page.inner_text("#result")
    assert re.search(r"player_\d \(heuristic\): pass", page.inner_text("#log"))
    shot(page, "scum_game_over")


def test_play_a_scandal_hand(page: Any) -> None:
    start(page, "play", "scandal", 2, "greedy")
    assert page.locator(".pile[data-kind=pile]").count() == 1
    click_moves_to_the_end(page, "last", 300)
    text = page.inner_text("#piles")
    assert "Meld" in text and "player_" in text  # melds name who laid each card
    shot(page, "scandal_hand_over")


def test_an_illegal_click_is_refused(page: Any) -> None:
    start(page, "play", "scum", 4, "random")
    before = page.inner_text("#seats")
    legal = page.eval_on_selector_all(
        "[data-testid=moves] button", "bs => bs.map(b => Number(b.dataset.action))"
    )
    illegal = next(a for a in range(1, 300) if a not in legal)
    page.evaluate("a => sendMove(a)", illegal)  # what a tampered page would send
    page.wait_for_selector("#error:not([hidden])")
    assert "not legal now" in page.inner_text("#error")
    assert page.inner_text("#seats") == before
    shot(page, "illegal_click_refused")


def test_replay_a_record_forward_and_back(page: Any) -> None:
    page.check("input[name=mode][value=replay]")
    page.select_option("#recorded", "1")
    page.click("#start")
    page.wait_for_selector("#forward")
    assert "move 0 of" in page.inner_text("#controls h3")
    for _ in range(4):
        page.click("#forward")
    page.wait_for_function("document.querySelector('#controls h3').innerText.includes('move 4 of')")
    at4 = page.inner_text("#seats")
    page.click("#last")
    page.wait_for_function(
        "document.querySelector('#controls h3').innerText.match(/move (\\d+) of \\1/)"
    )
    shot(page, "replay_end")
    page.click("#first")
    page.wait_for_function("document.querySelector('#controls h3').innerText.includes('move 0 of')")
    for _ in range(4):
        page.click("#forward")
    page.wait_for_function("document.querySelector('#controls h3').innerText.includes('move 4 of')")
    assert page.inner_text("#seats") == at4
    page.click("#back")
    page.wait_for_function("document.querySelector('#controls h3').innerText.includes('move 3 of')")
    assert page.locator("#log li").count() == 3


def test_watch_a_scum_party_ladder(page: Any) -> None:
    start(page, "watch", "scum_party", 50, "greedy")
    assert page.locator("#ladder tbody tr").count() == 50
    page.fill("#speed", "50")
    page.click("#run")
    page.wait_for_function("document.getElementById('log').children.length >= 10")
    page.click("#run")  # pause
    shot(page, "party_ladder")


def test_a_closed_tab_ends_its_game_on_the_server(browser: Any, server: tuple[str, Any]) -> None:
    url, app = server
    context = browser.new_context()
    pg = context.new_page()
    pg.goto(url + "/")
    pg.wait_for_selector("#game option", state="attached")
    start(pg, "play", "scum", 4, "random")
    held = len(app.state.store)
    pg.close(run_before_unload=True)
    deadline = time.monotonic() + 10
    while len(app.state.store) >= held and time.monotonic() < deadline:
        time.sleep(0.05)
    context.close()
    assert len(app.state.store) == held - 1
