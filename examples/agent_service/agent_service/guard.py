"""The gate in front of every route: bearer token, requests in progress per client and in all, body size.

:class:`RequestGuard` is pure ASGI middleware. For each HTTP request, before any route
runs, it

1. checks the bearer token (when one is configured; ``/health`` is open to all): 401,
2. counts the request against its client's and the service's requests in progress: 429, 503,
3. refuses a declared ``Content-Length`` over the limit at once, without reading a byte of
   the body, and counts the bytes of a streamed (chunked) body as they arrive, refusing it
   as soon as they pass the limit: 413; a body that does not arrive in time: 408,
4. hands the route the whole body (at most the limit) in one message.

A refusal is the service's error body (``{"error", "field"}``) with ``Connection: close``:
the rest of an unread body is never read, the connection ends instead.
"""

from __future__ import annotations

import asyncio
import hmac
from collections import Counter
from typing import Optional

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .errors import ServiceError, error_response
from .settings import ServiceSettings

__all__ = ["OPEN_PATHS", "InFlight", "RequestGuard", "client_of", "read_body"]

OPEN_PATHS = frozenset({"/health"})
"""Routes that need no token."""


def client_of(scope: Scope) -> str:
    """The client a request counts against: its peer's address (``"unknown"`` without one, e.g. a unix socket)."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


class InFlight:
    """Requests in progress, per client and in all, each bounded.

    Args:
        per_client: Most requests of one client at a time.
        total: Most requests of all clients at a time.
    """

    def __init__(self, per_client: int, total: int) -> None:
        self.per_client = per_client
        self.total = total
        self.by_client: Counter[str] = Counter()
        self.count = 0

    def enter(self, client: str) -> None:
        """Counts a request of ``client`` in.

        Raises:
            ServiceError: 429 when the client has ``per_client`` requests in progress, 503 when all have ``total``.
        """
        if self.by_client[client] >= self.per_client:
            raise ServiceError(
                429,
                f"{self.per_client} requests of this client are in progress, the most it may have; wait for answers",
            )
        if self.count >= self.total:
            raise ServiceError(
                503, f"{self.total} requests are in progress, the most this service takes; retry shortly"
            )
        self.by_client[client] += 1
        self.count += 1

    def leave(self, client: str) -> None:
        """Counts a request of ``client`` out."""
        self.count -= 1
        self.by_client[client] -= 1
        if not self.by_client[client]:
            del self.by_client[client]


async def read_body(receive: Receive, limit: int, timeout_s: float) -> bytes:
    """The whole request body, read from ``receive`` while it stays within ``limit`` bytes.

    Raises:
        ServiceError: 413 once the body passes ``limit`` (nothing more is read), 408 when it is not
            complete within ``timeout_s``, 400 when the client disconnected before sending it all.
    """
    chunks: list[bytes] = []
    size = 0
    deadline = asyncio.get_running_loop().time() + timeout_s
    while True:
        try:
            message = await asyncio.wait_for(receive(), deadline - asyncio.get_running_loop().time())
        except asyncio.TimeoutError:
            raise ServiceError(
                408, f"the request body did not arrive within {timeout_s:g} s ({size} bytes came)", "body"
            ) from None
        if message["type"] == "http.disconnect":
            raise ServiceError(400, "the client disconnected before the request body was complete", "body")
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise too_large(limit)
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def too_large(limit: int, declared: Optional[int] = None) -> ServiceError:
    """The 413 of a body over ``limit`` bytes (``declared``: its ``Content-Length``)."""
    size = f"of {declared} bytes " if declared is not None else ""
    return ServiceError(
        413,
        f"the request body {size}is larger than the {limit} bytes this service takes (--max-body-bytes, "
        "MAZE_SERVICE_MAX_BODY_BYTES)",
        "body",
    )


class RequestGuard:
    """Pure ASGI middleware: token, requests in progress and body size, checked before the app sees a request.

    Args:
        app: The wrapped ASGI app.
        settings: The token and the limits.
        in_flight: Where requests in progress are counted.
    """

    def __init__(self, app: ASGIApp, settings: ServiceSettings, in_flight: InFlight) -> None:
        self.app = app
        self.settings = settings
        self.in_flight = in_flight
        self._token = None if not settings.token else f"Bearer {settings.token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        client = client_of(scope)
        try:
            self._authorize(scope, headers)
            self.in_flight.enter(client)
        except ServiceError as error:
            await _refuse(error, scope, receive, send)
            return
        try:
            try:
                body = await self._body(headers, receive)
            except ServiceError as error:
                await _refuse(error, scope, receive, send)
                return
            await self.app(scope, _replay(body, receive), send)
        finally:
            self.in_flight.leave(client)

    def _authorize(self, scope: Scope, headers: Headers) -> None:
        if self._token is None or scope["path"] in OPEN_PATHS:
            return
        given = headers.get("authorization", "").encode("latin-1")
        if not hmac.compare_digest(given, self._token):
            raise ServiceError(
                401, "this service needs the header 'Authorization: Bearer <token>' (MAZE_SERVICE_TOKEN)"
            )

    async def _body(self, headers: Headers, receive: Receive) -> bytes:
        limit = self.settings.max_body_bytes
        declared = headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            raise too_large(limit, int(declared))
        return await read_body(receive, limit, self.settings.body_timeout_s)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives ``body`` as the one request message, then waits on ``receive`` (disconnect)."""
    pending = True

    async def replay() -> Message:
        nonlocal pending
        if pending:
            pending = False
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def _refuse(error: ServiceError, scope: Scope, receive: Receive, send: Send) -> None:
    """Answers ``error`` and ends the connection (an unread body is left unread)."""
    response = error_response(error.status, error.message, error.field)
    response.headers["connection"] = "close"
    if error.status == 401:
        response.headers["www-authenticate"] = "Bearer"
    if error.status in (429, 503):
        response.headers["retry-after"] = "1"
    await response(scope, receive, send)
