"""Where the files shipped beside the code are, in a checkout and in an installed wheel.

A checkout keeps them in top-level folders next to the packages: checkpoints/ (the shipped nets),
benchmarks/ (the checker-play positions of ``nardibot benchmark``) and recipes/ (the training recipes
``nardibot train NAME`` finds by name). The wheel carries the same files
inside the model package, as model/shipped/<folder>/ (setup.py's ``SHIPPED`` maps them there), since
a wheel may only install packages. ``shipped_folder`` looks for the installed copy first, then the
checkout's folder; both are found from this file's own place, so any working directory will do, and
an editable install (``pip install -e .``) reads the checkout's folders themselves.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]
"""The model package's folder (model/), in the checkout or in site-packages."""
INSTALLED = PACKAGE / "shipped"
"""Where an installed wheel keeps the shipped folders (setup.py's ``INSTALLED_AS``)."""
NETS = "checkpoints"
"""The folder of the shipped nets, <game>.safetensors (model/net/checkpoint.py's ``SHIPPED``)."""


def shipped_folder(name: str) -> Path:
    """The shipped folder ``name`` (``checkpoints``, ``benchmarks``): the installed wheel's copy
    model/shipped/<name>/ where there is one, else the checkout's top-level <name>/ (which is returned
    even when missing, so that an error names where the file was looked for)."""
    installed = INSTALLED / name
    return installed if installed.is_dir() else PACKAGE.parent / name


def shipped_nets() -> list[Path]:
    """The shipped nets' files (checkpoints/*.safetensors), sorted by net name; empty when there are none."""
    return sorted(shipped_folder(NETS).glob("*.safetensors"), key=lambda path: path.stem)


__all__ = ["INSTALLED", "NETS", "shipped_folder", "shipped_nets"]
