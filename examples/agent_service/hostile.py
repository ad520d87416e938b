"""Clients that misbehave on purpose, over raw sockets: huge bodies, bodies that never come, floods of opens.

The tests of the service's limits use them; ``python hostile.py URL SECONDS SOURCE [TOKEN]``
sends 60 MB bodies (declared and chunked) and bodies of many values, in turn, from the loopback address ``SOURCE``
until ``SECONDS`` have passed and prints the statuses it got as one JSON line.
"""

from __future__ import annotations

import asyncio
import json
import select
import socket
import sys
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Optional
from urllib.parse import urlsplit

__all__ = [
    "INFO_STRING",
    "OBSERVATION_LIST",
    "Answer",
    "chunked",
    "flood",
    "huge_body",
    "open_connection",
    "open_many",
    "request_head",
    "send_raw",
]

BLOCK = b"0.12345," * 8192
"""64 KiB of a JSON list of numbers: the bulk of every huge body."""

Answer = tuple[int, dict[str, str], bytes]
"""Status, headers (lower-case names) and body of a response."""


def request_head(method: str, path: str, headers: dict[str, str]) -> bytes:
    """The request line and headers of an HTTP/1.1 request."""
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", *(f"{name}: {value}" for name, value in headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


OBSERVATION_LIST = (b'{"observation": [', b"0]}")
"""A JSON body whose observation is one long list of numbers."""

INFO_STRING = (b'{"observation": [0, 0, 0, 0], "info": {"note": "', b'"}}')
"""A JSON body with a valid observation and one long string in its info."""

MANY_VALUES = b'{"observation": [0, 0, 0, 0], "info": {"a": [' + b",".join([b"[[]]"] * 190_000) + b"]}}"
"""A body under 1 MiB whose 570,000 JSON values would take a parser about 0.1 s."""


def huge_body(blocks: int, frame: tuple[bytes, bytes] = OBSERVATION_LIST) -> tuple[int, Iterator[bytes]]:
    """A valid JSON body of ``blocks`` 64 KiB blocks of ``0.12345,`` inside ``frame``: its exact size and its parts."""
    start, end = frame

    def parts() -> Iterator[bytes]:
        yield start
        for _ in range(blocks):
            yield BLOCK
        yield end

    return len(start) + blocks * len(BLOCK) + len(end), parts()


def chunked(blocks: Iterable[bytes]) -> Iterator[bytes]:
    """``blocks`` in HTTP/1.1 chunked transfer encoding."""
    for block in blocks:
        yield f"{len(block):x}\r\n".encode() + block + b"\r\n"
    yield b"0\r\n\r\n"


def open_connection(url: str, source: str = "127.0.0.1", timeout: float = 10.0) -> socket.socket:
    """A TCP connection to the service at ``url`` from the loopback address ``source`` (a client of its own)."""
    parts = urlsplit(url)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    sock.bind((source, 0))
    sock.connect((parts.hostname, parts.port))
    return sock


def send_raw(
    url: str, head: bytes, body: Iterable[bytes] = (), source: str = "127.0.0.1", timeout: float = 10.0
) -> tuple[Answer, int]:
    """Sends ``head`` and then ``body`` until the service answers (or the body ends); the answer and the bytes sent.

    A service that refuses the body early answers before it is all sent and closes the connection; the body's
    remainder is then never sent.
    """
    sock = open_connection(url, source, timeout)
    sent = 0
    try:
        sock.sendall(head)
        for block in body:
            if select.select([sock], [], [], 0)[0]:  # the service answered already
                break
            try:
                sock.sendall(block)
            except (BrokenPipeError, ConnectionResetError):
                break
            sent += len(block)
        return read_answer(sock), sent
    finally:
        sock.close()


def read_answer(sock: socket.socket) -> Answer:
    """Reads one response (with a ``Content-Length``) from ``sock``."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError(f"the connection closed before a response came (got {data[:200]!r})")
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in header_lines)}
    length = int(headers.get("content-length", "0"))
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        rest += chunk
    return int(status_line.split()[1]), headers, rest[:length]


def flood(url: str, seconds: float, source: str, token: Optional[str] = None) -> Counter[str]:
    """60 MB bodies (declared, chunked) and a body of many values to ``act``, in turn, from ``source``; statuses got."""
    auth = {"Authorization": f"Bearer {token}"} if token else {}
    statuses: Counter[str] = Counter()
    deadline = time.monotonic() + seconds
    blocks = 60 * 16  # 60 MiB
    size, _ = huge_body(blocks)
    declared = {**auth, "Content-Type": "application/json", "Content-Length": str(size)}
    streamed = {**auth, "Content-Type": "application/json", "Transfer-Encoding": "chunked"}
    many = {**auth, "Content-Type": "application/json", "Content-Length": str(len(MANY_VALUES))}
    (status, _, answer), _ = send_raw(
        url, request_head("POST", "/episodes", {**auth, "Content-Length": "0"}), (), source
    )
    path = f"/episodes/{json.loads(answer)['episode_id']}/act"  # an episode of its own: every body gets parsed
    while time.monotonic() < deadline:
        for headers, body in (
            (declared, huge_body(blocks)[1]),
            (streamed, chunked(huge_body(blocks)[1])),
            (many, [MANY_VALUES]),
        ):
            try:
                (status, _, _), _ = send_raw(url, request_head("POST", path, headers), body, source)
                statuses[str(status)] += 1
            except OSError as error:
                statuses[type(error).__name__] += 1
    return statuses


async def open_many(
    url: str, count: int, connections: int, source: str, token: Optional[str] = None
) -> tuple[Counter[int], list[str]]:
    """``count`` ``POST /episodes`` from ``source`` over ``connections`` keep-alive connections; statuses and ids."""
    parts = urlsplit(url)
    auth = {"Authorization": f"Bearer {token}"} if token else {}
    head = request_head("POST", "/episodes", {**auth, "Content-Length": "0"})
    statuses: Counter[int] = Counter()
    opened: list[str] = []
    remaining = count

    async def connection() -> None:
        nonlocal remaining
        reader = writer = None
        while remaining > 0:
            remaining -= 1
            if writer is None:
                reader, writer = await asyncio.open_connection(parts.hostname, parts.port, local_addr=(source, 0))
            writer.write(head)
            status_line = await reader.readline()
            headers = {}
            while (line := await reader.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("latin-1").partition(":")
                headers[name.strip().lower()] = value.strip()
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            status = int(status_line.split()[1])
            statuses[status] += 1
            if status == 201:
                opened.append(json.loads(body)["episode_id"])
            if headers.get("connection") == "close":
                writer.close()
                reader = writer = None
        if writer is not None:
            writer.close()

    await asyncio.gather(*(connection() for _ in range(connections)))
    return statuses, opened


if __name__ == "__main__":
    print(json.dumps(flood(sys.argv[1], float(sys.argv[2]), sys.argv[3], *sys.argv[4:5])))
