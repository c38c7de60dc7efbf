"""Drives the devtools page in Debian's headless Chromium through Selenium, as a person would.

usage: python devtools_page.py counter|flow|recorded|kittens URL SCREENSHOT

Prints one JSON object of what the page showed at each step, for the Swift test to check;
exits 1 with the reason when a step does not happen within its bound.
"""
import json
import os
import shutil
import sys
import tempfile

from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

BOUND = 20  # seconds: a bound for a broken page, not a pace


def browser():
    """A headless Chromium whose temporary files go to a folder of its own, removed by close():
    Chromium leaves its org.chromium.Chromium.* folder in TMPDIR even after quit()."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,900"):
        options.add_argument(argument)
    scratch = tempfile.mkdtemp(prefix="featurehost-browser-")
    service = Service("/usr/bin/chromedriver", env={**os.environ, "TMPDIR": scratch})
    driver = webdriver.Chrome(service=service, options=options)
    driver.featurehost_scratch = scratch
    return driver


def close(driver):
    """Quits the browser and removes its temporary folder."""
    try:
        driver.quit()
    finally:
        shutil.rmtree(driver.featurehost_scratch, ignore_errors=True)


def state(driver):
    text = driver.find_element(By.ID, "state").get_attribute("data-json")
    return json.loads(text) if text else None


def wait_for(driver, what, condition):
    try:
        return WebDriverWait(driver, BOUND).until(lambda d: condition(d))
    except TimeoutException:
        shown = {
            "state": driver.find_element(By.ID, "state").get_attribute("data-json"),
            "error": driver.find_element(By.ID, "error").text,
            "seq": driver.find_element(By.ID, "seq-label").text,
        }
        raise SystemExit(f"the page did not show {what} within {BOUND} s; it showed {json.dumps(shown)}")


def dispatch(driver, line):
    box = driver.find_element(By.ID, "dispatch-input")
    box.clear()
    box.send_keys(line)
    driver.find_element(By.ID, "dispatch-button").click()


def counter(driver, report):
    wait_for(driver, "the counter's first state", lambda d: state(d) == {"count": 0, "clicks": 0})
    report["initial"] = state(driver)
    # The dispatch box completes from the catalogue.
    report["catalogue"] = [o.get_attribute("value") for o in driver.find_elements(By.CSS_SELECTOR, "#catalogue option")]
    # A line the catalogue does not know is refused by the host, with its help, on the page.
    dispatch(driver, "incremnt")
    wait_for(driver, "the refusal", lambda d: "unknown action" in d.find_element(By.ID, "error").text)
    report["refusal"] = driver.find_element(By.ID, "error").text
    dispatch(driver, "increment")
    wait_for(driver, "count 1", lambda d: state(d) == {"count": 1, "clicks": 1})
    dispatch(driver, "increment")
    wait_for(driver, "count 2", lambda d: state(d) == {"count": 2, "clicks": 2})
    wait_for(driver, "the view with count 2", lambda d: "count:  2" in d.find_element(By.ID, "view").text)
    report["afterDispatch"] = state(driver)
    report["diff"] = driver.find_element(By.ID, "diff").text
    report["view"] = driver.find_element(By.ID, "view").text
    report["seq"] = driver.find_element(By.ID, "seq-label").text
    # Skip the first increment (seq 2): the state after seq 3 is recomputed without it.
    skip = driver.find_element(By.CSS_SELECTOR, '.row[data-seq="2"] input.skip')
    skip.click()
    wait_for(driver, "the state without seq 2", lambda d: state(d) == {"count": 1, "clicks": 1})
    report["skipped"] = state(driver)
    wait_for(driver, "the view without seq 2", lambda d: "count:  1" in d.find_element(By.ID, "view").text)
    report["skippedView"] = driver.find_element(By.ID, "view").text
    report["skipNote"] = driver.find_element(By.ID, "skip-note").text
    driver.find_element(By.CSS_SELECTOR, '.row[data-seq="2"] input.skip').click()
    wait_for(driver, "the state with seq 2 again", lambda d: state(d) == {"count": 2, "clicks": 2})
    # The slider, dragged with the mouse from the last seq (3) back to seq 2: a travel there.
    drag_slider(driver, 2)
    wait_for(driver, "the state after seq 2", lambda d: state(d) == {"count": 1, "clicks": 1})
    wait_for(driver, "the log holding the travel", lambda d: d.find_elements(By.CSS_SELECTOR, '.row[data-seq="4"]'))
    report["travelled"] = state(driver)
    report["travelledSeq"] = driver.find_element(By.ID, "state-seq").text
    report["travelledView"] = driver.find_element(By.ID, "view").text
    report["travelRows"] = [r.text for r in driver.find_elements(By.CSS_SELECTOR, ".row .source.travel")]
    report["travelRow"] = driver.find_element(By.CSS_SELECTOR, '.row[data-seq="4"]').text
    report["error"] = driver.find_element(By.ID, "error").text
    # The arrow keys in the log select the next seq without travelling.
    driver.find_element(By.ID, "log").send_keys(Keys.ARROW_DOWN)
    wait_for(driver, "the state after seq 3 selected", lambda d: d.find_element(By.ID, "state-seq").text == "3")
    report["selectedByKey"] = state(driver)
    wait_for(driver, "the view after seq 3", lambda d: "count:  2" in d.find_element(By.ID, "view").text)
    report["viewByKey"] = driver.find_element(By.ID, "view").text
    # Each action's time, as the log shows it.
    report["times"] = [r.text for r in driver.find_elements(By.CSS_SELECTOR, ".row .time")]


def drag_slider(driver, seq):
    """Drags the timeline's thumb with the mouse (press, move, release) from where it is to `seq`."""
    slider = driver.find_element(By.ID, "slider")
    width, low, high, value = driver.execute_script(
        "const s = arguments[0]; return [s.getBoundingClientRect().width, Number(s.min), Number(s.max), Number(s.value)]",
        slider)
    # Where a value's thumb is, from the slider's centre: the thumb (about 16 px) travels the width less itself.
    def x(of):
        return (of - low) / (high - low) * (width - 16) + 8 - width / 2

    (ActionChains(driver)
        .move_to_element_with_offset(slider, round(x(value)), 0)
        .click_and_hold()
        .move_by_offset(round(x(seq) - x(value)), 0)
        .release()
        .perform())


def flow(driver, report):
    wait_for(driver, "two features on the stack", lambda d: len(d.find_elements(By.CSS_SELECTOR, "#stack button")) == 2)
    report["stack"] = [b.text for b in driver.find_elements(By.CSS_SELECTOR, "#stack button")]
    report["focus"] = driver.find_element(By.CSS_SELECTOR, "#stack li").text
    wait_for(driver, "a state", lambda d: state(d) is not None)
    report["state"] = state(driver)


def recorded(driver, report):
    wait_for(driver, "a state", lambda d: state(d) is not None)
    report["mode"] = driver.find_element(By.ID, "mode").text
    report["state"] = state(driver)
    report["dispatchShown"] = driver.find_element(By.ID, "dispatch").is_displayed()
    report["times"] = [r.text for r in driver.find_elements(By.CSS_SELECTOR, ".row .time")]
    report["refusals"] = [
        [r.get_attribute("data-seq"), m.text]
        for r in driver.find_elements(By.CSS_SELECTOR, ".row")
        for m in r.find_elements(By.CSS_SELECTOR, ".marks .refused")
    ]


def kittens(driver, report):
    def loaded(d):
        return [i for i in d.find_elements(By.CSS_SELECTOR, "#view img") if d.execute_script("return arguments[0].naturalWidth", i) > 0]

    wait_for(driver, "two thumbnails", lambda d: len(loaded(d)) == 2)
    report["thumbnails"] = [driver.execute_script("return [arguments[0].dataset.url, arguments[0].naturalWidth]", i) for i in loaded(driver)]
    wait_for(driver, "the missing image's line", lambda d: any(a.is_displayed() for a in d.find_elements(By.CSS_SELECTOR, "#view .alt")))
    report["alts"] = [a.text for a in driver.find_elements(By.CSS_SELECTOR, "#view .alt") if a.is_displayed()]


def main():
    scenario, url, screenshot = sys.argv[1:4]
    driver = browser()
    report = {}
    try:
        driver.get(url)
        {"counter": counter, "flow": flow, "recorded": recorded, "kittens": kittens}[scenario](driver, report)
        driver.save_screenshot(screenshot)
    finally:
        close(driver)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
