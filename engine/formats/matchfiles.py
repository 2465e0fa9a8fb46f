"""The one reader and the one writer of match files, .mat or .sgf, for every door that reads or saves one.

    record = read_match("match.sgf")           # .mat or .sgf, told by the content -> MatchRecord
    record = read_match_text(text)             # the same from the text (``nardibot analyse``, /api/analyse)
    write_match(record, "games.sgf")           # gnubg's SGF when the name ends in .sgf, else Jellyfish .mat
    data = match_file(record, ".sgf")          # the same file's bytes (the web page's download)

The content decides what is read, not the name: SGF starts with a game tree's ``(``, a .mat file
never does (engine/formats/sgf.py, engine/formats/matfile.py). The name decides what is written.
"""

from __future__ import annotations

from pathlib import Path

from engine.errors import FormatError
from engine.formats.matfile import MatchRecord, format_mat, read_mat, write_mat
from engine.formats.sgf import format_sgf, looks_like_sgf, read_sgf_text, write_sgf

SGF_SUFFIX = ".sgf"
MAT_SUFFIX = ".mat"


def read_match_text(text: str) -> MatchRecord:
    """The record of a .mat or .sgf file's text; FormatError with one line if it is neither."""
    if looks_like_sgf(text):
        return read_sgf_text(text)
    try:
        return read_mat(text)
    except FormatError as err:
        if "point match' line" in str(err):
            raise FormatError("neither .sgf (no game tree '(;...)') nor .mat (no 'N point match' line)") from None
        raise


def read_match(path) -> MatchRecord:
    """The record of the .mat or .sgf file at ``path``; FormatError for one that is neither, OSError for a
    file that cannot be read."""
    return read_match_text(Path(path).read_bytes().decode("utf-8", errors="replace"))


def written_format(path) -> str:
    """What ``write_match`` writes to ``path``: ".sgf" if its name ends in .sgf (any case), else ".mat"."""
    return SGF_SUFFIX if Path(path).suffix.lower() == SGF_SUFFIX else MAT_SUFFIX


def match_file(record: MatchRecord, suffix: str) -> bytes:
    """The bytes of ``record`` as the file ``write_match`` writes to a name ending in ``suffix``: gnubg's SGF
    (UTF-8) for ".sgf", else Jellyfish .mat (ASCII, what it cannot hold replaced, as ``write_mat``)."""
    if suffix.lower() == SGF_SUFFIX:
        return format_sgf(record).encode("utf-8")
    return format_mat(record).encode("ascii", errors="replace")


def write_match(record: MatchRecord, path) -> Path:
    """Write ``record`` to ``path``: gnubg's SGF (``load match``) if the name ends in .sgf, else Jellyfish
    .mat (``import mat``); returns the path."""
    return write_sgf(record, path) if written_format(path) == SGF_SUFFIX else write_mat(record, path)


__all__ = ["match_file", "read_match", "read_match_text", "write_match", "written_format"]
