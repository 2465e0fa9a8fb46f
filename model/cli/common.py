"""Small pieces shared by the command lines: one-line usage errors and JSON result files."""

from __future__ import annotations

import argparse
import json
import platform
import sys

import numpy as np

USAGE_ERROR = 2
"""Exit status for bad input on the command line."""


class UsageError(Exception):
    """Bad input from the command line: reported as one line on stderr, exit status 2."""


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports a bad command line as a UsageError (one line) instead of the usage text."""

    def error(self, message):
        raise UsageError(message)


def versions() -> dict:
    """Versions of what produced a result (torch only if it was loaded)."""
    out = {"python": platform.python_version(), "numpy": np.__version__}
    if "torch" in sys.modules:
        out["torch"] = sys.modules["torch"].__version__
    return out


def write_json(path: str, blob: dict) -> None:
    """The blob as indented JSON, with the versions that produced it; UsageError if it cannot be written."""
    try:
        with open(path, "w") as f:
            json.dump({**blob, "versions": versions()}, f, indent=2)
            f.write("\n")
    except OSError as e:
        raise UsageError(f"--json: cannot write {path}: {e.strerror}") from None
