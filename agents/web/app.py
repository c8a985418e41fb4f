"""The Starlette app of ``cardsuite serve``: the page, its static files and a JSON API.

API (every answer JSON; an error is ``{"error": message}`` with status 400,
404 or 413, never a traceback):

* ``GET /api/info``: games, agent kinds, default seats, recorded games on offer;
* ``POST /api/play`` ``{game, agents, seat, seed, options}``: a new game with
  the person in ``seat``; the answer is that seat's view;
* ``POST /api/watch`` ``{game, agents, seed, options}``: agents play each other;
* ``POST /api/replay`` ``{index}`` (a game of the ``--record`` file) or
  ``{text, index}`` (JSON lines the page uploaded): a recorded game;
* ``GET /api/session/{id}``: the view; ``POST /api/session/{id}/move``
  ``{action}``: the person's move; ``POST .../advance`` ``{moves}``: watch on;
  ``POST .../goto`` ``{step}``: replay to a step; ``DELETE /api/session/{id}``:
  the page was closed.

Options come as ``{"key": value}`` and are checked like ``--key value`` on
the command line; options that name files (a Scandal ``deck``) are refused.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from cardsuite.agents.record_schema import check_record, loads_strict
from cardsuite.agents.records import read_records
from cardsuite.agents.registry import available_agents, parse_spec
from cardsuite.agents.web.sessions import (
    PlaySession,
    ReplaySession,
    Session,
    SessionGone,
    Store,
    WatchSession,
)
from cardsuite.errors import CardsuiteError, ConfigError
from cardsuite.games import games, get_game, parse_options

STATIC = Path(__file__).resolve().parent / "static"
MAX_BODY = 16 << 20  # an uploaded record file, at most
FILE_OPTIONS = ("deck",)


def _error(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


class NotJSON(ConfigError):
    """A request body sent without ``Content-Type: application/json``."""


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if raw.strip() and kind != "application/json":
        # A page of another site can send "simple" text/plain requests to
        # localhost without the browser asking first; JSON ones it cannot.
        raise NotJSON(f"send the request as JSON (Content-Type: application/json), not {kind!r}")
    if len(raw) > MAX_BODY:
        raise ConfigError(f"request too large ({len(raw)} bytes; at most {MAX_BODY})")
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as err:
        raise ConfigError(f"the request is not JSON: {err}") from None
    if not isinstance(data, dict):
        raise ConfigError("the request must be a JSON object")
    return data


def _options(game: str, raw: Any) -> dict[str, Any]:
    """Game options from ``{"key": value}``, checked as ``--key value`` would be."""
    if raw in (None, ""):
        return {}
    if not isinstance(raw, dict):
        raise ConfigError('options must be an object like {"num_players": 5}')
    tokens: list[str] = []
    for key, value in raw.items():
        if str(key).replace("-", "_") in FILE_OPTIONS:
            raise ConfigError(
                f"option {key!r} names a file; the page cannot choose files on the server"
            )
        tokens += [f"--{key}", json.dumps(value) if not isinstance(value, str) else value]
    options = parse_options(get_game(game), tokens)
    get_game(game).make(**options)  # ConfigError naming a bad value, before any session
    return options


def _int(data: dict[str, Any], key: str, default: int) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{key} must be an integer, got {value!r}")
    return value


def _agents(data: dict[str, Any]) -> list[str]:
    agents = data.get("agents", ["random"])
    if isinstance(agents, str):
        agents = [agents]
    if not isinstance(agents, list) or not all(isinstance(a, str) for a in agents):
        raise ConfigError('agents must be a list of agent specs, e.g. ["heuristic"]')
    return agents


def create_app(
    record: str | Path | None = None,
    agents: list[str] | None = None,
    allowed_hosts: list[str] | None = None,
) -> Starlette:
    """The app; ``record`` is a ``--record`` file whose games the page may replay.

    ``agents`` are extra agent specs the page may choose (checkpoints,
    ``module:Class``): the person typed them when starting the server. The
    record file is the one the person named too; a request never names a file.
    ``allowed_hosts`` (the CLI passes the loopback names when it listens on
    one) refuses requests for any other ``Host``, against DNS rebinding.
    """
    store = Store()
    allowed = frozenset(a.strip() for a in agents or [])
    for text in allowed:
        parse_spec(text)
    recorded: list[dict[str, Any]] = read_records(record) if record is not None else []
    source = str(record) if record is not None else None

    def info(request: Request) -> JSONResponse:
        table = games()
        return JSONResponse(
            {
                "games": {
                    name: {"players_key": g.players_key, "default_players": _default_players(g)}
                    for name, g in sorted(table.items())
                },
                "agents": [line.split()[0] for line in available_agents()] + sorted(allowed),
                "agent_help": available_agents(),
                "record": source,
                "recorded": [
                    {"index": i, "game": r["game"], "seats": r["seats"], "moves": len(r["actions"])}
                    for i, r in enumerate(recorded)
                ],
            }
        )

    async def play(request: Request) -> JSONResponse:
        data = await _body(request)
        game = str(data.get("game", ""))
        session = await run_in_threadpool(
            PlaySession,
            get_game(game).name,
            agents=_agents(data),
            seat=_int(data, "seat", 0),
            seed=_seed(data),
            options=_options(game, data.get("options")),
            allowed=allowed,
        )
        store.add(session)
        return JSONResponse(await run_in_threadpool(session.view))

    async def watch(request: Request) -> JSONResponse:
        data = await _body(request)
        game = str(data.get("game", ""))
        session = await run_in_threadpool(
            WatchSession,
            get_game(game).name,
            agents=_agents(data),
            seed=_seed(data),
            options=_options(game, data.get("options")),
            allowed=allowed,
        )
        store.add(session)
        return JSONResponse(await run_in_threadpool(session.view))

    async def replay(request: Request) -> JSONResponse:
        data = await _body(request)
        index = _int(data, "index", 0)
        if "text" in data:
            text = data["text"]
            if not isinstance(text, str):
                raise ConfigError("text must be the record file's content")
            records = [
                check_record(loads_strict(line, f"uploaded line {n}"), f"uploaded line {n}")
                for n, line in enumerate(text.splitlines(), start=1)
                if line.strip()
            ]
            where = "the uploaded file"
        else:
            records, where = recorded, source or "no --record file"
        if not records:
            raise ConfigError(f"{where} holds no games (start with cardsuite serve --record FILE)")
        if not 0 <= index < len(records):
            raise ConfigError(f"game {index} is out of range; {where} holds 0..{len(records) - 1}")
        session = await run_in_threadpool(ReplaySession, records[index], f"{where}, game {index}")
        store.add(session)
        return JSONResponse(await run_in_threadpool(session.view))

    def _session(request: Request) -> Session:
        return store.get(str(request.path_params["sid"]))

    def view(request: Request) -> JSONResponse:
        session = _session(request)
        with session.lock:
            return JSONResponse(session.view())

    async def move(request: Request) -> JSONResponse:
        session = _session(request)
        data = await _body(request)
        if not isinstance(session, PlaySession):
            raise ConfigError("moves are made in a game you play")

        def work() -> dict[str, Any]:
            with session.lock:
                session.move(data.get("action"))
                return session.view()

        return JSONResponse(await run_in_threadpool(work))

    async def advance(request: Request) -> JSONResponse:
        session = _session(request)
        data = await _body(request)
        if not isinstance(session, WatchSession):
            raise ConfigError("only a watched game advances")

        def work() -> dict[str, Any]:
            with session.lock:
                session.advance(_int(data, "moves", 1))
                return session.view()

        return JSONResponse(await run_in_threadpool(work))

    async def goto(request: Request) -> JSONResponse:
        session = _session(request)
        data = await _body(request)
        if not isinstance(session, ReplaySession):
            raise ConfigError("only a replay goes to a step")

        def work() -> dict[str, Any]:
            with session.lock:
                session.goto(_int(data, "step", 0))
                return session.view()

        return JSONResponse(await run_in_threadpool(work))

    def close(request: Request) -> JSONResponse:
        return JSONResponse({"closed": store.close(str(request.path_params["sid"]))})

    def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def on_cardsuite_error(request: Request, exc: Exception) -> Response:
        status = 404 if isinstance(exc, SessionGone) else 415 if isinstance(exc, NotJSON) else 400
        return _error(str(exc), status)

    async def on_http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        detail = "no such page" if exc.status_code == 404 else str(exc.detail)
        return _error(f"{detail} ({request.method} {request.url.path})", exc.status_code)

    async def on_other_error(request: Request, exc: Exception) -> Response:
        return _error(f"the server failed on this request: {type(exc).__name__}: {exc}", 500)

    routes = [
        Route("/", index),
        Route("/api/info", info),
        Route("/api/play", play, methods=["POST"]),
        Route("/api/watch", watch, methods=["POST"]),
        Route("/api/replay", replay, methods=["POST"]),
        Route("/api/session/{sid}", view, methods=["GET"]),
        Route("/api/session/{sid}", close, methods=["DELETE"]),
        Route("/api/session/{sid}/close", close, methods=["POST"]),  # navigator.sendBeacon
        Route("/api/session/{sid}/move", move, methods=["POST"]),
        Route("/api/session/{sid}/advance", advance, methods=["POST"]),
        Route("/api/session/{sid}/goto", goto, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    middleware = []
    if allowed_hosts:
        from starlette.middleware import Middleware
        from starlette.middleware.trustedhost import TrustedHostMiddleware

        middleware.append(Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts))
    app = Starlette(
        routes=routes,
        middleware=middleware,
        exception_handlers={
            CardsuiteError: on_cardsuite_error,
            HTTPException: on_http_error,
            Exception: on_other_error,
        },
    )
    app.state.store = store
    return app


def _seed(data: dict[str, Any]) -> int:
    seed = _int(data, "seed", 0)
    if seed < 0:
        raise ConfigError(f"seed must be non-negative, got {seed}")
    return seed


def _default_players(game: Any) -> int:
    return int(getattr(game.config_class()(), game.players_key))
