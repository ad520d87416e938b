"""``python -m maze.perception.export <run dir> [--output DIR] [--opset N] [--trusted-module M ...]``."""

from __future__ import annotations

import argparse
import sys
from typing import Optional

from maze.env.errors import ConfigurationError
from maze.perception.export.exporter import export_run_dir
from maze.perception.export.onnx_network import OnnxExportError


def main(argv: Optional[list[str]] = None) -> int:
    """Exports a run directory's policy; prints the written directory, or one ``Error:`` line (exit 1)."""
    parser = argparse.ArgumentParser(
        prog="python -m maze.perception.export",
        description="Export the policy of a training run directory to ONNX (<run dir>/onnx/).",
    )
    parser.add_argument("run_dir", help="the output directory of a training run")
    parser.add_argument("--output", default=None, help="where to write (default: <run dir>/onnx)")
    parser.add_argument("--opset", type=int, default=None, help="ONNX opset (default: the exporter's)")
    parser.add_argument(
        "--trusted-module",
        action="append",
        default=[],
        help="a module besides maze's own whose classes model_config.yaml may name (repeatable)",
    )
    args = parser.parse_args(argv)
    try:
        directory = export_run_dir(args.run_dir, args.output, args.opset, args.trusted_module)
    except (ConfigurationError, OnnxExportError) as error:
        print(f"Error: {error}", file=sys.stderr)
        return 1
    files = sorted(path.name for path in directory.iterdir())
    print(f"exported the policy of {args.run_dir} to {directory}: {', '.join(files)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
