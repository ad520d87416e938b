"""A reference HTTP service that serves a maze agent exported to ONNX, without torch.

``python -m agent_service <run dir>/onnx`` serves the exported policy with FastAPI on
uvicorn; see the example's README for the routes and a session with curl.
"""

from .app import ServiceSettings, create_app

__all__ = ["ServiceSettings", "create_app"]
