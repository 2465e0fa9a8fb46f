"""Match equity tables: loading gnubg's XML files, extension to 64-away, clear errors on bad files."""

import json
from pathlib import Path

import numpy as np
import pytest

from model.cube.met import MAX_AWAY, MET_DIR, METError, available_mets, load_met, parse_met

CASES = Path(__file__).resolve().parents[1] / "data" / "gnubg_cube_cases.json"

SMALL = """<?xml version="1.0"?>
<met><info><name>tiny</name><description>d</description><length>3</length></info>
<pre-crawford-table type="explicit">
<row><me>0.5</me><me>0.7</me><me>0.8</me></row>
<row><me>0.3</me><me>0.5</me><me>0.6</me></row>
<row><me>0.2</me><me>0.4</me><me>0.5</me></row>
</pre-crawford-table>
<post-crawford-table type="explicit" player="both"><row><me>0.5</me><me>0.49</me><me>0.32</me></row>
</post-crawford-table></met>"""


def test_shipped_tables_load_by_name_and_path():
    """The three shipped tables load by name, by name.xml and by path, each a full 25 x 25 table."""
    assert set(available_mets()) >= {"Kazaross-XG2", "Rockwell-Kazaross", "g11"}
    for name in ("Kazaross-XG2", "Rockwell-Kazaross", "g11"):
        met = load_met(name)
        assert met.length == 25
        assert load_met(name + ".xml") is met
        assert load_met(MET_DIR / f"{name}.xml") is met


def test_kazaross_entries():
    """Known Kazaross-XG2 numbers: Crawford 1-away v 2-away, post-Crawford 2-away trailer, 7-away v 7-away."""
    met = load_met()
    assert met.mwc(1, 2) == pytest.approx(0.67736)
    assert met.mwc(2, 1) == pytest.approx(1 - 0.67736)
    assert met.mwc(2, 1, post_crawford=True) == pytest.approx(0.48803)
    assert met.mwc(1, 2, post_crawford=True) == pytest.approx(1 - 0.48803)
    assert met.mwc(7, 7) == 0.5
    assert met.mwc(1, 1) == met.mwc(1, 1, post_crawford=True) == 0.5


def test_finished_matches_and_broadcasting():
    """Away <= 0 means that side has won; arrays broadcast to one answer per score."""
    met = load_met()
    assert met.mwc(0, 5) == 1.0 and met.mwc(-2, 5) == 1.0 and met.mwc(3, 0) == 0.0
    out = met.mwc(np.array([1, 3, 5]), np.array([[2], [4]]))
    assert out.shape == (2, 3)
    assert out[1, 2] == pytest.approx(met.pre[4, 3])


def test_extension_is_a_valid_table():
    """Extended to 64-away, every table stays a probability table with mwc(a, b) = 1 - mwc(b, a)."""
    for name in available_mets():
        met = load_met(name)
        assert met.pre.shape == (MAX_AWAY, MAX_AWAY) and met.post.shape == (2, MAX_AWAY)
        assert np.allclose(met.pre + met.pre.T, 1.0, atol=1e-12)
        assert met.pre.min() >= 0 and met.pre.max() <= 1
        assert np.all(np.diff(met.pre[:, 10]) <= 1e-12)  # further behind, fewer chances


def test_extension_matches_gnubg():
    """Kazaross-XG2 extended to 64-away equals gnubg 1.07's own table (gnubg.met(64)) to float32 precision."""
    data = json.loads(CASES.read_text())["met"]
    met = load_met()
    assert np.abs(np.array(data["pre"]) - met.pre).max() < 1e-6
    assert np.abs(np.array(data["post"]) - met.post).max() < 1e-6


def test_beyond_table_refused():
    """Scores further than 64-away are refused with a clear error."""
    with pytest.raises(ValueError, match="at most 64"):
        load_met().mwc(65, 3)


def test_small_table_parses_and_extends():
    """A 3-point explicit table is read as given and extended like gnubg (post-Crawford from 2 entries)."""
    met = parse_met(SMALL)
    assert met.name == "tiny" and met.length == 3
    assert met.mwc(1, 2) == pytest.approx(0.7) and met.mwc(3, 2) == pytest.approx(0.4)
    assert met.post[0, 1] == pytest.approx(0.49)
    # gnubg keeps length-1 = 2 post-Crawford entries and recomputes 3-away: 0.25/2 * 1 + 0.75/2 * 0.5
    assert met.post[0, 2] == pytest.approx(0.125 + 0.375 * 0.5)
    assert 0 < met.mwc(10, 3) < 0.5


@pytest.mark.parametrize(
    "text, message",
    [
        ("not xml <", "not valid XML"),
        ("<foo/>", "expected <met>"),
        ("<met><info><name>x</name></info></met>", "no <pre-crawford-table>"),
        (SMALL.replace("<me>0.6</me>", ""), "square"),
        (SMALL.replace("0.7", "abc"), "not a number"),
        (SMALL.replace("0.7", "1.7"), r"\[0, 1\]"),
        (SMALL.replace('table type="explicit">\n<row>', 'table type="zadeh">\n<row>'), "parametric"),
        (SMALL.replace("<length>3</length>", "<length>5</length>"), "length"),
        (SMALL.replace('player="both"', 'player="0"'), "both players"),
    ],
)
def test_bad_files_raise_clear_errors(text, message):
    """Each kind of broken file gives a METError saying what is wrong."""
    with pytest.raises(METError, match=message):
        parse_met(text)


def test_unknown_name_lists_the_shipped_tables(tmp_path):
    """An unknown name or a missing path is a METError naming the tables that do exist."""
    with pytest.raises(METError, match="Kazaross-XG2"):
        load_met("no-such-table")
    bad = tmp_path / "broken.xml"
    bad.write_text("<met>")
    with pytest.raises(METError, match="broken.xml"):
        load_met(bad)
