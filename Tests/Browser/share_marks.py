"""A watermarked share and a redacted one (issue 70, items 3 and 2), in Chromium at a phone's size and
a desktop's. Watermarked: the owner
shares a 5-page transcript with a school from the Detail page's Share dialog, "Watermark with the
school's name" and downloads checked; the dialog lists the link as watermarked. The school opens it
in a fresh browser: the page says what its pictures carry, every page's picture differs from the
owner's own picture of that page (compared in the browser, pixel by pixel, in a canvas), and its
download is a PDF, not the original. axe-core finds no serious or critical violation on the page or
in the dialog. Redacted: the owner of a transcript with a date of birth and a phone number checks
what to remove, asks what would be, sees both found on the page's picture, unchecks the phone number,
drags a box over a word nothing found and shares; the school's page describes its page without the
date of birth or that word, with the phone number. A watermarked
link of a video shows its marked poster until its film with the watermark is made, then plays that
film. Every touch target of the
dialog and the shared page is 44 px or more. With a screenshot folder, the dialogs and the shared
pages are saved there.

    python share_marks.py BASE_URL SAMPLES_FOLDER [SCREENSHOT_FOLDER]   (see walk.py)

Prints one line per check; exits 1 at the first that fails.
"""
import json
import os
import urllib.parse
import urllib.request
from pathlib import Path

from playwright.sync_api import expect

from walk import SIZES, check, no_serious_violations, run, signed_in_page, small_touch_targets

# The share of a page's pixels that differ by more than 16 levels in a channel, between two images
# of the same size (both fetched by the page, drawn on canvases).
DIFFERING = """async ([shared, own]) => {
  const pixels = async (url, init) => {
    const bitmap = await createImageBitmap(await (await fetch(url, init)).blob());
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const context = canvas.getContext("2d");
    context.drawImage(bitmap, 0, 0);
    return context.getImageData(0, 0, bitmap.width, bitmap.height);
  };
  const a = await pixels(shared);
  const b = await pixels(own.url, { headers: { Authorization: `Bearer ${own.token}` } });
  if (a.width !== b.width || a.height !== b.height) return -1;
  let differing = 0;
  for (let at = 0; at < a.data.length; at += 4) {
    if ([0, 1, 2].some((band) => Math.abs(a.data[at + band] - b.data[at + band]) > 16)) differing += 1;
  }
  return differing / (a.width * a.height);
}"""


TRANSCRIPT = """Official Transcript - Lincoln High School
Student: Ana Rivera
Date of Birth: 03/14/2008
Phone: (555) 123-4567
AP Chemistry 5, Cumulative GPA 3.87
"""


def prepared_files(folder):
    transcript = Path(folder) / "transcript-with-birth-date.txt"
    transcript.write_text(TRANSCRIPT)
    return transcript


def upload(base, path, title):
    query = urllib.parse.urlencode({"filename": path.name, "title": title, "owner": "ana"})
    request = urllib.request.Request(f"{base}/v1/documents?{query}", data=path.read_bytes(), method="POST",
                                     headers={"Authorization": f"Bearer {os.environ['DOCPREVIEW_TOKEN']}",
                                              "Content-Type": "application/octet-stream"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())["document_id"]


def word_box(base, document, text):
    """The box of the word `text` on page 1 of `document` as fractions of the page (its text API's)."""
    request = urllib.request.Request(f"{base}/v1/documents/{document}/text?page=1",
                                     headers={"Authorization": f"Bearer {os.environ['DOCPREVIEW_TOKEN']}", "Accept": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        page = json.loads(response.read())["pages"][0]
    box = next(word["box"] for word in page["words"] if word["text"] == text)
    return [box[0] / page["width"], box[1] / page["height"], box[2] / page["width"], box[3] / page["height"]]


def redacted(browser, base, size, shots, transcript):
    document = upload(base, transcript, f"Redacted transcript {size}")
    page = signed_in_page(browser, base, size)
    page.goto(f"{base}/ui/documents/{document}")
    page.get_by_role("button", name="Share document with schools").click()
    share = page.get_by_role("dialog", name="Share Document")
    share.get_by_label("Another school").fill("Lakeside Prep")
    share.get_by_role("button", name="Add").click()
    share.locator("summary").click()
    share.get_by_label("Dates of birth").check()
    share.get_by_label("Phone numbers").check()
    found = share.locator("#share-redact-found")
    status = share.locator("#share-redact-status")
    # The document's words are read by its text job after its preview: asked again until they are.
    for _ in range(120):
        share.get_by_role("button", name="Show what is removed").click()
        expect(status).not_to_have_text("Looking…")
        if "Page 1" in found.inner_text():
            break
        page.wait_for_timeout(500)
    check("03/14/2008" in found.inner_text() and "(555) 123-4567" in found.inner_text(),
          f"{size}: the owner sees the date of birth and the phone number found on page 1 before the link is made")
    picture = found.locator(".redact-page img")
    picture.scroll_into_view_if_needed()
    page.wait_for_function("() => { const img = document.querySelector('.redact-page img'); return img.complete && img.naturalWidth > 0 }")
    boxes = found.locator(".redact-box.found")
    check(boxes.count() >= 3, f"{size}: the page's picture shows the boxes found on it ({boxes.count()}: the date, the phone number's two words)")
    found.get_by_label("phone: “(555) 123-4567”").uncheck()
    check(found.locator(".redact-box.found.kept").count() == 2, f"{size}: unchecked, the phone number's boxes are shown kept")
    # The owner drags a box over "Chemistry", which nothing finds.
    chemistry = word_box(base, document, "Chemistry")
    picture.evaluate("img => img.scrollIntoView({ block: 'start' })")
    frame = picture.bounding_box()
    at = lambda x, y: (frame["x"] + x * frame["width"], frame["y"] + y * frame["height"])
    page.mouse.move(*at(chemistry[0] - 0.01, chemistry[1] - 0.005))
    page.mouse.down()
    page.mouse.move(*at((chemistry[0] + chemistry[2]) / 2, chemistry[3]), steps=4)
    page.mouse.move(*at(chemistry[2] + 0.01, chemistry[3] + 0.005), steps=4)
    page.mouse.up()
    check(found.locator(".redact-box.drawn").count() == 1 and found.get_by_label("a box you drew").is_checked(),
          f"{size}: a box dragged across the page is drawn on it and listed, checked")
    check(not small_touch_targets(page), f"{size}: every touch target of the dialog is 44 px or more {small_touch_targets(page)}")
    if shots:
        found.scroll_into_view_if_needed()
        page.screenshot(path=str(shots / f"detail-share-redact-{size}.png"))
    no_serious_violations(page, size, "in the Share dialog with what a redaction finds")
    share.get_by_role("button", name="Save").click()
    expect(share.locator("#share-links li", has_text="Lakeside Prep")).to_contain_text("redacted")
    check(True, f"{size}: the dialog lists the link as redacted")
    link = share.get_by_role("textbox", name="Link for Lakeside Prep").input_value()
    visitor = browser.new_context(viewport=SIZES[size]).new_page()
    visitor.goto(link)
    described = visitor.locator(".page-text").first.text_content()
    check("03/14/2008" not in described and "[redacted]" in described and "(555) 123-4567" in described,
          f"{size}: the school's page text has no date of birth, and the phone number the owner kept: {described!r}")
    check("Chemistry" not in described and "Cumulative" in described,
          f"{size}: nor the word under the box the owner drew: {described!r}")
    check(visitor.get_by_role("link", name="Download (PDF, redacted)").count() == 0, f"{size}: no download was allowed")
    if shots:
        visitor.wait_for_function("() => { const img = document.querySelector('img[data-page]'); return img.complete && img.naturalWidth > 0 }")
        visitor.screenshot(path=str(shots / f"share-redact-{size}.png"))
    no_serious_violations(visitor, size, "on a redacted shared document")
    visitor.context.close()
    page.context.close()


def walk(browser, base, samples, size, shots, transcript):
    redacted(browser, base, size, shots, transcript)
    watermarked_video(browser, base, samples, size, shots)
    document = upload(base, Path(samples) / "document-5-pages.pdf", f"Transcript {size}")
    page = signed_in_page(browser, base, size)
    page.goto(f"{base}/ui/documents/{document}")
    page.get_by_role("button", name="Share document with schools").click()
    share = page.get_by_role("dialog", name="Share Document")
    expect(share).to_be_visible()
    share.get_by_label("Another school").fill("North High")
    share.get_by_role("button", name="Add").click()
    share.locator("summary").click()
    share.get_by_label("Allow downloading the original").check()
    share.get_by_label("Watermark with the school's name").check()
    if shots:
        page.screenshot(path=str(shots / f"detail-share-watermark-{size}.png"))
    share.get_by_role("button", name="Save").click()
    # (Until the links come back, the list says there is none: waited for the link itself.)
    expect(share.locator("#share-links li", has_text="North High")).to_contain_text("watermarked")
    check(True, f"{size}: the dialog lists the link as watermarked")
    no_serious_violations(page, size, "in the Share dialog with the watermark's option")
    link = share.get_by_role("textbox", name="Link for North High").input_value()

    visitor = browser.new_context(viewport=SIZES[size]).new_page()
    visitor.goto(link)
    note = visitor.locator("main .note", has_text="Shared with North High")
    expect(note).to_be_visible()
    check(True, f"{size}: the shared page says what its pictures carry: {note.inner_text()}")
    images = visitor.locator("img[data-page]")
    expect(images).to_have_count(5)
    token = os.environ["DOCPREVIEW_TOKEN"]
    for number in range(1, 6):
        shared = images.nth(number - 1).get_attribute("src")
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(shared).query))
        own = f"/v1/documents/{document}/preview?" + urllib.parse.urlencode(
            {name: value for name, value in query.items() if name not in ("exp", "kid", "sig", "share")})
        differing = visitor.evaluate(DIFFERING, [shared, {"url": own, "token": token}])
        check(0.005 < differing < 0.3, f"{size}: page {number} carries the watermark ({differing:.1%} of its pixels differ from the owner's)")
    download = visitor.get_by_role("link", name="Download (PDF, watermarked)")
    href = download.get_attribute("href")
    answer = visitor.request.get(urllib.parse.urljoin(link, href))
    original = (Path(samples) / "document-5-pages.pdf").read_bytes()
    check(answer.ok and answer.headers["content-type"] == "application/pdf" and answer.body() != original,
          f"{size}: its download is a PDF rebuilt of the watermarked pages, not the original")
    if shots:
        images.first.evaluate("img => img.scrollIntoView({block: 'start'})")
        visitor.wait_for_function("() => [...document.querySelectorAll('img[data-page]')].slice(0, 2).every(img => img.complete && img.naturalWidth > 0)")
        visitor.screenshot(path=str(shots / f"share-watermark-{size}.png"))
    check(not small_touch_targets(visitor), f"{size}: every touch target of the shared page is 44 px or more {small_touch_targets(visitor)}")
    no_serious_violations(visitor, size, "on a watermarked shared document")
    visitor.context.close()
    page.context.close()


def watermarked_video(browser, base, samples, size, shots):
    """A watermarked link of a video: its poster, marked, until the film with the watermark in its
    frames is made; then that film plays."""
    document = upload(base, Path(samples) / "video-h264.mp4", f"Game {size}")
    request = urllib.request.Request(f"{base}/v1/documents/{document}/shares", data=json.dumps({"label": "North High", "watermark": True}).encode(),
                                     method="POST", headers={"Authorization": f"Bearer {os.environ['DOCPREVIEW_TOKEN']}",
                                                             "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        link = base + json.loads(response.read())["url"]
    visitor = browser.new_context(viewport=SIZES[size]).new_page()
    for _ in range(240):
        visitor.goto(link)
        if visitor.locator("video").count():
            break
        if visitor.locator(".media img").count():
            expect(visitor.locator("main .note", has_text="not playable yet")).to_be_visible()
        visitor.wait_for_timeout(500)
    video = visitor.locator("video")
    check(video.count() == 1, f"{size}: a watermarked video's link plays once its marked film is made")
    sources = visitor.eval_on_selector_all("video source", "sources => sources.map(source => source.src)")
    check(sources and all("/renditions/mp4" in source or "/content" in source for source in sources),
          f"{size}: it plays the link's own film, nothing of the video's ladder or original {sources}")
    visitor.wait_for_function("() => document.querySelector('video').readyState >= 2")
    duration = visitor.evaluate("() => document.querySelector('video').duration")
    check(abs(duration - 3) < 0.2, f"{size}: the marked film is the whole video ({duration:.2f} s)")
    visitor.evaluate("() => { const video = document.querySelector('video'); video.currentTime = 1.5 }")
    visitor.wait_for_function("() => document.querySelector('video').readyState >= 2 && !document.querySelector('video').seeking")
    if shots:
        visitor.screenshot(path=str(shots / f"share-watermark-video-{size}.png"))
    no_serious_violations(visitor, size, "on a watermarked video's shared page")
    visitor.context.close()


if __name__ == "__main__":
    run(walk, prepared_files)
