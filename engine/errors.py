"""Error types of the engine's edges (formats, notation, command line).

Every error carries one line that says what is wrong, so that a command line can print it as it is.
Both are ValueErrors, so a caller that does not care which may catch ValueError.
"""

from __future__ import annotations


class FormatError(ValueError):
    """Text or data that is not a valid position, ID or move text of its format (the message says why)."""


class IllegalPlayError(ValueError):
    """Move text that reads fine but is no legal play of the roll in the position (the message says why)."""
