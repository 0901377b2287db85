"""The viewer in Chromium (Playwright, Debian's chromium), at a phone's size and a desktop's: a
portrait phone video (made here by the ffmpeg CLI), a picture and a PDF uploaded from the list; the
viewer opened on the newest, its toolbar one row on a phone, "1 of 3" at the bottom, the next and
previous documents reached by the arrow keys and by a swipe, and in the order of the list it was
opened from; the portrait video fitted to the screen and its filmstrip seeking the player; a tap
hiding and showing the toolbars; the picture zoomed by the Zoom button and Escape closing the zoom
only, then the viewer; a swipe down closing it; the PDF's page counter following the scroll, its
later pages made as they come near; a page that did not load said, and loaded again by Retry; a
document whose preview failed says why; a 352-page PDF's viewer in at most 60 KB of HTML; every
touch target on a phone at least 44 px; axe-core finds no serious or critical violation. With a
screenshot folder, each size's viewer is saved there.

    python viewer_page.py BASE_URL SAMPLES_FOLDER [SCREENSHOT_FOLDER]   (see walk.py)

Prints one line per check; exits 1 at the first that fails.
"""
import re
import subprocess
import time
import uuid
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

from walk import SIZES, WAIT_MS, check, no_serious_violations, run, signed_in_page, small_touch_targets, upload_from_list


def prepared_files(folder):
    """A portrait phone video (the ffmpeg CLI) and a 352-page PDF of text (Chromium's own printing)."""
    video = Path(folder) / "portrait.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=360x640:rate=30", "-t", "12",
                    "-c:v", "libx264", "-pix_fmt", "yuv420p", "-movflags", "+faststart", str(video)], check=True)
    long = Path(folder) / "long-manual.pdf"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        printer = browser.new_page()
        words = " ".join(f"word{n}" for n in range(300))
        printer.set_content("".join(f"<section style='page-break-after: always'><h1>Chapter {n}</h1><p>{words}</p></section>" for n in range(1, 353)))
        printer.pdf(path=str(long), format="Letter")
        browser.close()
    return video, long


def swipe(page, dx):
    page.evaluate("""(dx) => {
        const main = document.querySelector("main.viewer");
        const touch = (x) => new Touch({ identifier: 1, target: main, clientX: x, clientY: 300 });
        main.dispatchEvent(new TouchEvent("touchstart", { touches: [touch(200)], changedTouches: [touch(200)], bubbles: true }));
        main.dispatchEvent(new TouchEvent("touchend", { touches: [], changedTouches: [touch(200 + dx)], bubbles: true }));
    }""", dx)


def swipe_down(page, dy):
    page.evaluate("""(dy) => {
        const main = document.querySelector("main.viewer");
        const touch = (y) => new Touch({ identifier: 1, target: main, clientX: 150, clientY: y });
        main.dispatchEvent(new TouchEvent("touchstart", { touches: [touch(200)], changedTouches: [touch(200)], bubbles: true }));
        main.dispatchEvent(new TouchEvent("touchend", { touches: [], changedTouches: [touch(200 + dy)], bubbles: true }));
    }""", dy)


def walk(browser, base, samples, size, shots, prepared):
    video, long = prepared
    owner = f"athlete-{size}-{uuid.uuid4().hex[:6]}"
    page = signed_in_page(browser, base, size, has_touch=True)
    page.goto(f"{base}/?owner={owner}")
    for count, upload in enumerate([samples / "document-5-pages.pdf", samples / "image.webp", video], start=1):
        upload_from_list(page, [upload])
        expect(page.locator("#uploads li.accepted")).to_have_count(count)
    expect(page.locator("#documents .card[data-status=done]")).to_have_count(3)
    ids = page.locator("#documents .card").evaluate_all("cards => cards.map(c => c.dataset.id)")  # newest first: video, image, PDF

    # The video: fitted, portrait, its filmstrip seeking the player (once its playback job made it).
    started = time.monotonic()
    page.goto(f"{base}/ui/documents/{ids[0]}/view")
    expect(page.locator(".stage video")).to_be_visible()
    print(f"      {size}: usable after {1000 * (time.monotonic() - started):.0f} ms", flush=True)
    for _ in range(300):
        if page.locator(".filmstrip a").count() > 2:
            break
        time.sleep(1)
        page.reload()
    frames = page.locator(".filmstrip a")
    check(frames.count() > 2, f"{size}: the video's filmstrip is shown")
    box = page.locator(".stage video").bounding_box()
    viewport = SIZES[size]
    check(box["height"] <= viewport["height"] and box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"] + 1,
          f"{size}: the portrait video fits the screen ({box['width']:.0f}×{box['height']:.0f})")
    url = page.url
    frames.nth(2).click()
    page.wait_for_function("document.querySelector('.stage video').currentTime > 0")
    check(page.url == url, f"{size}: a filmstrip frame seeks the player without leaving the page")
    if shots:
        page.screenshot(path=str(shots / f"viewer-{size}.png"))
    no_serious_violations(page, size, "in the viewer")
    expect(page.locator(".position")).to_have_text("1 of 3")
    check(page.get_by_label("Document 1 of 3").count() == 1, f"{size}: the viewer says which of the list's documents it shows")
    bar = page.locator(".viewer-bar").bounding_box()
    check(bar["height"] < 70, f"{size}: the top toolbar is one row ({bar['height']:.0f} px)")
    if size == "phone":
        check(not small_touch_targets(page), f"{size}: every touch target is 44 px or more {small_touch_targets(page)}")

    # Next and previous: keys and swipes.
    page.keyboard.press("ArrowRight")
    expect(page).to_have_url(re.compile(f"/ui/documents/{ids[1]}/view$"))
    check(True, f"{size}: the right arrow opens the next document")
    page.route("**/preview?format=webp&page=4&*", lambda route: route.abort())
    swipe(page, -150)
    expect(page).to_have_url(re.compile(f"/ui/documents/{ids[2]}/view$"))
    check(True, f"{size}: a swipe to the left opens the next document")
    # A tap on a page hides the toolbars, another shows them. The URL changes when the new page
    # commits; its deferred script (the tap's handler) has run once its DOM is loaded.
    page.wait_for_load_state("domcontentloaded")
    page.locator(".pages img").first.click()
    expect(page.locator("main.viewer")).to_have_class(re.compile("bare"))
    check(page.locator(".viewer-bar").evaluate("bar => getComputedStyle(bar).pointerEvents") == "none", f"{size}: a tap hides the toolbars")
    page.locator(".pages img").first.click()
    expect(page.locator("main.viewer")).not_to_have_class(re.compile("bare"))
    # Page 4 failed to load (a lost network, from before the PDF was opened): said, then loaded by Retry.
    page.locator(".pages img").nth(2).scroll_into_view_if_needed()
    page.locator(".pages img").nth(3).scroll_into_view_if_needed()
    expect(page.locator("#counter")).to_have_text(re.compile(r"Page [345] of 5"))
    check(True, f"{size}: the page counter follows the scroll, the later pages made as they come")
    expect(page.locator(".failure")).to_be_visible()
    check("Connection lost" in page.locator(".failure").inner_text(), f"{size}: a page that did not load is said")
    page.unroute("**/preview?format=webp&page=4&*")
    page.get_by_role("button", name="Retry").click()
    page.wait_for_function("() => { const img = document.querySelectorAll('.pages img')[3]; return img.complete && img.naturalWidth > 0 }")
    expect(page.locator(".failure")).to_be_hidden()
    check(True, f"{size}: Retry loads it")

    # Find: the hits marked on the pages, the next by Enter or the button, the previous by ↑.
    page.get_by_role("button", name="Find", exact=True).click()
    find = page.get_by_label("Find in the document")
    expect(find).to_be_focused()
    status = page.locator(".find .hits")
    deadline = time.monotonic() + WAIT_MS / 1000
    while True:
        find.fill("Sample")
        find.press("Enter")
        expect(status).not_to_have_text("")
        if "still being read" not in status.inner_text():
            break
        check(time.monotonic() < deadline, f"{size}: the PDF's text is read")
        time.sleep(0.5)
    expect(status).to_have_text("1 of 5 (page 1)")
    check(page.locator(".pages img[src*='highlight=Sample']").count() == 5, f"{size}: every page with a hit shows it marked")
    page.wait_for_function("() => document.querySelector('.pages img').currentSrc.includes('highlight=Sample')")
    check(True, f"{size}: the page on screen is shown marked, at the width its screen took")
    page.get_by_role("button", name="Next hit").click()
    expect(status).to_have_text("2 of 5 (page 2)")
    find.press("Enter")
    expect(status).to_have_text("3 of 5 (page 3)")
    page.get_by_role("button", name="Previous hit").click()
    expect(status).to_have_text("2 of 5 (page 2)")
    check(True, f"{size}: the find box steps through the hits")
    if shots:
        page.screenshot(path=str(shots / f"viewer-find-{size}.png"))
    no_serious_violations(page, size, "in the viewer with hits marked")
    find.fill("chemistry")
    find.press("Enter")
    expect(status).to_have_text("No hits.")
    check(page.locator(".pages img[src*='highlight=']").count() == 0, f"{size}: a text without hits marks nothing")
    page.evaluate("document.activeElement.blur()")
    swipe(page, 150)
    expect(page).to_have_url(re.compile(f"/ui/documents/{ids[1]}/view$"))
    page.keyboard.press("ArrowLeft")
    expect(page).to_have_url(re.compile(f"/ui/documents/{ids[0]}/view$"))
    check(True, f"{size}: a swipe to the right and the left arrow go back")
    page.goto(f"{base}/ui/documents/{ids[2]}/view?sort=oldest")
    page.keyboard.press("ArrowRight")
    expect(page).to_have_url(re.compile(f"/ui/documents/{ids[1]}/view\\?sort=oldest$"))
    check(True, f"{size}: next follows the list the viewer was opened from (oldest first)")

    # The picture zooms by the Zoom button, then by the on-screen buttons.
    page.goto(f"{base}/ui/documents/{ids[1]}/view")
    page.get_by_role("button", name="Zoom", exact=True).click()
    overlay = page.locator(".zoom")
    expect(overlay).to_be_visible()
    expect(overlay).to_have_attribute("data-view", re.compile("@"))
    before = overlay.get_attribute("data-view")
    page.get_by_role("button", name="Zoom in").click()
    expect(overlay).not_to_have_attribute("data-view", before)
    check(True, f"{size}: the picture zooms in by its button")
    page.keyboard.press("Escape")
    expect(overlay).to_be_hidden()
    check(re.search(f"/ui/documents/{ids[1]}/view$", page.url) is not None, f"{size}: Escape in the zoom closes the zoom, not the viewer")
    page.keyboard.press("Escape")
    expect(page).to_have_url(re.compile(f"/ui/documents/{ids[1]}$"))
    check(True, f"{size}: Escape closes the viewer")
    page.goto(f"{base}/ui/documents/{ids[1]}/view")
    swipe_down(page, 200)
    expect(page).to_have_url(re.compile(f"/ui/documents/{ids[1]}$"))
    check(True, f"{size}: a swipe down closes the viewer")

    # A document whose preview failed says why, with its download.
    page.goto(f"{base}/?owner={owner}-failed")
    upload_from_list(page, [samples / "bad-truncated.jpg"])
    expect(page.locator("#documents .card[data-status=failed]")).to_have_count(1)
    failed = page.locator("#documents .card").first.get_attribute("data-id")
    page.goto(f"{base}/ui/documents/{failed}/view")
    expect(page.locator(".unavailable")).to_contain_text("Preview unavailable. Unable to load document.")
    check(len(page.locator(".unavailable .note").inner_text()) > len("Preview unavailable. Unable to load document. "),
          f"{size}: a failed preview gives its reason: {page.locator('.unavailable .note').inner_text()}")
    no_serious_violations(page, size, "on a failed preview")

    # A 352-page PDF: the viewer's HTML carries its first pages; the others are made as they come.
    page.goto(f"{base}/?owner={owner}-long")
    upload_from_list(page, [long])
    expect(page.locator("#documents .card[data-status=done]")).to_have_count(1)
    manual = page.locator("#documents .card").first.get_attribute("data-id")
    answer = page.goto(f"{base}/ui/documents/{manual}/view")
    weight = len(answer.body())
    check(weight <= 60_000, f"{size}: the 352-page PDF's viewer is {weight:,} bytes of HTML (at most 60,000)")
    expect(page.locator("#counter")).to_have_text(re.compile(r"of 352$"))
    page.context.close()



if __name__ == "__main__":
    run(walk, prepare=prepared_files)
