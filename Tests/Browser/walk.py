"""What the page walks share: the two window sizes, a check that stops a walk at its first failure,
axe-core's serious and critical violations, a signed-in page, and the command line

    python <walk>.py BASE_URL SAMPLES_FOLDER [SCREENSHOT_FOLDER]

With $DOCPREVIEW_TOKEN set, each page is first signed in with it on the sign-in page (whose own
violations are checked then). The server is the caller's, on loopback.
"""
import os
import sys
import tempfile
from pathlib import Path

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect, sync_playwright

SIZES = {"phone": {"width": 375, "height": 812}, "desktop": {"width": 1440, "height": 900}}

# Waits are bounds, not measures of speed: the suite runs on a machine whose every core is busy.
WAIT_MS = 120_000
expect.set_options(timeout=WAIT_MS)


def check(condition, what):
    print(("ok    " if condition else "FAIL  ") + what, flush=True)
    if not condition:
        sys.exit(1)


def no_serious_violations(page, size, where):
    results = Axe().run(page)
    found = [(v["id"], v["impact"]) for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
    check(not found, f"{size}: axe-core finds no serious or critical violation {where} {found}")


def signed_in_page(browser, base, size, has_touch=False):
    context = browser.new_context(viewport=SIZES[size], has_touch=has_touch)
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    token = os.environ.get("DOCPREVIEW_TOKEN")
    if token:
        page.goto(f"{base}/")
        no_serious_violations(page, size, "on the sign-in page")
        page.get_by_label("Access token").fill(token)
        page.get_by_role("button", name="Sign in").click()
        expect(page.get_by_role("button", name="Sign out")).to_be_visible()
    return page


def run(walk, prepare=None):
    """Calls `walk(browser, base, samples, size, shots, prepared)` at each size, `prepared` being
    what `prepare(folder)` made in a temporary folder (nothing without it)."""
    base, samples = sys.argv[1].rstrip("/"), Path(sys.argv[2])
    shots = Path(sys.argv[3]) if len(sys.argv) > 3 else None
    with tempfile.TemporaryDirectory() as folder:
        prepared = prepare(folder) if prepare else None
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            for size in SIZES:
                walk(browser, base, samples, size, shots, prepared)
            browser.close()


def upload_from_list(page, files, type_label="Other (no type)", title=None, school=None, description=None, send=True):
    """Opens the List's upload sheet by its floating button and fills it: `files` (paths), the type
    by its label, and for one file its title (the file's name unless said); then Upload, unless not `send`."""
    sheet = page.get_by_role("dialog", name="Upload Document")
    if not sheet.is_visible():
        page.get_by_role("link", name="Upload new document").click()
    expect(sheet).to_be_visible()
    sheet.get_by_label("Document type").select_option(label=type_label)
    sheet.locator("#upload-files").set_input_files([str(path) for path in files])
    if len(files) == 1:
        sheet.get_by_label("Title").fill(title if title is not None else Path(files[0]).name)
    if school:
        sheet.get_by_label("School").fill(school)
    if description:
        sheet.get_by_label("Description").fill(description)
    if send:
        sheet.get_by_role("button", name="Upload", exact=True).click()
        expect(sheet).to_be_hidden()
    return sheet


def small_touch_targets(page):
    """The visible controls a finger would miss (under 44 × 44 CSS px): links, buttons, fields; a
    checkbox or radio counts by its label, a link inside a sentence is left out."""
    return page.evaluate("""() => [...document.querySelectorAll('a[href], button, input, select, textarea, summary')].filter((element) => {
        if (element.closest('.page-text, .skip, .zoom, p')) return false;
        if (element.type === 'hidden' || element.type === 'file') return false;
        const target = (element.type === 'checkbox' || element.type === 'radio') ? element.closest('label') || element : element;
        const box = target.getBoundingClientRect();
        if (box.width === 0 || box.height === 0 || getComputedStyle(target).visibility === 'hidden') return false;
        return box.height < 44 || box.width < 44;
      }).map((element) => element.outerHTML.slice(0, 80))""")
