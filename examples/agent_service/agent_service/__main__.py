"""``python -m agent_service MODEL_DIR [--port 8000] ...``: serve an exported policy with uvicorn.

Each limit's default comes from its environment variable (``MAZE_SERVICE_MAX_BODY_BYTES``, ...),
else from :class:`~agent_service.settings.ServiceSettings`; ``MAZE_SERVICE_TOKEN`` turns on the
bearer token.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Optional

import uvicorn
from maze.env.errors import ConfigurationError

from .app import create_app
from .settings import (
    LIMIT_ENV,
    RECOMMEND_BUDGET_ENV,
    TOKEN_ENV,
    ServiceSettings,
    budget_from_env,
    limit_from_env,
)

LIMIT_HELP = {
    "max_body_bytes": "larger request bodies get 413 before they are read",
    "max_client_requests": "requests of one client (peer address) in progress at a time; more get 429",
    "max_requests": "requests of all clients in progress at a time; more get 503",
    "max_open_episodes": "open episodes of all clients; more get 503",
    "max_client_episodes": "open episodes of one client; more get 429",
    "max_info_values": "JSON values a request's info may hold; bodies with more (and a state) get 413 unparsed",
    "worker_threads": "threads that parse requests and run the deployments off the event loop",
    "max_state_values": "JSON values a maze_state may hold (envs whose states are no observations)",
    "recommend_threads": "recommendations computed at a time, in threads of their own",
    "max_recommendations": "recommendations in progress (computing or queued) of all clients; more get 503",
    "max_recommend_k": "the most candidates a recommendation may ask for",
    "max_recommend_horizon": "the most steps of a recommendation's rollouts",
    "max_recommend_rollouts": "the most rollouts per candidate of a recommendation",
}


def parse_args(argv: Optional[list[str]] = None) -> argparse.Namespace:
    """The command line; each limit's default from its environment variable.

    Raises:
        ValueError: A limit's environment variable holds no positive integer.
    """
    parser = argparse.ArgumentParser(prog="python -m agent_service", description=__doc__)
    parser.add_argument("model_dir", type=Path, help="the ONNX export (<run dir>/onnx) or the run directory")
    parser.add_argument("--host", default="127.0.0.1", help="interface to listen on (default: loopback only)")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--idle-timeout", type=float, default=300.0, help="seconds until an idle episode expires")
    for name, variable in LIMIT_ENV.items():
        default = limit_from_env(name)
        flag = "--" + name.replace("_", "-")
        parser.add_argument(
            flag, type=int, default=default, help=f"{LIMIT_HELP[name]} (default {default}; ${variable})"
        )
    parser.add_argument(
        "--body-timeout", type=float, default=30.0, help="seconds for a request body to arrive (more: 408)"
    )
    budget = budget_from_env()
    parser.add_argument(
        "--recommend-budget",
        type=float,
        default=budget,
        help=f"wall-clock seconds one recommendation may take; requests may ask for less (default {budget:g}; "
        f"${RECOMMEND_BUDGET_ENV})",
    )
    parser.add_argument("--sample", action="store_true", help="sample actions (seeded per episode), not the mode")
    parser.add_argument("--episode-log", type=Path, default=None, help="append ended episodes here (JSON lines)")
    parser.add_argument("--log-level", default="warning")
    return parser.parse_args(argv)


def main(argv: Optional[list[str]] = None) -> int:
    """Parses the command line and serves until stopped; one ``Error:`` line (exit 1) for bad settings or export."""
    try:
        args = parse_args(argv)
        settings = ServiceSettings(
            model_dir=args.model_dir,
            idle_timeout_s=args.idle_timeout,
            body_timeout_s=args.body_timeout,
            recommend_budget_s=args.recommend_budget,
            **{name: getattr(args, name) for name in LIMIT_ENV},
            deterministic=not args.sample,
            episode_log=args.episode_log,
            token=os.environ.get(TOKEN_ENV) or None,
        )
    except ValueError as error:  # a limit that is no positive integer
        print(f"Error: {error}", file=sys.stderr)
        return 1
    try:
        app = create_app(settings)
    except ConfigurationError as error:
        print(f"Error: {error}", file=sys.stderr)
        return 1
    # proxy_headers=False: a client is its peer address, never what an X-Forwarded-For header claims
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, access_log=False, proxy_headers=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
