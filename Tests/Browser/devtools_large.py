"""Times the devtools page on a large journal in headless Chromium: opening it (until a state is
shown), scrolling the log to three places (until their rows are in), selecting a row's state.

usage: python devtools_large.py URL   (BENCHMARKS.md, issue 27, says how the host was started)
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from devtools_page import browser, close, state
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait
url = sys.argv[1]
d = browser()
try:
    t = time.monotonic()
    d.get(url)
    WebDriverWait(d, 60).until(lambda d: state(d) is not None)
    opened = time.monotonic() - t
    print("opened in %.2f s, state %s, label %s" % (opened, state(d), d.find_element(By.ID, "log-count").text))
    for fraction in (0.5, 0.1, 0.9):
        t = time.monotonic()
        d.execute_script("const l=document.getElementById('log'); l.scrollTop = l.scrollHeight*%f;" % fraction)
        seqs = WebDriverWait(d, 30).until(lambda d: d.execute_script("const r=[...document.querySelectorAll('.row')]; return r.length && r.every(x => !x.textContent.includes('…')) ? r.map(x => x.dataset.seq) : null"))
        print("scrolled to %.1f: rows %s..%s in %.3f s" % (fraction, seqs[0], seqs[-1], time.monotonic() - t))
    t = time.monotonic()
    d.find_element(By.CSS_SELECTOR, ".row[data-seq='%s']" % seqs[8]).click()
    WebDriverWait(d, 30).until(lambda d: d.find_element(By.ID, "state-seq").text == seqs[8])
    print("selected a state in %.3f s: %s" % (time.monotonic() - t, state(d)))
finally:
    close(d)
