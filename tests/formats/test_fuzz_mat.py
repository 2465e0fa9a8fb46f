"""Fuzzing the Jellyfish .mat reader (engine/formats/matfile.py ``read_mat``) with what no writer makes:
random bytes, real files cut anywhere or with a piece repeated, lines nested in junk, numbers of
thousands of digits in every numbered place, and huge lines. Each text is read to a record or refused
with one clear line (tests/strategies.py's ``answers_or_refuses``), never another exception or a hang;
test_fuzz.py fuzzes the mutants of what our writer makes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.errors import FormatError
from engine.formats.matfile import format_mat, read_mat
from tests.helpers import ROOT
from tests.strategies import DIGITS, FUZZ, answers_or_refuses, is_clear, match_records

REAL = (ROOT / "tests" / "data" / "gnubg_3point.mat").read_text()
"""A match gnubg 1.07 exported (tests/data/gnubg_3point.mat)."""
NUMBERS = ("N point match", "Game N", " a : N    b : N", "  N) 31: 8/5 6/5", "  1) NN: 8/5 6/5",
           "  Wins N points", '; [Cube "N"]', '; [AutomaticDoubles "N"]', '; [CubeLimit "N"]',
           "  1)  Doubles => N", "  1)  Beavers => N")
"""The places a .mat line holds a number (N)."""
ODD_DIGITS = ("\u00b2", "\u0661", "\uff11", "\u2460", "\U0001d7d9")
"""Characters str.isdigit() calls digits, not all of which int() reads: superscript two, Arabic-Indic
one, fullwidth one, circled one, mathematical double-struck one."""


def _refused_clearly(text: str) -> None:
    """``read_mat(text)``: a record, or one clear error line that shows only the start of a long input."""
    try:
        read_mat(text)
    except FormatError as err:
        assert is_clear(err) and len(str(err)) < 400, str(err)[:500]


@FUZZ
@given(st.binary(max_size=3000))
def test_random_bytes(data):
    """Bytes decoded as a reader decodes a file of unknown text (errors replaced), and as Latin-1."""
    answers_or_refuses(read_mat, data.decode("utf-8", errors="replace"))
    answers_or_refuses(read_mat, data.decode("latin-1"))


@FUZZ
@given(st.integers(0, len(REAL)), st.integers(0, len(REAL)), st.integers(0, 3))
def test_a_real_file_cut_or_with_a_piece_repeated(start, end, times):
    """gnubg's export cut at any point (its start or its end), or with a piece of it repeated."""
    start, end = min(start, end), max(start, end)
    for text in (REAL[:start], REAL[start:], REAL[:start] + REAL[start:end] * times + REAL[end:]):
        _refused_clearly(text)


@FUZZ
@given(st.lists(st.sampled_from(REAL.splitlines()) | st.text(max_size=40) | st.sampled_from(NUMBERS), max_size=30),
       st.sampled_from(["(", "[", "{", ";", " ", ")", "]"]), st.integers(0, 5_000))
def test_lines_nested_in_junk(lines, bracket, depth):
    """A real file's lines shuffled among text, each wrapped in a bracket nested ``depth`` deep on some."""
    wrapped = [bracket * depth + line if k % 3 == 0 else line for k, line in enumerate(lines)]
    _refused_clearly("\n".join([" 3 point match", *wrapped]))


@FUZZ
@given(st.sampled_from(NUMBERS), DIGITS | st.sampled_from(ODD_DIGITS) | st.text("0123456789" + "".join(ODD_DIGITS),
                                                                               min_size=1, max_size=6))
def test_numbers_of_thousands_of_digits_and_odd_digits(place, number):
    """Every numbered place of a .mat file holding thousands of digits, or characters str.isdigit() calls
    digits but int() does not read."""
    line = place.replace("N", number)
    text = REAL.replace(" 3 point match", " 3 point match\n" + line if "match" not in place else line, 1)
    _refused_clearly(text)
    _refused_clearly(f" 1 point match\n\n Game 1\n a : 0     b : 0\n{line}\n")


@FUZZ
@given(match_records(), st.integers(1_000, 200_000), st.sampled_from(["x", " ", "8/5 ", "\t", "9"]))
def test_huge_lines(record, length, piece):
    """A line of up to 200,000 characters in a file we wrote: read or refused, within the hang limit."""
    lines = format_mat(record).splitlines()
    lines.insert(len(lines) // 2, piece * length)
    answers_or_refuses(read_mat, "\n".join(lines))


@pytest.mark.parametrize("text", [
    "9" * 5000 + " point match\n",  # the length
    " 1 point match\n\n Game 1\n a : " + "9" * 5000 + "     b : 0\n",  # a score
    " 1 point match\n\n Game 1\n a : 0     b : 0\n  1) 31: 8/5 6/5\n  Wins " + "9" * 5000 + " points\n",  # a result
    " 1 point match\n\n Game 1\n a : 0     b : 0\n; [Cube \"\u00b2\"]\n  1) 31: 8/5 6/5\n",  # a cube of '²'
    ' 1 point match\n; [AutomaticDoubles "\u00b2"]\n\n Game 1\n a : 0     b : 0\n',  # automatic doubles of '²'
])
def test_known_faults(text):
    """Found by the fuzzing above: numbers of more than 4,300 digits, and a digit int() cannot read ('²',
    which str.isdigit() accepts), were a ValueError naming Python's limits, not one clear line."""
    with pytest.raises(FormatError) as refused:
        read_mat(text)
    assert is_clear(refused.value) and len(str(refused.value)) < 200


@pytest.mark.parametrize("spaces", [" " * 60_000, "\t" * 60_000, "a" + " " * 60_000 + ": 0"])
def test_a_names_line_of_spaces_is_no_hang(spaces):
    """Found by the fuzzing above: the names line under 'Game 1' was read by a regular expression whose
    repeats overlapped, in time growing with the cube of the line's length (27 s for 4,000 spaces; a
    64 KiB /api/analyse body held a core for days). Now refused at once (the hang limit only keeps a
    broken reader from stopping the run)."""
    assert answers_or_refuses(read_mat, f" 1 point match\n\n Game 1\n{spaces}\n") is None
