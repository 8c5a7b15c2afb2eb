"""The board page in a real browser (headless Chromium driven by Selenium): a whole game
against level 0 by clicking, hint and undo, labels and styles, a live match watched ply by
ply, and a replay stepped through.

Skipped, saying what to install, where no Chromium and chromedriver are found (Debian:
``apt-get install chromium chromium-driver``; ``.ci/run`` installs them).
"""

import random
import threading
import time
from pathlib import Path

import browser_page as page
from gui_helpers import builtin_loop
from referee_fakes import play
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select

from protocol.engine_loop import DctpEngine
from protocol.messages import Reply
from referee.engine_spec import EngineSpec
from referee.engine_start import in_process_engines
from tournaments.config import builtin_engine_command


def test_a_whole_game_against_level_0_by_clicking(browser: WebDriver, server: page.Server) -> None:
    driver = browser
    page.choose_a_game_against_level_0(driver, server, "casual")
    driver.find_element(By.ID, "helper").click()
    driver.find_element(By.ID, "new-game").click()
    top = driver.find_element(By.ID, "play-top")
    page.wait(driver, lambda d: "level-0" in top.text and page.my_turn(d) and page.plies(d) == 0)
    assert len(page.squares(driver)) == 32 and all(s["piece"] == "X" for s in page.squares(driver))

    choose = random.Random(5)
    page.play_one(driver, choose, check=True)  # a flip: everything was face down
    page.play_one(driver, choose, check=True)
    shown = [item.text for item in driver.find_elements(By.CSS_SELECTOR, "#play-moves li")]
    turned_up = any("(" in ply for ply in shown[2:])  # our last ply or the reply to it
    assert driver.find_element(By.ID, "undo").is_enabled() is not turned_up  # never past a flip
    driver.find_element(By.ID, "hint").click()
    page.wait(driver, lambda d: any("hint" in s["classes"] for s in page.squares(d)))
    assert "Hint" in page.status(driver)
    page.play_one(driver, choose)  # the hint is shown until our next ply

    Select(driver.find_element(By.ID, "labels")).select_by_value("en")
    Select(driver.find_element(By.ID, "piece-style")).select_by_value("tile")
    Select(driver.find_element(By.ID, "board-style")).select_by_value("slate")
    body = driver.find_element(By.TAG_NAME, "body").get_attribute("class") or ""
    assert {"labels-en", "pieces-tile", "board-slate", "helper-on"} <= set(body.split())
    face_up = driver.find_element(By.CSS_SELECTOR, "#play-board .piece:not([data-piece=X])")
    assert face_up.find_element(By.CSS_SELECTOR, ".en").is_displayed()
    assert not face_up.find_element(By.CSS_SELECTOR, ".zh").is_displayed()

    for _ in range(400):
        if page.game_over(driver):
            break
        page.play_one(driver, choose, check=page.plies(driver) < 12)
    assert page.game_over(driver)
    result = driver.find_element(By.ID, "play-result").text
    said = page.page_state(driver)["over"]
    headline = {None: "Draw", 0: "You win", 1: "You lose"}[said["winner"]]
    assert result == f"{headline} — {said['result'].partition(': ')[2]}"
    assert ("has no pieces left" in result) == ("no pieces" in said["result"])
    reason = driver.find_element(By.ID, "play-reason").text
    assert reason.split(":")[0] in ("no-legal-move", "threefold-repetition", "no-progress")
    record = driver.find_element(By.ID, "record-json").get_attribute("href") or ""
    assert record.endswith("/record.json")
    fetched = driver.execute_async_script(
        "fetch(arguments[0]).then(r => r.json()).then(arguments[1])", record
    )
    assert fetched["result"] == said["result"] and len(fetched["layout"].replace("/", "")) == 32
    tally = driver.find_element(By.ID, "tally").text
    assert "level 0: random 1" in tally

    driver.set_window_size(390, 844)  # a phone: the board fits the width
    fits = driver.execute_script(
        "const r = document.getElementById('play-board').getBoundingClientRect();"
        "return r.left >= 0 && r.right <= window.innerWidth;"
    )
    driver.set_window_size(1200, 1000)
    assert fits


class Slow(DctpEngine):
    """A built-in level that takes a moment over each move, so that a game can be watched."""

    def handle_line(self, line: str) -> Reply | None:
        if " genmove " in f" {line} ":
            time.sleep(0.02)
        return super().handle_line(line)


def slow(spec: EngineSpec) -> DctpEngine:
    loop = builtin_loop(spec)
    return Slow(loop.rules, loop.player)


def test_watch_a_live_match_then_replay_its_record(
    browser: WebDriver, server: page.Server, tmp_path: Path
) -> None:
    driver = browser
    engines = tuple(
        EngineSpec(name=name, command=builtin_engine_command("--level", level))
        for name, level in (("greedy", "1"), ("random", "0"))
    )
    run = tmp_path / "runs" / "m1"
    run.mkdir(parents=True)
    match = threading.Thread(
        target=play,
        args=(run, engines),
        kwargs={"games": 2, "start_engine": in_process_engines(slow)},
    )
    driver.get(server.url + "#watch/m1")
    match.start()
    try:
        large = page.wait(
            driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#watch-game[data-plies]")
        )[0]
        first = int(large.get_attribute("data-plies") or 0)
        page.wait(driver, lambda d: int(large.get_attribute("data-plies") or 0) > first + 2)
        pieces = large.find_elements(By.CSS_SELECTOR, "[data-square] [data-piece]")
        assert len(pieces) >= 2
        small = driver.find_element(
            By.CSS_SELECTOR, f'.thumb[data-game="{large.get_attribute("data-game")}"]'
        )
        assert small.get_attribute("aria-current") == "true"
    finally:
        match.join(60)
    page.wait(
        driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#watch-finished [data-game]")) == 2
    )
    page.wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#watch-standings tr")) == 3)
    assert not driver.find_elements(By.CSS_SELECTOR, ".thumb")
    assert not driver.find_element(By.ID, "watch-game").is_displayed()

    driver.find_element(By.CSS_SELECTOR, "#watch-finished [data-game]").click()
    replay_status = driver.find_element(By.ID, "replay-status")
    page.wait(driver, lambda d: replay_status.text.startswith("start"))
    assert all(
        p.get_attribute("data-piece") == "X"
        for p in driver.find_elements(By.CSS_SELECTOR, "#replay-board [data-piece]")
    )
    driver.find_element(By.ID, "replay-forward").click()
    driver.find_element(By.ID, "replay-forward").click()
    page.wait(driver, lambda d: replay_status.text.startswith("ply 2 of"))
    driver.find_element(By.ID, "replay-back").click()
    page.wait(driver, lambda d: replay_status.text.startswith("ply 1 of"))
    number = driver.find_element(By.ID, "replay-ply")
    number.clear()
    number.send_keys("5\n")
    page.wait(driver, lambda d: replay_status.text.startswith("ply 5 of"))
    driver.find_element(By.ID, "replay-play").click()
    page.wait(driver, lambda d: replay_status.text.startswith("ply 6 of"))
    driver.find_element(By.ID, "replay-play").click()
    driver.find_element(By.ID, "replay-last").click()
    end = driver.find_element(By.ID, "replay-end")
    page.wait(driver, lambda d: end.is_displayed())
    assert driver.find_element(By.ID, "replay-result").text
    layout = driver.find_elements(By.CSS_SELECTOR, "#replay-layout [data-piece]")
    assert len(layout) == 32 and "X" not in {p.get_attribute("data-piece") for p in layout}


def test_a_move_onto_a_face_down_piece_by_clicking_then_its_replay(
    browser: WebDriver, server: page.Server, tmp_path: Path
) -> None:
    driver = browser
    page.choose_a_game_against_level_0(driver, server, "hong-kong-forum")
    board = driver.find_element(By.ID, "play-board")
    old = board.get_attribute("data-game")
    driver.find_element(By.ID, "new-game").click()
    page.wait(driver, lambda d: board.get_attribute("data-game") != old and page.my_turn(d))
    page.click(driver, "b2")  # one tap flips
    page.next_turn(driver, 0)  # the engine can only flip: b2 keeps a face-down neighbour or more
    assert "step onto a face-down" in page.status(driver)
    page.click(driver, "b2")
    targets = {s["square"]: s for s in page.squares(driver) if s["target"]}
    onto = sorted(name for name, s in targets.items() if s["target"] == "reveal")
    assert onto and all(targets[name]["piece"] == "X" for name in onto)
    assert all("target-reveal" in targets[name]["classes"] for name in onto)
    assert "face-down" in page.status(driver)
    page.click(driver, onto[0])
    page.next_turn(driver, 2)
    moves = [item.text for item in driver.find_elements(By.CSS_SELECTOR, "#play-moves li")]
    assert moves[2].startswith(f"you: b2-{onto[0]}(") and moves[2].endswith(")")

    driver.find_element(By.ID, "resign").click()
    driver.find_element(By.ID, "resign").click()
    page.wait(driver, page.game_over)
    record = driver.find_element(By.ID, "record-json").get_attribute("href")
    text = driver.execute_async_script(
        "fetch(arguments[0]).then(r => r.text()).then(arguments[1])", record
    )
    path = tmp_path / "forum.json"
    path.write_text(text)
    driver.execute_script("location.hash = '#replay'")
    driver.find_element(By.ID, "replay-file").send_keys(str(path))
    replay_status = driver.find_element(By.ID, "replay-status")
    page.wait(driver, lambda d: replay_status.text.startswith("start"))
    number = driver.find_element(By.ID, "replay-ply")
    number.clear()
    number.send_keys("3\n")
    page.wait(driver, lambda d: replay_status.text.startswith("ply 3 of"))
    assert f"b2-{onto[0]}(" in replay_status.text
    assert "onto a face-down piece, turned it up and" in replay_status.text
    marked = driver.find_elements(By.CSS_SELECTOR, "#replay-board .square.last")
    assert sorted(str(s.get_attribute("data-square")) for s in marked) == sorted(["b2", onto[0]])


def test_a_reload_finds_the_game_and_new_game_asks_first(
    browser: WebDriver, server: page.Server
) -> None:
    driver = browser
    page.start_against_level_0(driver, server, "casual")  # nothing played yet: it does not ask
    choose = random.Random(2)
    page.play_one(driver, choose)
    page.play_one(driver, choose)
    moves = [item.text for item in driver.find_elements(By.CSS_SELECTOR, "#play-moves li")]
    board = [s["piece"] for s in page.squares(driver)]
    driver.refresh()
    page.wait(driver, lambda d: page.plies(d) == len(moves) and page.my_turn(d))
    assert [i.text for i in driver.find_elements(By.CSS_SELECTOR, "#play-moves li")] == moves
    assert [s["piece"] for s in page.squares(driver)] == board

    driver.find_element(By.ID, "new-game").click()
    asked = page.wait(driver, lambda d: d.switch_to.alert)
    assert "game in progress" in asked.text
    asked.dismiss()  # keep playing
    assert page.plies(driver) == len(moves)
    playing = page.game_id(driver)
    driver.find_element(By.ID, "new-game").click()
    page.wait(driver, lambda d: d.switch_to.alert).accept()
    page.wait(
        driver, lambda d: page.game_id(d) != playing and page.plies(d) == 0 and page.my_turn(d)
    )


def test_one_tap_flips_and_any_other_tap_cancels_a_selection(
    browser: WebDriver, server: page.Server
) -> None:
    driver = browser
    page.start_against_level_0(driver, server, "casual")
    page.click(driver, "b3")  # one tap: flipped, and the engine answered
    page.next_turn(driver, 0)
    assert next(s for s in page.squares(driver) if s["square"] == "b3")["piece"] != "X"
    choose = random.Random(3)
    while not (movers := page.own_movers(driver)) and not page.game_over(driver):
        page.play_one(driver, choose)
    assert movers, "no piece of ours could move in the whole game"
    mover = movers[0]
    before = page.plies(driver)
    facedown = next(s["square"] for s in page.squares(driver) if s["piece"] == "X")
    page.click(driver, mover)
    assert any(s["target"] for s in page.squares(driver))
    page.click(driver, facedown)  # cancels: nothing flipped by accident
    assert page.plies(driver) == before and not any(s["target"] for s in page.squares(driver))
    assert next(s for s in page.squares(driver) if s["square"] == facedown)["piece"] == "X"
    if len(movers) > 1:
        page.click(driver, mover)
        page.click(driver, movers[1])  # another piece of ours: cancels too, selects nothing
        assert page.plies(driver) == before and not any(s["target"] for s in page.squares(driver))
