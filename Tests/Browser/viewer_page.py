"""The viewer in Chromium (Playwright, Debian's chromium), at a phone's size and a desktop's: a
portrait phone video (made here by the ffmpeg CLI), a picture and a PDF uploaded from the list; the
viewer opened on the newest, the next and previous documents reached by the arrow keys and by a
swipe, and in the order of the list it was opened from; the portrait video fitted to the screen and
its filmstrip seeking the player; the picture zoomed by the on-screen button; the PDF's page counter following the scroll; axe-core finds no
serious or critical violation. With a screenshot folder, each size's viewer is saved there.

    python viewer_page.py BASE_URL SAMPLES_FOLDER [SCREENSHOT_FOLDER]   (see walk.py)

Prints one line per check; exits 1 at the first that fails.
"""
import re
import subprocess
import time
import uuid
from pathlib import Path

from playwright.sync_api import expect

from walk import SIZES, WAIT_MS, check, no_serious_violations, run, signed_in_page


def portrait_video(folder):
    path = Path(folder) / "portrait.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=360x640:rate=30", "-t", "12",
                    "-c:v", "libx264", "-pix_fmt", "yuv420p", "-movflags", "+faststart", str(path)], check=True)
    return path


def swipe(page, dx):
    page.evaluate("""(dx) => {
        const main = document.querySelector("main.viewer");
        const touch = (x) => new Touch({ identifier: 1, target: main, clientX: x, clientY: 300 });
        main.dispatchEvent(new TouchEvent("touchstart", { touches: [touch(200)], changedTouches: [touch(200)], bubbles: true }));
        main.dispatchEvent(new TouchEvent("touchend", { touches: [], changedTouches: [touch(200 + dx)], bubbles: true }));
    }""", dx)


def walk(browser, base, samples, size, shots, video):
    owner = f"athlete-{size}-{uuid.uuid4().hex[:6]}"
    page = signed_in_page(browser, base, size, has_touch=True)
    page.goto(f"{base}/?owner={owner}")
    for upload in [samples / "document-5-pages.pdf", samples / "image.webp", video]:
        page.get_by_label("Files", exact=True).set_input_files(str(upload))
        page.get_by_role("button", name="Upload", exact=True).click()
        expect(page.locator("#uploads li.accepted")).to_have_count(1 if upload.name.endswith(".pdf") else (2 if upload.name.endswith(".webp") else 3))
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

    # Next and previous: keys and swipes.
    page.keyboard.press("ArrowRight")
    expect(page).to_have_url(re.compile(f"/ui/documents/{ids[1]}/view$"))
    check(True, f"{size}: the right arrow opens the next document")
    swipe(page, -150)
    expect(page).to_have_url(re.compile(f"/ui/documents/{ids[2]}/view$"))
    check(True, f"{size}: a swipe to the left opens the next document")
    page.locator(".pages img").nth(3).scroll_into_view_if_needed()
    expect(page.locator("#counter")).to_have_text(re.compile(r"Page [345] of 5"))
    check(True, f"{size}: the page counter follows the scroll")

    # Find: the hits marked on the pages, the next by Enter or the button, the previous by ↑.
    find = page.get_by_label("Find in the document")
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

    # The picture zooms by the on-screen buttons.
    page.goto(f"{base}/ui/documents/{ids[1]}/view")
    page.locator(".stage .media img").click()
    overlay = page.locator(".zoom")
    expect(overlay).to_be_visible()
    expect(overlay).to_have_attribute("data-view", re.compile("@"))
    before = overlay.get_attribute("data-view")
    page.get_by_role("button", name="Zoom in").click()
    expect(overlay).not_to_have_attribute("data-view", before)
    check(True, f"{size}: the picture zooms in by its button")
    page.get_by_role("button", name="Close").click()
    page.keyboard.press("Escape")
    expect(page).to_have_url(re.compile(f"/ui/documents/{ids[1]}$"))
    check(True, f"{size}: Escape closes the viewer")
    page.context.close()



if __name__ == "__main__":
    run(walk, prepare=portrait_video)
