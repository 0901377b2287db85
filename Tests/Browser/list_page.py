"""The list page in Chromium (Playwright, Debian's chromium), at a phone's size and a desktop's:
three files picked and uploaded, each with its progress, become cards that turn ready without a
reload; an upload on a slow link resumes where it was after the network drops, and after a reload
when the file is picked again, and becomes one document of the file's bytes; an upload whose last
answer was lost is accepted when the server kept it; a file of the wrong
type is refused inline with the service's own words; search and the
type chips filter; the grid/list choice is remembered; axe-core finds no serious or critical
violation. With a screenshot folder, each size's page is saved there.

    python list_page.py BASE_URL SAMPLES_FOLDER [SCREENSHOT_FOLDER]   (see walk.py; signed in, the
    uploads carry the session's CSRF token)

Prints one line per check; exits 1 at the first that fails.
"""
import hashlib
import time
import uuid

from playwright.sync_api import expect

from walk import WAIT_MS, check, no_serious_violations, run, signed_in_page

UPLOADS = ["document-5-pages.pdf", "image.webp", "photo-exif-orientation-6.jpg"]


def walk(browser, base, samples, size, shots, _):
    owner = f"athlete-{size}-{uuid.uuid4().hex[:6]}"
    page = signed_in_page(browser, base, size)
    started = time.monotonic()
    page.goto(f"{base}/?owner={owner}")
    expect(page.get_by_role("heading", name=owner)).to_be_visible()
    print(f"      {size}: usable after {1000 * (time.monotonic() - started):.0f} ms", flush=True)
    check(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), f"{size}: nothing wider than the screen")

    # Three files at once: each gets a row with progress, then a card that becomes ready by itself.
    page.get_by_label("Files", exact=True).set_input_files([str(samples / name) for name in UPLOADS])
    page.get_by_role("button", name="Upload", exact=True).click()
    rows = page.locator("#uploads li")
    expect(rows).to_have_count(3)
    expect(page.locator("#uploads li.accepted")).to_have_count(3)
    check(page.locator("#uploads li.accepted progress").count() == 3, f"{size}: each accepted upload shows its full progress bar")
    cards = page.locator("#documents .card")
    expect(cards).to_have_count(3)
    navigations = page.evaluate("performance.getEntriesByType('navigation').length")
    expect(page.locator("#documents .card[data-status=done]")).to_have_count(3)
    expect(page.locator("#documents .card img")).to_have_count(3)
    check(page.evaluate("performance.getEntriesByType('navigation').length") == navigations, f"{size}: the cards turned ready without a reload")
    check(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), f"{size}: the cards fit the screen")
    check(page.evaluate("getComputedStyle(document.querySelector('.card')).borderRadius") == "8px", f"{size}: the stylesheet applies")

    # A slow link (Chrome's own throttling) whose connection drops mid-upload (another request for
    # the upload makes the server end the one in flight, as when a phone resumes on a new network),
    # then a reload mid-upload: each upload resumes from what the server kept and ends as one
    # document of exactly the file.
    video = samples / "video-h264.mp4"
    network = page.context.new_cdp_session(page)

    def link(upload_bytes_per_second):
        network.send("Network.emulateNetworkConditions", {"offline": False, "latency": 0, "downloadThroughput": -1,
                                                          "uploadThroughput": upload_bytes_per_second})

    def upload_past(percent):
        page.get_by_label("Files", exact=True).set_input_files(str(video))
        page.get_by_role("button", name="Upload", exact=True).click()
        progress = page.locator("#uploads li progress").first
        deadline = time.monotonic() + WAIT_MS / 1000
        while float(progress.get_attribute("value") or 0) < percent:
            if time.monotonic() > deadline:
                check(False, f"{size}: the upload passed {percent} %")
            time.sleep(0.05)

    network.send("Network.enable")
    link(64 * 1024)
    upload_past(25)
    page.evaluate("""fetch(Object.entries(localStorage).find(([key]) => key.startsWith('docpreview-upload:'))[1],
                           {method: 'HEAD', headers: {'Upload-Draft-Interop-Version': '6'}})""")
    # (Chromium itself sends a request again whose reused connection was reset: then the server's
    # 409 gives the script the offset; else the script asks for it. Either way it goes on from there.)
    link(-1)
    expect(page.locator("#uploads li").first).to_have_class("accepted")
    check(True, f"{size}: an upload went on after its connection dropped")
    link(64 * 1024)
    upload_past(30)
    page.reload()
    page.get_by_label("Files", exact=True).set_input_files(str(video))
    page.get_by_role("button", name="Upload", exact=True).click()
    expect(page.locator("#uploads li").first.locator(".message")).to_contain_text("Resuming at")
    if shots:
        page.locator("#uploads").screenshot(path=str(shots / f"list-resuming-{size}.png"))
    link(-1)
    expect(page.locator("#uploads li").first).to_have_class("accepted")
    digest = hashlib.sha256(video.read_bytes()).hexdigest()
    stored = page.evaluate(f"fetch('/v1/documents?owner={owner}&q=video-h264').then(r => r.json()).then(b => b.documents.map(d => d.sha256))")
    check(stored == [digest], f"{size}: after a reload the upload resumed, one document of the file's bytes ({len(stored)})")
    network.detach()

    # The answer to the request that completed an upload is lost on its way back (the server kept
    # the file; the page's XMLHttpRequest reports an error instead of its answer): the script asks
    # where the upload stands, sends the last request again and gets the answer the server gave.
    page.evaluate("""(() => {
      const { setRequestHeader, addEventListener } = XMLHttpRequest.prototype;
      let lost = false;
      XMLHttpRequest.prototype.setRequestHeader = function (name, value) {
        if (name === "Upload-Complete" && value === "?1" && !lost) { lost = true; this.answerLost = true; }
        return setRequestHeader.call(this, name, value);
      };
      XMLHttpRequest.prototype.addEventListener = function (type, listener, ...rest) {
        if (type === "error") this.failed = listener;
        const heard = type === "load" ? (event) => (this.answerLost ? this.failed(event) : listener(event)) : listener;
        return addEventListener.call(this, type, heard, ...rest);
      };
    })()""")
    page.get_by_label("Files", exact=True).set_input_files(str(samples / "office-letter.odt"))
    page.get_by_role("button", name="Upload", exact=True).click()
    expect(page.locator("#uploads li").first).to_have_class("accepted")
    letters = page.evaluate(f"fetch('/v1/documents?owner={owner}&q=office-letter').then(r => r.json()).then(b => b.documents.length)")
    check(letters == 1, f"{size}: an upload whose last answer was lost is accepted, one document ({letters})")

    # A file of the wrong type: refused inline, in the service's words.
    page.get_by_label("Type", exact=True).select_option(label="Highlight Video")
    page.get_by_label("Files", exact=True).set_input_files(str(samples / "document-5-pages.pdf"))
    page.get_by_role("button", name="Upload", exact=True).click()
    refused = page.locator("#uploads li.refused .message")
    expect(refused).to_have_text("Invalid file type. Highlight Video requires .mp4, .mov, .avi.")
    check(True, f"{size}: a wrong type is refused inline with the app's message")
    page.get_by_label("Type", exact=True).select_option(value="")

    # Search, chips and the remembered layout (after a reload, to see the server's page).
    page.reload()
    page.get_by_label("Search", exact=True).fill("image")
    page.get_by_role("button", name="Apply").click()
    expect(page.locator("#documents .card")).to_have_count(1)
    check(page.locator("#documents .card b").inner_text() == "image.webp", f"{size}: search finds a document by its title")
    page.goto(f"{base}/?owner={owner}")
    chip = page.get_by_role("navigation", name="Types").get_by_role("link").first
    check(chip.inner_text().startswith("All"), f"{size}: the type chips start with All")
    page.get_by_role("button", name="List view").click()
    page.reload()
    expect(page.locator("#documents")).to_have_class("documents rows")
    check(page.get_by_role("button", name="List view").get_attribute("aria-pressed") == "true", f"{size}: the list layout is remembered")
    page.get_by_role("button", name="List view").click()

    no_serious_violations(page, size, "on the list")
    if shots:
        page.screenshot(path=str(shots / f"list-{size}.png"), full_page=True)
    page.close()



if __name__ == "__main__":
    run(walk)
