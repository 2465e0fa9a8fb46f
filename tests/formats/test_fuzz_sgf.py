"""Fuzzing gnubg's .sgf reader (engine/formats/sgf.py through engine/formats/matchfiles.py's ``read_match_text``,
the door of ``nardibot analyse`` and ``POST /api/analyse``) with what no writer makes: random bytes, a file
gnubg wrote (tests/data/gnubg_3point.sgf: Debian's gnubg 1.07 ``import mat tests/data/gnubg_3point.mat``
then ``save match``) and files we write cut anywhere or with a piece repeated, parentheses nested
tens of thousands deep, property values of up to 200,000 characters, numbers of thousands of digits
and digits int() does not read, bytes that are no UTF-8. Each text is read to a record (then replayed
through the rules, as ``analyse`` does first) or refused with one short clear line
(tests/strategies.py's ``answers_or_refuses``), never another exception or a hang. Then the two doors
themselves on such files: ``nardibot analyse`` exits 2 with one line, ``POST /api/analyse`` answers 400."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import FormatError
from engine.formats.matchfiles import read_match_text
from engine.formats.matreplay import replay_match
from engine.formats.sgf import format_sgf
from evaluate import main as evaluate_main
from tests.helpers import ROOT
from tests.strategies import DIGITS, FUZZ, HUGE, answers_or_refuses, is_clear, match_records, mutated, no_hang

REAL = (ROOT / "tests" / "data" / "gnubg_3point.sgf").read_text()
"""A match gnubg 1.07 saved (tests/data/gnubg_3point.sgf)."""
SESSION = ("(;FF[4]GM[6]CA[UTF-8]AP[nardibot]MI[length:0][game:0][ws:0][bs:0]PW[bot]PB[gnu\\]bg]"
           "RU[Jacoby:Beavers:AutomaticDoubles=1]RE[B+4R]\n;B[31qtst]\n;W[65xrrm]\n;B[double]\n;W[double]\n"
           ";B[take]\n;B[64aglp])\n(;FF[4]GM[6]CA[UTF-8]AP[nardibot]MI[length:0][game:1][ws:0][bs:4]PW[bot]"
           "PB[gnu\\]bg]RU[Jacoby:Beavers:AutomaticDoubles=1]CV[2]RE[B+2]\n;W[62xrxv]\n;B[double]\n;W[drop])\n")
"""A money session as format_sgf writes it (tests/formats/test_sgf.py's SESSION): a beaver, a resignation,
a drop, the money options in ``RU``."""
FILES = (REAL, SESSION)
FEW = max(FUZZ.max_examples // 4, 10)
"""Inputs of the slower properties (each up to 120,000 characters, or a match analysed): a quarter of FUZZ's."""
MAX_LINE = 400
"""Characters a refusal may have: a long bad value is shown by its start and its length."""
PROPERTIES = ("MI[length:N]", "MI[length:3][game:N]", "MI[length:3][ws:N][bs:0]", "MI[length:3][ws:0][bs:N]",
              "CV[N]", "RE[W+N]", "RE[B+NR]", "RU[AutomaticDoubles=N]", "W[N]", "W[NN]")
"""The places an .sgf root or node holds a number (N)."""
ODD_DIGITS = ("\u00b2", "\u0661", "\uff11", "\u2460", "\U0001d7d9")
"""Characters str.isdigit() calls digits, not all of which int() reads (superscript two, Arabic-Indic one,
fullwidth one, circled one, mathematical double-struck one)."""


def read_and_replay(text: str):
    """What ``analyse`` does with a file before any net: read it (.mat or .sgf by its content), then
    replay every game through the rules (engine/formats/matreplay.py)."""
    return replay_match(read_match_text(text))


def refused_clearly(text: str) -> None:
    """``read_and_replay(text)``: read, or refused with one clear line that shows only the start of a long
    input; never another exception or a hang."""
    try:
        with no_hang():
            read_and_replay(text)
    except FormatError as err:
        assert is_clear(err) and len(str(err)) < MAX_LINE, str(err)[:500]
    except ValueError as err:  # the rules' errors (IllegalPlayError, RuleError): clear too
        assert answers_or_refuses(read_and_replay, text) is None, err


@FUZZ
@given(st.binary(max_size=3000), st.sampled_from([b"", b"(", b"(;", b"(;GM[6]", b"(;FF[4]GM[6]MI[length:3];W["]))
def test_random_bytes(data, start):
    """Bytes decoded as the doors decode a file (errors replaced) and as Latin-1, alone or after the start
    of a game tree."""
    for raw in (data, start + data):
        refused_clearly(raw.decode("utf-8", errors="replace"))
        refused_clearly(raw.decode("latin-1"))


@FUZZ
@given(st.sampled_from(FILES), st.data())
def test_a_real_file_cut_or_with_a_piece_repeated(text, data):
    """gnubg's save and our session cut at any point, or with a piece repeated up to three times."""
    start, end = sorted((data.draw(st.integers(0, len(text))), data.draw(st.integers(0, len(text)))))
    times = data.draw(st.integers(0, 3))
    for cut in (text[:start], text[start:], text[:start] + text[start:end] * times + text[end:]):
        refused_clearly(cut)


@FUZZ
@given(match_records(), st.data())
def test_what_we_write_mutated(record, data):
    """Records of any games (legal or not) as format_sgf writes them, then one to four characters changed,
    deleted, doubled or swapped."""
    try:
        text = format_sgf(record)
    except ValueError:  # a play the writer cannot write (the record strategy makes any text a play)
        return
    refused_clearly(text)
    refused_clearly(data.draw(mutated(text)))


@settings(FUZZ, max_examples=FEW)
@given(st.sampled_from(["(", "(;", "(;GM[6]", ")", "[", "(;C[", ";"]), st.integers(1, 60_000), st.booleans())
def test_parentheses_nested_tens_of_thousands_deep(piece, depth, closed):
    """Game trees (or nodes, or values) opened ``depth`` times, closed or not, alone or inside a real file."""
    opened = piece * depth
    closing = ")" * depth if closed else ""
    refused_clearly(opened + closing)
    refused_clearly(REAL[:-2] + opened + closing + REAL[-2:])


@settings(FUZZ, max_examples=FEW)
@given(st.sampled_from(FILES), st.sampled_from(["PW[", "MI[", "RE[", "CV[", "RU[", "W[", "B[", "C[", "GS[", "MI[length:"]),
       HUGE, st.sampled_from(["", "\\", "]", "\\]"]))
def test_huge_property_values(text, where, value, escape):
    """A value of up to 200,000 characters (escaped brackets too) put at the start of a property of a real
    file, or as a property of its own."""
    value = value.replace("]", escape + "]" if escape else "")
    at = text.find(where)
    if at >= 0:
        refused_clearly(text[:at + len(where)] + value + text[at + len(where):])
    refused_clearly(f"(;GM[6]MI[length:3]{where.rstrip('[')}[{value}])")


@FUZZ
@given(st.sampled_from(PROPERTIES),
       DIGITS | st.sampled_from(ODD_DIGITS) | st.text("0123456789" + "".join(ODD_DIGITS), min_size=1, max_size=6))
def test_numbers_of_thousands_of_digits_and_odd_digits(place, number):
    """Every numbered place holding thousands of digits, or characters str.isdigit() calls digits but int()
    does not read (the first faults this test found: each was a ValueError of Python's words)."""
    prop = place.replace("N", number)
    refused_clearly(f"(;GM[6]{prop};W[31hefe];B[64aglp])")
    refused_clearly(REAL.replace("MI[length:3][game:0][ws:0][bs:0]", "MI[length:3]" + prop, 1))


@FUZZ
@given(st.sampled_from(FILES), st.data())
def test_bytes_that_are_no_utf8(text, data):
    """A real file with bytes that are no UTF-8 put in it (inside a value or between nodes), decoded as the
    doors decode a file, and the whole file as Latin-1 or as UTF-16."""
    raw = text.encode()
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(raw)))
        raw = raw[:at] + data.draw(st.sampled_from([b"\xff", b"\xfe\xff", b"\xc3", b"\xed\xa0\x80", b"\x00", b"\x80"]))\
            + raw[at:]
    refused_clearly(raw.decode("utf-8", errors="replace"))
    refused_clearly(raw.decode("latin-1"))
    refused_clearly(text.encode("utf-16").decode("utf-8", errors="replace"))


@pytest.mark.parametrize("text", [
    "(;GM[6]MI[length:" + "9" * 5000 + "])",  # more digits than int() reads
    "(;GM[6]MI[length:\u00b2])",  # a digit to str.isdigit(), none to int()
    "(;GM[6]MI[length:3][ws:\u00b2])",
    "(;GM[6]MI[length:3]CV[\u00b2])",
    "(;GM[6]MI[length:3]CV[" + "9" * 5000 + "])",
    "(;GM[6]MI[length:3]RE[W+" + "9" * 5000 + "])",
    "(;GM[6]MI[length:0]RU[AutomaticDoubles=\u00b2])",
    "(;GM[6]MI[length:0]RU[AutomaticDoubles=" + "9" * 5000 + "])",
    "(;GM[6]MI[length:3])(;GM[6]MI[length:" + "9" * 4000 + "])",
])
def test_known_faults_numbers(text):
    """Found by the fuzzing above: numbers of more than 4,300 digits, and digits int() cannot read, were a
    ValueError naming Python's limits (or a line of thousands of characters), not one short clear line."""
    with pytest.raises(FormatError) as refused:
        read_match_text(text)
    assert is_clear(refused.value) and len(str(refused.value)) < 200, str(refused.value)[:300]


@pytest.mark.parametrize("text", [
    "(;GM[6]MI[length:3];W[" + "x" * 100_000 + "])",
    "(;GM[6]MI[length:3]RE[" + "x" * 100_000 + "])",
    "(;GM[6]MI[length:3]CV[" + "x" * 100_000 + "])",
    "(;GM[6]MI[length:3]" + "A" * 100_000 + ")",
    "(;GM[6]MI[length:3]RE[W+\n2])",
    "(;GM[6]MI[length:3]CV[x\n\ny])",
])
def test_known_faults_echoes(text):
    """Found by the fuzzing above: a bad value or property name was echoed whole (a line of 100,000
    characters) or with its line breaks (an error of several lines)."""
    with pytest.raises(FormatError) as refused:
        read_match_text(text)
    assert is_clear(refused.value) and len(str(refused.value)) < 200, str(refused.value)[:300]


HOSTILE = {
    "nested": "(" * 30_000 + ")" * 30_000,
    "digits": "(;GM[6]MI[length:3]CV[" + "9" * 5000 + "];W[31hefe])",
    "echo": "(;GM[6]MI[length:3];W[" + "x" * 60_000 + "])",
    "cut": REAL[: len(REAL) // 2],
    "odd": "(;GM[6]MI[length:\u00b2];W[31hefe])",
    "bytes": "(;GM[6]MI[length:3]PW[\udcff\x00];W[31hefe];B[99zz])",
}
"""Files found hostile above, for the doors."""


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_analyse_refuses_a_hostile_file_in_one_line(name, tmp_path, capsys):
    """``nardibot analyse FILE``: exit status 2 and one line on stderr, nothing on stdout."""
    path = tmp_path / "bad.sgf"
    path.write_bytes(HOSTILE[name].encode("utf-8", "surrogateescape"))
    with no_hang(60):
        code = evaluate_main(["analyse", str(path)])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err[:500]
    assert err.startswith("nardibot analyse: error:") and len(err) < MAX_LINE + 40, err[:500]


@pytest.fixture(scope="module")
def api():
    """The web application in process (its own, on the shipped nets)."""
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    from fastapi.testclient import TestClient

    from nardibot.web.app import create_app

    with TestClient(create_app(), base_url="http://127.0.0.1") as client:
        yield client


def posted(api, body: bytes):
    return api.post("/api/analyse", content=body, headers={"content-type": "application/octet-stream"})


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_the_api_refuses_a_hostile_file_with_a_400_of_one_line(api, name):
    """``POST /api/analyse``: 400 and {"error": one short line}."""
    with no_hang(60):
        response = posted(api, HOSTILE[name].encode("utf-8", "surrogateescape"))
    assert response.status_code == 400, (response.status_code, response.text[:300])
    line = response.json()["error"]
    assert line.strip() and "\n" not in line and "\r" not in line and len(line) <= MAX_LINE, line[:500]


@settings(FUZZ, max_examples=FEW)
@given(st.sampled_from(FILES), st.data())
def test_the_api_on_mutated_files(api, text, data):
    """``POST /api/analyse`` of mutants of a real file: its analysis (200) or a 4xx of one line, never a 5xx."""
    body = data.draw(mutated(text) | st.integers(0, len(text)).map(lambda n: text[:n]))
    response = posted(api, body.encode("utf-8", "surrogatepass"))
    assert response.status_code < 500, (response.status_code, response.text[:300])
    if response.status_code >= 400:
        line = response.json()["error"]
        assert line.strip() and "\n" not in line and len(line) <= MAX_LINE, line[:500]
    else:
        assert json.loads(response.text)["decisions"] is not None
