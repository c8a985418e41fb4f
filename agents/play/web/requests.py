"""What ``cardsuite serve`` reads from a request, checked before any game work (``docs/web.md``)."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from cardsuite import safe_json
from cardsuite.agents.play.web.limits import HttpError, TooLarge
from cardsuite.agents.play.web.store import MAX_SEED, random_seed
from cardsuite.agents.registry import KINDS, parse_spec, wrapped_spec
from cardsuite.errors import ConfigError
from cardsuite.games import get_game, parse_options

FILE_OPTIONS = ("deck",)
MAX_OPTIONS = 32  # keys in a request's options
MAX_OPTION_CHARS = 200  # one option value, as text
MAX_AGENTS = 64  # specs in a request
MAX_SPEC_CHARS = 200
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


def error_response(message: str, status: int = 400) -> JSONResponse:
    """The JSON answer of an error: ``{"error": message}``."""
    return JSONResponse({"error": message}, status_code=status)


class NotJSON(ConfigError, HttpError, status=415):
    """A request body sent without ``Content-Type: application/json``."""


class WrongOrigin(ConfigError, HttpError, status=403):
    """A ``POST`` whose ``Origin`` is another site."""


def check_origin(request: Request) -> None:
    """WrongOrigin when the browser says the request comes from another site's page."""
    origin = request.headers.get("origin")
    if origin is None:
        return  # not a browser, or a same-origin GET
    host = request.headers.get("host", "")
    if origin == "null" or urlsplit(origin).netloc.lower() != host.lower():
        raise WrongOrigin(
            f"a request from the page of another site ({origin[:80]!r}) is refused; "
            "open the table at this server's own address"
        )


async def read_body(request: Request, endpoint: str, limit: int) -> dict[str, Any]:
    """The request's JSON object: checked origin, type, size (read in pieces) and fields."""
    check_origin(request)
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
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > limit:
            raise TooLarge(f"request too large (over {limit} bytes)")
    if not raw.strip():
        return {}
    try:
        data = safe_json.loads(bytes(raw), "body", error=ConfigError, max_chars=limit)
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
    """Game options a page sent, parsed as ``--key value``; a file option is refused once parsed
    (no spelling of ``deck`` gets through) and before the env is built."""
    spec = get_game(game)
    options = parse_options(spec, _option_tokens(raw))
    for key in options:
        if key in FILE_OPTIONS:
            raise ConfigError(
                f"option {key!r} names a file; the page cannot choose files on the server"
            )
    spec.make(**options)  # ConfigError naming a bad value, before any session
    return options


def int_field(data: dict[str, Any], key: str, default: int) -> int:
    """The request's integer field ``key`` (``default`` when absent)."""
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{key} must be an integer, got {str(value)[:40]}")
    return value


def agent_specs(data: dict[str, Any]) -> list[str]:
    """The request's agent specs (a list of short strings)."""
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


def seed_field(data: dict[str, Any]) -> int:
    """The request's seed, or a random one when it has none."""
    if data.get("seed") is None:
        return random_seed()
    seed = int_field(data, "seed", 0)
    if not 0 <= seed <= MAX_SEED:
        raise ConfigError(f"seed must be 0..{MAX_SEED}, got {str(seed)[:40]}")
    return seed


def game_field(data: dict[str, Any]) -> str:
    """The registry name of the request's game."""
    game = data.get("game", "")
    if not isinstance(game, str):
        raise ConfigError(f"game must be a game name, got {str(game)[:40]}")
    return get_game(game).name


def check_specs(
    agents: list[str], allowed: frozenset[str] = frozenset(), limits: Any = None
) -> None:
    """ConfigError for a spec the page may not choose (``docs/web.md``, "Errors").

    A wrapping kind (``search:AGENT``) is checked through to the agent it wraps.
    """
    if not agents:
        raise ConfigError("choose at least one agent")
    for text in agents:
        if not isinstance(text, str):
            raise ConfigError(f"agent {str(text)[:40]!r} is not a spec string")
        _check_spec(text, text, allowed, limits)


def _check_spec(
    text: str, outer: str, allowed: frozenset[str], limits: Any, depth: int = 0
) -> None:
    """`check_specs` for one spec; a wrapping kind (``search:``) checks what it wraps too."""
    if text.strip() in allowed:
        return
    if depth > 3:
        raise ConfigError(f"agent {outer[:80]!r}: agents wrapped more than 3 deep")
    parsed = parse_spec(text)
    kind = KINDS.get(parsed.kind)
    if kind is None or kind.operator_only or kind.argument == "path":
        raise ConfigError(
            f"agent {outer[:80]!r}: the page offers the installed agent kinds only; "
            "start the server with cardsuite serve --agents SPEC to offer this one"
        )
    params = parsed.params
    wrapped = wrapped_spec(parsed)
    if wrapped is not None:
        inner, params = wrapped
        _check_spec(inner, outer, allowed, limits, depth + 1)
    if limits is not None:
        limits.check_spec_params(outer, params)


class HostCheck:
    """Refuses a request for any other ``Host`` (DNS rebinding), in the JSON error format."""

    def __init__(self, app: ASGIApp, allowed_hosts: list[str]) -> None:
        """Wrap ``app``; ``allowed_hosts`` are host names without port."""
        self.app = app
        self.allowed = frozenset(h.lower() for h in allowed_hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass a request for an allowed host on; answer 400 otherwise."""
        if scope["type"] in ("http", "websocket"):
            host = Headers(scope=scope).get("host", "")
            bare = host.rsplit(":", 1)[0] if not host.endswith("]") else host
            if bare.lower() not in self.allowed:
                await error_response(
                    f"this server answers only for {', '.join(sorted(self.allowed))}; "
                    f"the request asked for host {host[:80]!r}"
                )(scope, receive, send)
                return
        await self.app(scope, receive, send)
