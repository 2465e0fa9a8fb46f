"""The doors of the program: the ``nardibot`` command line (nardibot/cli/) and the HTTP API with its
browser page (nardibot/web/). They parse, call the answers of model/service/ and format; nothing in
``engine`` or ``model`` imports them.
"""

from importlib import metadata

try:
    __version__ = metadata.version("nardibot")
except metadata.PackageNotFoundError:  # a checkout that is not installed
    __version__ = "0.1.0"
