"""The Starlette app of ``cardsuite serve``: the page, its static files and a JSON API.

API (every answer JSON; an error is ``{"error": message}`` with a 4xx status,
or 503 when the server is busy or a move ran past its time limit; never a
traceback):

* ``GET /api/info``: games, agent kinds, default seats, recorded games on
  offer, the server's limits;
* ``POST /api/play`` ``{game, agents, seat, seed, options}``: a new game with
  the person in ``seat``; the answer is that seat's view;
* ``POST /api/watch`` ``{game, agents, seed, options}``: agents play each other;
* ``POST /api/replay`` ``{index}`` (a game of the server's record file) or
  ``{text, index}`` (JSON lines the page uploaded): a recorded game;
* ``GET /api/session/{id}``: the view; ``POST /api/session/{id}/move``
  ``{action}``: the person's move; ``POST .../advance`` ``{moves}``: watch on;
  ``POST .../goto`` ``{step}``: replay to a step; ``DELETE /api/session/{id}``:
  the page was closed.

A missing ``seed`` (or ``null``) deals a random game; every view reports
the ``seed`` it was dealt with. Options come as ``{"key": value}`` and are
parsed like ``--key value`` on the command line; the parsed keys that name
files (a Scandal ``deck``) are refused before anything is opened. A field
the endpoint does not know is refused, naming it.

Requests are checked before any work: a ``POST`` must be JSON
(``Content-Type: application/json``, 415 otherwise) and, when the browser
says where it comes from (``Origin``), come from this server's own page
(403); its body is read in pieces and refused (413) as soon as it passes the
limit; on a loopback address a ``Host`` other than this machine's is refused
(400), against DNS rebinding. Game work runs off the event loop
([cardsuite.agents.play.web.limits][]).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from cardsuite import safe_json
from cardsuite.agents.arena.record_schema import check_record, iter_records, loads_strict
from cardsuite.agents.arena.records import RecordAppender, select_record
from cardsuite.agents.play.web.limits import (
    GameWorkers,
    Limits,
    MoveClock,
    MoveTooLong,
    ServerBusy,
    ServerStopping,
    StillWorking,
    TooLarge,
)
from cardsuite.agents.play.web.sessions import (
    MAX_SEED,
    PlaySession,
    ReplaySession,
    Session,
    SessionBusy,
    SessionGone,
    SessionStopped,
    Store,
    WatchSession,
    random_seed,
)
from cardsuite.agents.registry import available_agents, parse_spec
from cardsuite.errors import CardsuiteError, ConfigError
from cardsuite.games import games, get_game, parse_options

STATIC = Path(__file__).resolve().parent / "static"
MAX_BODY = Limits().max_upload  # an uploaded record file, at most (the default)
FILE_OPTIONS = ("deck",)
MAX_OPTIONS = 32  # keys in a request's options
MAX_OPTION_CHARS = 200  # one option value, as text
MAX_AGENTS = 64  # specs in a request
MAX_SPEC_CHARS = 200
MAX_OFFERED = 500  # recorded games listed by /api/info (the newest)
_OPTION_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,63}")

#: The fields each endpoint reads; any other is refused, naming it.
FIELDS = {
    "play": ("game", "agents", "seat", "seed", "options"),
    "watch": ("game", "agents", "seed", "options"),
    "replay": ("index", "text"),
    "move": ("action",),
    "advance": ("moves",),
    "goto": ("step",),
}


def _error(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


class NotJSON(ConfigError):
    """A request body sent without ``Content-Type: application/json`` (HTTP 415)."""


class WrongOrigin(ConfigError):
    """A ``POST`` whose ``Origin`` is another site (HTTP 403)."""


def _check_origin(request: Request) -> None:
    """WrongOrigin when the browser says the request comes from another site's page."""
    origin = request.headers.get("origin")
    if origin is None:
        return  # not a browser, or a same-origin GET
    host = request.headers.get("host", "")
    parts = urlsplit(origin)
    if origin == "null" or parts.netloc.lower() != host.lower():
        raise WrongOrigin(
            f"a request from the page of another site ({origin[:80]!r}) is refused; "
            "open the table at this server's own address"
        )


async def _body(request: Request, endpoint: str, limit: int) -> dict[str, Any]:
    """The request's JSON object: checked origin, type, size (read in pieces) and fields."""
    _check_origin(request)
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        # A page of another site can send "simple" text/plain requests to
        # localhost without the browser asking first; JSON ones it cannot.
        raise NotJSON(f"send the request as JSON (Content-Type: application/json), not {kind!r}")
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit() or len(declared) > 18:
            raise ConfigError(f"Content-Length {declared[:20]!r} is not a byte count")
        if int(declared) > limit:
            raise TooLarge(f"request too large ({declared} bytes; at most {limit})")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise TooLarge(f"request too large (over {limit} bytes)")
        chunks.append(chunk)
    raw = b"".join(chunks)
    if not raw.strip():
        return {}
    try:
        data = safe_json.loads(raw, "body", error=ConfigError, max_chars=limit)
    except ConfigError as err:
        raise ConfigError(f"the request is not JSON this server reads ({err})") from None
    if not isinstance(data, dict):
        raise ConfigError("the request must be a JSON object")
    allowed = FIELDS[endpoint]
    for key in data:
        if key not in allowed:
            raise ConfigError(
                f"unknown field {key[:40]!r} in a {endpoint} request; fields: {', '.join(allowed)}"
            )
    return data


def _option_tokens(raw: Any) -> list[str]:
    """``{"key": value}`` as ``--key value`` tokens, sizes checked before anything is parsed."""
    if raw in (None, ""):
        return []
    if not isinstance(raw, dict):
        raise ConfigError('options must be an object like {"num_players": 5}')
    if len(raw) > MAX_OPTIONS:
        raise ConfigError(f"{len(raw)} options; at most {MAX_OPTIONS}")
    tokens: list[str] = []
    for key, value in raw.items():
        if not _OPTION_KEY.fullmatch(key):
            raise ConfigError(
                f"option {key[:40]!r} is not a rule option name (letters, digits, _ and -)"
            )
        text = value if isinstance(value, str) else json.dumps(value)
        if len(text) > MAX_OPTION_CHARS:
            raise ConfigError(
                f"option {key!r}: its value is {len(text)} characters; at most {MAX_OPTION_CHARS}"
            )
        tokens += [f"--{key}", text]
    return tokens


def parse_page_options(game: str, raw: Any) -> dict[str, Any]:
    """Game options a page sent, parsed as ``--key value`` would be, then checked.

    The file check runs on the *parsed* keys, so no spelling of ``deck``
    gets through, and it runs before the env is built, so the file is never
    opened. Runs in a game worker (the parser reads YAML scalars).
    """
    spec = get_game(game)
    options = parse_options(spec, _option_tokens(raw))
    for key in options:
        if key in FILE_OPTIONS:
            raise ConfigError(
                f"option {key!r} names a file; the page cannot choose files on the server"
            )
    spec.make(**options)  # ConfigError naming a bad value, before any session
    return options


def _int(data: dict[str, Any], key: str, default: int) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{key} must be an integer, got {str(value)[:40]}")
    return value


def _agents(data: dict[str, Any]) -> list[str]:
    agents = data.get("agents", ["random"])
    if isinstance(agents, str):
        agents = [agents]
    if not isinstance(agents, list) or not all(isinstance(a, str) for a in agents):
        raise ConfigError('agents must be a list of agent specs, e.g. ["heuristic"]')
    if len(agents) > MAX_AGENTS:
        raise ConfigError(f"{len(agents)} agents; at most {MAX_AGENTS}")
    for text in agents:
        if len(text) > MAX_SPEC_CHARS:
            raise ConfigError(f"agent spec of {len(text)} characters; at most {MAX_SPEC_CHARS}")
    return agents


def _seed(data: dict[str, Any]) -> int:
    """The request's seed, or a random one when it has none."""
    if data.get("seed") is None:
        return random_seed()
    seed = _int(data, "seed", 0)
    if not 0 <= seed <= MAX_SEED:
        raise ConfigError(f"seed must be 0..{MAX_SEED}, got {str(seed)[:40]}")
    return seed


def _game(data: dict[str, Any]) -> str:
    game = data.get("game", "")
    if not isinstance(game, str):
        raise ConfigError(f"game must be a game name, got {str(game)[:40]}")
    return get_game(game).name


class HostCheck:
    """Refuses a request for any other ``Host`` (DNS rebinding), in the JSON error format."""

    def __init__(self, app: ASGIApp, allowed_hosts: list[str]) -> None:
        """Wrap ``app``; ``allowed_hosts`` are host names without port."""
        self.app = app
        self.allowed = frozenset(h.lower() for h in allowed_hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass a request for an allowed host on; answer 400 otherwise."""
        if scope["type"] in ("http", "websocket"):
            host = ""
            for name, value in scope.get("headers", []):
                if name == b"host":
                    host = value.decode("latin-1")
                    break
            bare = host.rsplit(":", 1)[0] if not host.endswith("]") else host
            if bare.lower() not in self.allowed:
                response = _error(
                    f"this server answers only for {', '.join(sorted(self.allowed))}; "
                    f"the request asked for host {host[:80]!r}",
                    400,
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def create_app(
    record: str | Path | None = None,
    agents: list[str] | None = None,
    allowed_hosts: list[str] | None = None,
    *,
    record_to: str | Path | None = None,
    limits: Limits | None = None,
) -> Starlette:
    """The app.

    Args:
        record: a record file whose games the page may replay (read once,
            at start).
        agents: extra agent specs the page may choose (checkpoints,
            ``module:Class``): the person typed them when starting the
            server, so they are neither refused nor capped.
        allowed_hosts: the ``Host`` names to answer (the CLI passes the
            loopback names when it listens on one).
        record_to: a record file to which each finished play or watch game
            is appended (`RecordAppender`); its games are offered for
            replay too, the new ones as they finish.
        limits: the server's limits (`Limits` defaults otherwise).
    """
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

    def clock() -> MoveClock:
        return MoveClock(limits.move_seconds, workers.stopping)

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
                "recording": appender is not None,
                "recorded": recorded[-MAX_OFFERED:],
                "limits": {
                    "move_seconds": limits.move_seconds,
                    "caps": dict(limits.caps),
                    "max_body": limits.max_body,
                },
            }
        )

    async def play(request: Request) -> JSONResponse:
        data = await _body(request, "play", limits.max_body)
        game, agent_specs, seat, seed = (
            _game(data),
            _agents(data),
            _int(data, "seat", 0),
            _seed(data),
        )

        def build() -> dict[str, Any]:
            session = PlaySession(
                game,
                agents=agent_specs,
                seat=seat,
                seed=seed,
                options=parse_page_options(game, data.get("options")),
                allowed=allowed,
                clock=clock(),
                limits=limits,
                recorder=recorder,
            )
            store.add(session)
            return session.view()

        return JSONResponse(await work(build))

    async def watch(request: Request) -> JSONResponse:
        data = await _body(request, "watch", limits.max_body)
        game, agent_specs, seed = _game(data), _agents(data), _seed(data)

        def build() -> dict[str, Any]:
            session = WatchSession(
                game,
                agents=agent_specs,
                seed=seed,
                options=parse_page_options(game, data.get("options")),
                allowed=allowed,
                clock=clock(),
                limits=limits,
                recorder=recorder,
            )
            store.add(session)
            return session.view()

        return JSONResponse(await work(build))

    async def replay(request: Request) -> JSONResponse:
        data = await _body(request, "replay", limits.max_upload)
        index = _int(data, "index", 0)
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
            session = ReplaySession(chosen, f"{where}, game {index}")
            store.add(session)
            return session.view()

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

    async def move(request: Request) -> JSONResponse:
        session = _session(request)
        data = await _body(request, "move", limits.max_body)
        if not isinstance(session, PlaySession):
            raise ConfigError("moves are made in a game you play")
        return await on_session(session, lambda: session.move(data.get("action")))

    async def advance(request: Request) -> JSONResponse:
        session = _session(request)
        data = await _body(request, "advance", limits.max_body)
        if not isinstance(session, WatchSession):
            raise ConfigError("only a watched game advances")
        moves = _int(data, "moves", 1)
        return await on_session(session, lambda: session.advance(moves))

    async def goto(request: Request) -> JSONResponse:
        session = _session(request)
        data = await _body(request, "goto", limits.max_body)
        if not isinstance(session, ReplaySession):
            raise ConfigError("only a replay goes to a step")
        step = _int(data, "step", 0)
        return await on_session(session, lambda: session.goto(step))

    def close(request: Request) -> JSONResponse:
        return JSONResponse({"closed": store.close(str(request.path_params["sid"]))})

    def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def on_cardsuite_error(request: Request, exc: Exception) -> Response:
        status = 400
        for kind, code in _STATUS:
            if isinstance(exc, kind):
                status = code
                break
        return _error(str(exc)[:2000], status)

    async def on_http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        detail = "no such page" if exc.status_code == 404 else str(exc.detail)
        return _error(f"{detail} ({request.method} {request.url.path[:200]})", exc.status_code)

    async def on_other_error(request: Request, exc: Exception) -> Response:
        return _error(f"the server failed on this request: {type(exc).__name__}: {exc}"[:2000], 500)

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
    app.state.limits = limits
    app.state.appender = appender
    if allowed_hosts:
        app.add_middleware(HostCheck, allowed_hosts=allowed_hosts)
    return app


_STATUS: tuple[tuple[type[Exception], int], ...] = (
    (SessionGone, 404),
    (NotJSON, 415),
    (WrongOrigin, 403),
    (TooLarge, 413),
    (SessionBusy, 409),
    (SessionStopped, 409),
    (ServerBusy, 503),
    (StillWorking, 503),
    (MoveTooLong, 503),
    (ServerStopping, 503),
)


def _summary(index: int, record: dict[str, Any]) -> dict[str, Any]:
    """What the page lists of a recorded game."""
    return {
        "index": index,
        "game": record["game"],
        "seats": record["seats"],
        "moves": len(record["actions"]),
    }


def _default_players(game: Any) -> int:
    return int(getattr(game.config_class()(), game.players_key))
