"""``python -m maze.perception.export <run dir> [--output DIR] [--opset N] [--trusted-module M ...]``."""

from __future__ import annotations

import argparse
import errno
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
    except OSError as error:
        print(f"Error: {describe_os_error(error)}", file=sys.stderr)
        return 1
    files = sorted(path.name for path in directory.iterdir())
    print(f"exported the policy of {args.run_dir} to {directory}: {', '.join(files)}")
    return 0


_FIXES = {
    errno.EACCES: "make the directory writable, or export elsewhere with --output DIR",
    errno.EPERM: "make the directory writable, or export elsewhere with --output DIR",
    errno.EROFS: "export to a writable file system with --output DIR",
    errno.ENOSPC: "free disk space, or export elsewhere with --output DIR",
    errno.EDQUOT: "free space within your disk quota, or export elsewhere with --output DIR",
    errno.EFBIG: "raise the file-size limit (ulimit -f), or export to a file system that allows larger files",
}


def describe_os_error(error: OSError) -> str:
    """One line for an OS error of the export: the path, what happened and how to fix it.

    Example: ``cannot write '/runs/x/onnx/policy_0.v2.onnx': No space left on device (ENOSPC); free disk
    space, or export elsewhere with --output DIR; the previous export is unchanged``.
    """
    code = errno.errorcode.get(error.errno, "") if error.errno is not None else ""
    path = f" {error.filename!r}" if error.filename is not None else ""
    meaning = error.strerror or str(error)
    fix = _FIXES.get(error.errno, "check the path")
    return f"cannot write{path}: {meaning}{f' ({code})' if code else ''}; {fix}; the previous export is unchanged"


if __name__ == "__main__":
    sys.exit(main())
