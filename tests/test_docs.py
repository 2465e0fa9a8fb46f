"""The documentation: the site builds with mkdocs in strict mode (every page in the nav, every link
between pages and every anchor found), and the README stays a short front door whose links all
resolve."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[1]

README_MAX_LINES = 260

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
"""A Markdown link or image, ``[text](target)`` or ``![alt](target "title")``: the target."""


def readme_links() -> list[str]:
    """The targets of the README's links and images, code blocks and code spans left out."""
    text = (ROOT / "README.md").read_text()
    prose = "\n".join(line for line in text.splitlines() if not line.startswith("    "))
    prose = re.sub(r"`[^`]*`", "", prose)
    return LINK.findall(prose)


def test_the_site_builds_strictly(tmp_path):
    """`mkdocs build --strict` exits 0: no page outside the nav, no broken link, no warning."""
    pytest.importorskip("mkdocs")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "site" / "index.html").is_file()


def test_readme_is_short():
    """The README is the front door, not the reference: the reference pages are in docs/."""
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines (at most {README_MAX_LINES})"


def test_readme_relative_links_point_to_files():
    """Every relative link and image of the README names a file or folder of the repository."""
    links = readme_links()
    assert links, "the README links to its documentation pages"
    missing = []
    for target in links:
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue  # https:, mailto:, an anchor of the README itself
        path = unquote(target.split("#", 1)[0])
        if not (ROOT / path).exists():
            missing.append(target)
    assert not missing, f"README.md links to missing files: {missing}"
