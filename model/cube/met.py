"""Match equity tables (METs): the chance of winning the match from a score, read from gnubg's XML files.

A MET answers "I need ``a`` more points, my opponent needs ``b``: how often do I win the match?".
Scores are given as *away* counts (points still needed, 1 = one point from winning the match).

Two tables, as in GNU Backgammon (gnubg) 1.07, ``matchequity.c``:

    pre[a-1, b-1]   MWC of the side ``a``-away against a side ``b``-away, before the Crawford game
                    has been played. Row/column 1-away (index 0) is the Crawford game itself.
    post[a-1]       MWC of the trailer ``a``-away against a 1-away leader once the Crawford game is
                    over (post-Crawford; the trailer doubles at every chance, the leader never can).

Files: ``<met><info>...<length>n</length></info><pre-crawford-table type="explicit"><row><me>x</me>
...</row>...</pre-crawford-table><post-crawford-table type="explicit" player="both|0|1"><row>...</row>
</post-crawford-table></met>``; row j of the pre-Crawford table is the side j+1-away. The tables the
project ships (``model/cube/data/met/``: Kazaross-XG2, Rockwell-Kazaross, g11) are explicit 25 x 25
tables.
gnubg's parametric kinds (``type="zadeh"`` / ``"mec"``: tables computed from gammon rates) are refused
with a clear error: copy an explicit table instead.

Like gnubg, tables are extended to 64-away (``MAX_AWAY``) so that long matches still get numbers:

- pre-Crawford entries beyond the file's length use David Montgomery's normal approximation (gnubg's
  ``ExtendMET``): a side ``a``-away against ``b``-away (a >= b) wins with
  ``Phi(6) - Phi((a - b) / sigma)``, ``sigma = sqrt(s(a)^2 + s(b)^2) * sqrt((a + b) / 2)``, where s(n) is
  the per-game standard deviation (1.24, 1.27, 1.47, 1.50, 1.60, 1.61, 1.66, 1.68, 1.70, 1.72 for n =
  1..10, then 1.77), and 0 where ``6 sigma <= a - b``; the other half is ``1 -`` its mirror.
- post-Crawford entries from the file's length - 1 on (gnubg keeps only ``length - 1`` of the file's
  post-Crawford numbers) follow Zadeh's recursion with a trailer's gammon rate g = 0.25:
  ``post[n] = g/2 * post[n-4] + (1-g)/2 * post[n-2]`` (1 where the index is negative), minus the
  free-drop values 0.015 at 2-away and 0.004 at 4-away.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

MAX_AWAY = 64  # gnubg's MAXSCORE: the longest match any table is extended to
MET_DIR = Path(__file__).resolve().parent / "data" / "met"
DEFAULT_MET = "Kazaross-XG2"

_STDDEV = (0.0, 1.24, 1.27, 1.47, 1.50, 1.60, 1.61, 1.66, 1.68, 1.70, 1.72)  # per-game sd, 1..10-away
POST_CRAWFORD_GAMMON_RATE = 0.25
FREE_DROP_2_AWAY = 0.015
FREE_DROP_4_AWAY = 0.004


class METError(ValueError):
    """A match equity table that cannot be read: missing file, bad XML, wrong shape or values."""


@dataclass(frozen=True, eq=False)
class MatchEquityTable:
    """A match equity table, extended to ``MAX_AWAY``. Read only: build it with ``load_met``.

    name: the table's name from its file; length: how many away-scores the file itself gives;
    pre: (64, 64) pre-Crawford MWC of the row side; post: (2, 64) post-Crawford MWC of a trailer,
    post[0] for "me" trailing and post[1] for the opponent trailing (the same for symmetric files).
    """

    name: str
    length: int
    pre: np.ndarray = field(repr=False)  # (64, 64)
    post: np.ndarray = field(repr=False)  # (2, 64)

    def mwc(self, away_me, away_opp, post_crawford=False):
        """MWC of "me" before a game at this score (arrays broadcast); away <= 0 means that side has won.

        ``post_crawford`` says whether the game about to be played is post-Crawford; it only matters
        when a side is 1-away: then False means this is the Crawford game (pre-Crawford table, row
        1-away) and True a post-Crawford game (post-Crawford table). At 1-away against 1-away both
        tables give 0.5. Values beyond ``MAX_AWAY`` raise ValueError.
        """
        a = np.asarray(away_me, dtype=np.int64)
        b = np.asarray(away_opp, dtype=np.int64)
        pc = np.asarray(post_crawford, dtype=bool)
        if max(a.max(initial=0), b.max(initial=0)) > MAX_AWAY:
            raise ValueError(f"away scores must be at most {MAX_AWAY}")
        ia = np.clip(a - 1, 0, MAX_AWAY - 1)
        ib = np.clip(b - 1, 0, MAX_AWAY - 1)
        pre = self.pre[ia, ib]
        # post-Crawford: "I" lead (1-away) -> 1 - opponent trailer's MWC; else my own trailer MWC
        post = np.where(a == 1, 1.0 - self.post[1, ib], self.post[0, ia])
        use_post = pc & ((a == 1) | (b == 1))
        out = np.where(use_post, post, pre)
        out = np.where(b <= 0, 0.0, out)
        out = np.where(a <= 0, 1.0, out)
        return out[()] if out.ndim == 0 else out


def load_met(name_or_path: str | Path = DEFAULT_MET) -> MatchEquityTable:
    """Load a MET by name (a file in model/cube/data/met, ".xml" optional) or by path; METError if unusable."""
    return _load_by_name(str(name_or_path))


@lru_cache(maxsize=64)
def _load_by_name(name_or_path: str) -> MatchEquityTable:
    return _load_cached(str(_resolve(name_or_path)))


def available_mets() -> list[str]:
    """Names of the tables shipped in model/cube/data/met."""
    return sorted(p.stem for p in MET_DIR.glob("*.xml"))


def _resolve(name_or_path) -> Path:
    p = Path(name_or_path)
    if p.suffix == ".xml" and p.is_file():
        return p.resolve()
    for candidate in (MET_DIR / f"{name_or_path}.xml", MET_DIR / str(name_or_path), p):
        if candidate.is_file():
            return candidate.resolve()
    raise METError(
        f"no match equity table {str(name_or_path)!r}: give a path to a gnubg MET XML file or one of "
        f"{', '.join(available_mets())}"
    )


@lru_cache(maxsize=16)
def _load_cached(path: str) -> MatchEquityTable:
    return parse_met(Path(path).read_bytes(), source=path)


def parse_met(data: bytes | str, source: str = "<string>") -> MatchEquityTable:
    """Parse gnubg MET XML text into an extended MatchEquityTable; METError naming what is wrong."""
    try:
        root = ET.fromstring(data)
    except ET.ParseError as e:
        raise METError(f"{source}: not valid XML ({e})") from None
    if root.tag != "met":
        raise METError(f"{source}: root element is <{root.tag}>, expected <met>")
    name = (root.findtext("info/name") or Path(source).stem).strip()
    pre_el = root.find("pre-crawford-table")
    if pre_el is None:
        raise METError(f"{source}: no <pre-crawford-table>")
    pre_rows = _explicit_rows(pre_el, source, "pre-crawford-table")
    n = len(pre_rows)
    if n == 0 or any(len(r) != n for r in pre_rows):
        lengths = [len(r) for r in pre_rows]
        raise METError(f"{source}: the pre-Crawford table must be square, got rows of {lengths}")
    if n > MAX_AWAY:
        raise METError(f"{source}: tables longer than {MAX_AWAY} are not supported")
    length_text = root.findtext("info/length")
    if length_text is not None and length_text.strip().lstrip("-").isdigit() and int(length_text) != n:
        raise METError(f"{source}: <length> says {length_text.strip()} but the table has {n} rows")
    pre = np.asarray(pre_rows, dtype=np.float64)
    post = _post_tables(root, n, source)
    for what, table in (("pre-Crawford", pre), ("post-Crawford", post)):
        if not np.all(np.isfinite(table)) or table.min() < 0 or table.max() > 1:
            raise METError(f"{source}: {what} entries must be probabilities in [0, 1]")
    return MatchEquityTable(name=name, length=n, pre=_extend_pre(pre), post=_extend_post(post, n))


def _explicit_rows(table_el, source: str, what: str) -> list[list[float]]:
    kind = table_el.get("type", "explicit")
    if kind != "explicit":
        raise METError(
            f"{source}: <{what} type={kind!r}> is a parametric table; only explicit tables are supported"
        )
    rows = []
    for row in table_el.findall("row"):
        try:
            rows.append([float((me.text or "").strip()) for me in row.findall("me")])
        except ValueError:
            raise METError(f"{source}: a <me> entry of <{what}> is not a number") from None
    return rows


def _post_tables(root, n: int, source: str) -> np.ndarray:
    """(2, k) post-Crawford trailer MWCs for players 0 and 1 ("both" fills the two)."""
    tables: dict[str, list[float]] = {}
    for el in root.findall("post-crawford-table"):
        rows = _explicit_rows(el, source, "post-crawford-table")
        if len(rows) != 1:
            raise METError(f"{source}: a <post-crawford-table> must have exactly one <row>")
        player = el.get("player", "both")
        if player not in ("both", "0", "1"):
            raise METError(f"{source}: post-Crawford player must be both, 0 or 1, got {player!r}")
        tables[player] = rows[0]
    if "both" in tables:
        tables.setdefault("0", tables["both"])
        tables.setdefault("1", tables["both"])
    if "0" not in tables or "1" not in tables:
        raise METError(f"{source}: no post-Crawford table for both players")
    need = n - 1  # gnubg reads only length - 1 post-Crawford entries
    for p in ("0", "1"):
        if len(tables[p]) < need:
            raise METError(f"{source}: the post-Crawford table needs at least {need} entries")
    return np.array([tables["0"][:need], tables["1"][:need]], dtype=np.float64)


def _extend_post(post: np.ndarray, n: int) -> np.ndarray:
    """Extend (2, n-1) post-Crawford tables to (2, MAX_AWAY) by Zadeh's recursion (see module doc)."""
    out = np.zeros((2, MAX_AWAY))
    out[:, : n - 1] = post
    g = POST_CRAWFORD_GAMMON_RATE
    for i in range(n - 1, MAX_AWAY):
        four = out[:, i - 4] if i >= 4 else 1.0
        two = out[:, i - 2] if i >= 2 else 1.0
        out[:, i] = g * 0.5 * four + (1 - g) * 0.5 * two
        if i == 1:
            out[:, i] -= FREE_DROP_2_AWAY
        if i == 3:
            out[:, i] -= FREE_DROP_4_AWAY
    return out


def _stddev(away: int) -> float:
    return 1.77 if away > 10 else _STDDEV[away]


def _extend_pre(pre: np.ndarray) -> np.ndarray:
    """Extend an (n, n) pre-Crawford table to (MAX_AWAY, MAX_AWAY) with Montgomery's formula."""
    n = len(pre)
    out = np.zeros((MAX_AWAY, MAX_AWAY))
    out[:n, :n] = pre
    for i in range(n, MAX_AWAY):
        a = i + 1
        for j in range(i + 1):
            b = j + 1
            sigma = math.sqrt(_stddev(a) ** 2 + _stddev(b) ** 2) * math.sqrt((a + b) / 2.0)
            if 6.0 * sigma > a - b:
                out[i, j] = _phi(6.0) - _phi((a - b) / sigma)
            else:
                out[i, j] = 0.0
    for i in range(MAX_AWAY):
        for j in range(n if i < n else i + 1, MAX_AWAY):
            out[i, j] = 1.0 - out[j, i]
    return out


def _phi(z: float) -> float:
    """Standard normal cumulative distribution."""
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))
