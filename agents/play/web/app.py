"""The Starlette app of ``cardsuite serve``: the page, its static files and a JSON API (``docs/web.md``)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from cardsuite.agents.arena.record_schema import check_record, iter_records, loads_strict
from cardsuite.agents.arena.records import RecordAppender, select_record
from cardsuite.agents.play.web import requests
from cardsuite.agents.play.web.limits import GameWorkers, Limits, MoveClock
from cardsuite.agents.play.web.requests import (
    HostCheck,
    agent_specs,
    error_response,
    game_field,
    int_field,
    parse_page_options,
    read_body,
    seed_field,
)
from cardsuite.agents.play.web.sessions import LiveGame, PlaySession, ReplaySession, WatchSession
from cardsuite.agents.play.web.store import Session, Store
from cardsuite.agents.registry import available_agents, parse_spec
from cardsuite.errors import CardsuiteError, ConfigError
from cardsuite.games import games
from cardsuite.moved import moved_getattr, moved_table

STATIC = Path(__file__).resolve().parent / "static"
MAX_OFFERED = 500  # recorded games listed by /api/info (the newest)
MAX_BODY = Limits.max_body  # 0.2's name of the default body limit (now `Limits.max_body`)

# The other names of 0.2's ``cardsuite.agents.web.app``, by their home now, with a warning (PEP 562).
__getattr__ = moved_getattr(
    __name__,
    moved_table(
        requests,
        "FIELDS FILE_OPTIONS MAX_OPTIONS MAX_OPTION_CHARS MAX_AGENTS MAX_SPEC_CHARS",
        "NotJSON WrongOrigin",
    ),
)


def create_app(
    record: str | Path | None = None,
    agents: list[str] | None = None,
    allowed_hosts: list[str] | None = None,
    *,
    record_to: str | Path | None = None,
    limits: Limits | None = None,
) -> Starlette:
    """The app: ``record`` offered for replay, the person's own ``agents`` (neither refused nor
    capped), the ``Host`` names answered (none: any), ``record_to`` appended to (and offered)."""
    limits = limits or Limits()
    store = Store(limits.max_sessions, limits.idle_seconds)
    workers = GameWorkers(limits.workers, limits.queue)
    allowed = frozenset(a.strip() for a in agents or [])
    for text in allowed:
        parse_spec(text)
    appender = RecordAppender(record_to) if record_to is not None else None
    offered = Path(record) if record is not None else appender.path if appender else None
    source = str(offered) if offered is not None else None
    # Summaries only: a record file may grow over a term; a game is read when replayed.
    recorded: list[dict[str, Any]] = []
    if offered is not None and (record is not None or (appender and appender.count)):
        recorded = [_summary(i, r) for i, r in enumerate(iter_records(offered))]

    def keep(game: dict[str, Any]) -> None:
        assert appender is not None
        index = appender.append(game)
        if source == str(appender.path):
            recorded.append(_summary(index, game))

    recorder = keep if appender is not None else None

    async def work(fn: Callable[[], Any]) -> Any:
        return await workers.run(fn, limits.request_seconds)

    def info(request: Request) -> JSONResponse:
        return JSONResponse(
            {
                "games": {
                    name: {"players_key": g.players_key, "default_players": g.default_players}
                    for name, g in sorted(games().items())
                },
                "agents": [line.split()[0] for line in available_agents()] + sorted(allowed),
                "agent_help": available_agents(),
                "record": source,
                "recording": appender is not None,
                "recorded": recorded[-MAX_OFFERED:],
                "limits": {
                    "move_seconds": limits.move_seconds,
                    "caps": dict(limits.caps),
                    "max_body": limits.max_body,
                },
            }
        )

    def start(mode: str, kind: type[LiveGame]) -> Any:
        """A new game: the person in a seat (``play``), or agents alone (``watch``)."""

        async def handle(request: Request) -> JSONResponse:
            data = await read_body(request, mode, limits.max_body)
            game, specs = game_field(data), agent_specs(data)
            seat: dict[str, Any] = {"seat": int_field(data, "seat", 0)} if mode == "play" else {}
            seed = seed_field(data)

            def build() -> dict[str, Any]:
                options = parse_page_options(game, data.get("options"))
                clock = MoveClock(limits.move_seconds, workers.stopping)
                session = kind(game, agents=specs, seed=seed, options=options, allowed=allowed,
                               clock=clock, limits=limits, recorder=recorder, **seat)  # fmt: skip
                return store.add(session).view()

            return JSONResponse(await work(build))

        return handle

    async def replay(request: Request) -> JSONResponse:
        data = await read_body(request, "replay", limits.max_upload)
        index = int_field(data, "index", 0)
        text = data.get("text")
        if "text" in data and not isinstance(text, str):
            raise ConfigError("text must be the record file's content")

        def build() -> dict[str, Any]:
            if isinstance(text, str):
                records = [
                    check_record(loads_strict(line, f"uploaded line {n}"), f"uploaded line {n}")
                    for n, line in enumerate(text.splitlines(), start=1)
                    if line.strip()
                ]
                where = "the uploaded file"
            else:
                records, where = [], source or "no --record file"
            count = len(records) if isinstance(text, str) else len(recorded)
            if not count:
                raise ConfigError(
                    f"{where} holds no games (start with cardsuite serve --record FILE)"
                )
            if not 0 <= index < count:
                raise ConfigError(f"game {index} is out of range; {where} holds 0..{count - 1}")
            chosen = records[index] if records else select_record(str(offered), index)
            return store.add(ReplaySession(chosen, f"{where}, game {index}")).view()

        return JSONResponse(await work(build))

    def _session(request: Request) -> Session:
        return store.get(str(request.path_params["sid"]))

    async def on_session(session: Session, action: Callable[[], None]) -> JSONResponse:
        def run() -> dict[str, Any]:
            with session.held():
                action()
                return session.view()

        return JSONResponse(await work(run))

    async def view(request: Request) -> JSONResponse:
        return await on_session(_session(request), lambda: None)

    def step(endpoint: str, kind: type, refusal: str, act: Any) -> Any:
        """An endpoint that moves a session of ``kind`` on by ``act(session, data)``."""

        async def handle(request: Request) -> JSONResponse:
            session = _session(request)
            data = await read_body(request, endpoint, limits.max_body)
            if not isinstance(session, kind):
                raise ConfigError(refusal)
            return await on_session(session, act(session, data))

        return handle

    move = step("move", PlaySession, "moves are made in a game you play",
                lambda s, d: partial(s.move, d.get("action")))  # fmt: skip
    advance = step("advance", WatchSession, "only a watched game advances",
                   lambda s, d: partial(s.advance, int_field(d, "moves", 1)))  # fmt: skip
    goto = step("goto", ReplaySession, "only a replay goes to a step",
                lambda s, d: partial(s.goto, int_field(d, "step", 0)))  # fmt: skip

    def close(request: Request) -> JSONResponse:
        return JSONResponse({"closed": store.close(str(request.path_params["sid"]))})

    def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def on_cardsuite_error(request: Request, exc: Exception) -> Response:
        return error_response(str(exc)[:2000], getattr(exc, "http_status", 400))

    async def on_http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        detail = "no such page" if exc.status_code == 404 else str(exc.detail)
        return error_response(
            f"{detail} ({request.method} {request.url.path[:200]})", exc.status_code
        )

    async def on_other_error(request: Request, exc: Exception) -> Response:
        return error_response(
            f"the server failed on this request: {type(exc).__name__}: {exc}"[:2000], 500
        )

    routes = [
        Route("/", index),
        Route("/api/info", info),
        Route("/api/play", start("play", PlaySession), methods=["POST"]),
        Route("/api/watch", start("watch", WatchSession), methods=["POST"]),
        Route("/api/replay", replay, methods=["POST"]),
        Route("/api/session/{sid}", view, methods=["GET"]),
        Route("/api/session/{sid}", close, methods=["DELETE"]),
        Route("/api/session/{sid}/close", close, methods=["POST"]),  # navigator.sendBeacon
        Route("/api/session/{sid}/move", move, methods=["POST"]),
        Route("/api/session/{sid}/advance", advance, methods=["POST"]),
        Route("/api/session/{sid}/goto", goto, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    handlers: dict[Any, Callable[[Request, Exception], Awaitable[Response]]] = {
        CardsuiteError: on_cardsuite_error,
        HTTPException: on_http_error,
        Exception: on_other_error,
    }

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        workers.stop()  # every move under way stops at its next clock check

    app = Starlette(routes=routes, exception_handlers=handlers, lifespan=lifespan)
    app.state.store = store
    app.state.workers = workers
    if allowed_hosts:
        app.add_middleware(HostCheck, allowed_hosts=allowed_hosts)
    return app


def _summary(index: int, record: dict[str, Any]) -> dict[str, Any]:
    """What the page lists of a recorded game."""
    return {
        "index": index,
        "game": record["game"],
        "seats": record["seats"],
        "moves": len(record["actions"]),
    }
