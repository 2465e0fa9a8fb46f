"""The page in a real headless browser (Debian's chromium through its chromedriver, driven by Selenium):
it loads, a pasted ID gets its ranked plays with the best drawn on the board, a few plays of a game
against the bot are made by clicking checkers, and a failed request shows its one line in a banner.
Skipped when selenium, chromium or chromedriver is missing (.ci/run installs them). With
NARDIBOT_SCREENSHOTS=DIR the screenshots are also saved there (docs/ keeps the ones the README shows)."""

from __future__ import annotations

import json
import os
import shutil
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from engine.formats.position import read_json_position
from engine.notation import play_steps

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"


@pytest.fixture(scope="module")
def browser():
    webdriver = pytest.importorskip("selenium.webdriver")
    if not CHROMIUM or not os.access(CHROMEDRIVER, os.X_OK):
        pytest.skip("Debian's chromium and chromium-driver are not installed")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1500,1000"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # the console, for uncaught errors
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def wait_for(predicate, seconds: float = 60, what: str = "the page"):
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    pytest.fail(f"timed out waiting for {what}")


def screenshot(driver, tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    driver.save_screenshot(str(path))
    keep = os.environ.get("NARDIBOT_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(keep) / name)
    assert path.stat().st_size > 10_000
    return path


def click_point(driver, board_id: str, regions: dict, point: int) -> None:
    """A real mouse click in the middle of a point's column (where /api/regions puts it), scaled to the
    drawing's size on the screen."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    svg = driver.find_element(By.CSS_SELECTOR, f"#{board_id} svg")
    x, y, w, h = regions["points"][str(point)]
    scale = svg.size["width"] / regions["width"]
    dx, dy = (x + w / 2) * scale - svg.size["width"] / 2, (y + h / 2) * scale - svg.size["height"] / 2
    ActionChains(driver).move_to_element_with_offset(svg, int(dx), int(dy)).click().perform()


def test_paste_an_id_and_get_the_ranked_plays(browser, live_server, tmp_path):
    """Paste an XGID with 5-2 to play, ask for the best plays: the ranked table fills, the best play is
    drawn with its arrows, and clicking the second row draws that one."""
    from selenium.webdriver.common.by import By

    browser.get(live_server + "/")
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#board svg"), what="the first board")
    field = browser.find_element(By.ID, "position")
    field.clear()
    field.send_keys(XGID)
    for select in ("dice1", "dice2"):
        browser.execute_script(f"document.getElementById('{select}').value = ''")
    browser.find_element(By.ID, "btn-hint").click()
    rows = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#plays tbody tr.play-row"), what="the plays")
    with urllib.request.urlopen(f"{live_server}/api/hint?position={urllib.request.quote(XGID)}") as answer:
        expected = json.loads(answer.read())["plays"]
    assert len(rows) == len(expected) and rows[0].find_elements(By.TAG_NAME, "td")[1].text == expected[0]["move"]
    # the board is drawn by a request of its own after the table fills: wait for it (on a busy machine the
    # check above can come first)
    arrows = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#board svg line.arrow"), 30, "the best play drawn")
    assert len(arrows) >= 2
    assert browser.find_element(By.ID, "error").get_attribute("hidden")
    screenshot(browser, tmp_path, "web_hint.png")
    rows[1].click()
    wait_for(lambda: "shown" in browser.find_elements(By.CSS_SELECTOR, "#plays tbody tr")[1].get_attribute("class"))


def test_play_a_few_moves_against_the_bot_by_clicking(browser, live_server, tmp_path):
    """A 3-point match: each of the person's plays is clicked a step at a time on the board (the bot's
    advice, turned into steps), rolls and other actions by their buttons; three plays are made."""
    from selenium.webdriver.common.by import By

    browser.get(live_server + "/")
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#board svg"), what="the page")
    browser.find_element(By.ID, "tab-play").click()
    browser.find_element(By.ID, "btn-new-game").click()
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#game-board svg"), what="the game board")
    with urllib.request.urlopen(f"{live_server}/api/regions") as answer:
        regions = json.loads(answer.read())
    played = 0
    for _ in range(30):
        state = browser.execute_script("return window.nardibot.table.state")
        if played == 3 or state["match_over"]:
            break
        if state["phase"] == "move" and state["to_act"] == "you":
            with urllib.request.urlopen(f"{live_server}/api/game/{state['id']}/hint") as answer:
                best = json.loads(answer.read())["plays"][0]
            before = read_json_position("backgammon", state["position"])
            after = read_json_position("backgammon", best["position"])
            log_before = len(browser.find_elements(By.CSS_SELECTOR, "#game-log li"))
            for source, dest in play_steps("backgammon", before, after, state["dice"]):
                click_point(browser, "game-board", regions, source)
                click_point(browser, "game-board", regions, dest)
                wait_for(lambda: not browser.execute_script("return window.nardibot.table.busy"), 30,
                         "the step to be drawn")

            def logged(since=log_before):
                texts = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#game-log li")][since:]
                return texts if any(line.startswith("you roll") for line in texts) else None

            lines = wait_for(logged, 30, "the play to be made")
            assert any(line.startswith("you roll") for line in lines), lines
            assert browser.find_element(By.ID, "error").get_attribute("hidden"), browser.find_element(By.ID, "error").text
            played += 1
            if played == 2:
                screenshot(browser, tmp_path, "web_play.png")
            continue
        buttons = browser.find_elements(By.CSS_SELECTOR, "#actions button")
        choice = next((b for b in buttons if b.get_attribute("data-action") in ("roll", "take", "next", "reject")),
                      buttons[0] if buttons else None)
        assert choice is not None, state
        choice.click()
        time.sleep(0.3)
    assert played == 3 or state["match_over"]


def test_the_openapi_page_renders_with_nothing_fetched_from_elsewhere(browser, live_server):
    """/docs (Swagger UI) draws the API's operations, and every file the browser fetched for it came
    from the server itself (the fastapi-offline package's copies, no CDN)."""
    from selenium.webdriver.common.by import By

    browser.get(live_server + "/docs")
    found = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, ".opblock-summary-path"), what="the operations")
    assert "/api/hint" in [element.text.strip() for element in found]
    fetched = browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert any(name.endswith(".js") for name in fetched) and any("/openapi.json" in name for name in fetched)
    assert [name for name in fetched if not name.startswith(live_server)] == []


def _banner(driver):
    """The error banner's text while it is shown, else None."""
    from selenium.webdriver.common.by import By

    box = driver.find_element(By.ID, "error")
    return box.text if box.is_displayed() else None


def _uncaught(driver) -> list[str]:
    """Errors the page's scripts left uncaught since the last call (the console's "javascript" entries;
    Chrome's own "network" lines for refused requests are not errors of the page)."""
    return [entry["message"] for entry in driver.get_log("browser") if entry.get("source") == "javascript"]


def test_a_failed_request_shows_its_one_line_in_a_banner(browser, live_server):
    """A bad ID after a good hint: a visible banner with the server's one line, and the earlier plays
    and cube line are gone, not left under it as if they were the new position's; a request that gets no
    answer at all (blocked in the browser) also shows a line in the banner; switching tabs hides the
    banner; the next good request clears it; nothing is left as an uncaught error in the console."""
    from selenium.webdriver.common.by import By

    browser.get(live_server + "/")
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#board svg"), what="the first board")
    _uncaught(browser)
    browser.find_element(By.ID, "btn-hint").click()
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#plays tbody tr.play-row"), what="the plays")
    field = browser.find_element(By.ID, "position")
    field.clear()
    field.send_keys("4HPwATDgc")
    browser.find_element(By.ID, "btn-hint").click()
    shown = wait_for(lambda: _banner(browser), what="the banner")
    body = json.dumps({"position": "4HPwATDgc", "game": "backgammon", "ply": 0, "dice": [3, 1]}).encode()
    request = urllib.request.Request(f"{live_server}/api/hint", data=body, headers={"Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request)
    assert shown == json.loads(refused.value.read())["error"] and "\n" not in shown
    assert browser.find_elements(By.CSS_SELECTOR, "#plays tbody tr") == []  # no stale plays under the error
    assert browser.find_element(By.ID, "cube-decision").text == ""
    browser.find_element(By.ID, "tab-play").click()
    assert _banner(browser) is None  # the error was the other panel's
    browser.find_element(By.ID, "tab-analyse").click()
    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/api/cube*"]})
    try:
        browser.find_element(By.ID, "btn-cube").click()
        assert "no answer from the server" in wait_for(lambda: _banner(browser), what="the banner of no answer")
    finally:
        browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
    field.clear()
    field.send_keys("4HPwATDgc/ABMA")
    browser.find_element(By.ID, "btn-hint").click()
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#plays tbody tr.play-row"), what="the plays again")
    assert _banner(browser) is None
    assert _uncaught(browser) == []
