"""Every refused request gets one JSON body ``{"error": <message>, "field": <field or null>}`` and a 4xx status.

Handlers here turn FastAPI's validation errors (malformed JSON, missing or mistyped fields),
the service's own :class:`ServiceError` (unknown episodes, observations outside their space)
and HTTP errors (unknown route, wrong method) into that one form; anything unexpected
becomes a 500 with the same form, logged with its traceback, and the service goes on.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, Optional

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

__all__ = ["ServiceError", "error_response", "install_error_handlers", "validation_error"]

LOGGER = logging.getLogger("agent_service")


class ServiceError(Exception):
    """A request the service refuses.

    Args:
        status: The HTTP status (4xx for the caller's faults).
        message: What is wrong and what to do.
        field: The request field at fault (``episode_id``, ``observation[2]``, ...), if one is.
    """

    def __init__(self, status: int, message: str, field: Optional[str] = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.field = field


def error_response(status: int, message: str, field: Optional[str] = None) -> JSONResponse:
    """The response of a refused request."""
    return JSONResponse({"error": message, "field": field}, status_code=status)


def install_error_handlers(app: FastAPI) -> None:
    """Routes every error of ``app`` into :func:`error_response`."""

    @app.exception_handler(ServiceError)
    async def service_error(request: Request, error: ServiceError) -> JSONResponse:
        return error_response(error.status, error.message, error.field)

    @app.exception_handler(RequestValidationError)
    async def request_validation_error(request: Request, error: RequestValidationError) -> JSONResponse:
        refusal = validation_error(error.errors())
        return error_response(refusal.status, refusal.message, refusal.field)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> JSONResponse:
        return error_response(error.status_code, f"{request.method} {request.url.path}: {error.detail}")

    @app.exception_handler(Exception)
    async def unexpected_error(request: Request, error: Exception) -> JSONResponse:
        LOGGER.exception("%s %s failed", request.method, request.url.path)
        return error_response(500, f"internal error ({type(error).__name__}: {error}); the service goes on")


def validation_error(errors: Sequence[dict[str, Any]]) -> ServiceError:
    """The refusal of a body that pydantic (or FastAPI) found wrong: the first error, naming its field.

    A body that is no JSON is a 400 (field ``body``); anything else a 422 naming the field.
    """
    first = errors[0]
    if first["type"] == "json_invalid":
        reason = first.get("ctx", {}).get("error", "")
        return ServiceError(400, f"the request body is not valid JSON ({reason})", "body")
    location = [str(part) for part in first["loc"] if part not in ("body", "path", "query")]
    field = ".".join(location) or "body"
    message = first["msg"]
    if not location and first["type"] == "model_type":  # pydantic says "Input should be an object"
        message = "must be a JSON object of the route's fields"
    more = f" ({len(errors) - 1} more problem(s) after this one)" if len(errors) > 1 else ""
    return ServiceError(422, f"{field}: {message}{more}", field)
