"""``python -m agent_service MODEL_DIR [--port 8000] ...``: serve an exported policy with uvicorn."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional

import uvicorn
from maze.env.errors import ConfigurationError

from .app import ServiceSettings, create_app


def main(argv: Optional[list[str]] = None) -> int:
    """Parses the command line and serves until stopped; one ``Error:`` line (exit 1) for an unusable export."""
    parser = argparse.ArgumentParser(prog="python -m agent_service", description=__doc__)
    parser.add_argument("model_dir", type=Path, help="the ONNX export (<run dir>/onnx) or the run directory")
    parser.add_argument("--host", default="127.0.0.1", help="interface to listen on (default: loopback only)")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--idle-timeout", type=float, default=300.0, help="seconds until an idle episode expires")
    parser.add_argument("--max-open-episodes", type=int, default=10_000)
    parser.add_argument("--sample", action="store_true", help="sample actions (seeded per episode), not the mode")
    parser.add_argument("--episode-log", type=Path, default=None, help="append ended episodes here (JSON lines)")
    parser.add_argument("--log-level", default="warning")
    args = parser.parse_args(argv)
    settings = ServiceSettings(
        model_dir=args.model_dir,
        idle_timeout_s=args.idle_timeout,
        max_open_episodes=args.max_open_episodes,
        deterministic=not args.sample,
        episode_log=args.episode_log,
    )
    try:
        app = create_app(settings)
    except ConfigurationError as error:
        print(f"Error: {error}", file=sys.stderr)
        return 1
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, access_log=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
