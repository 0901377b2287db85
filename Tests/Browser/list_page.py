"""The list page in Chromium (Playwright, Debian's chromium), at a phone's size and a desktop's:
its first document near the top on a phone (the statistics a row that scrolls sideways, the upload
a floating button); five files picked at once in the upload sheet, queued, each with its progress,
none refused (a refusal of the service's pacing waited out as its Retry-After says), become cards
that turn ready without a reload, the statistics and count following; a document uploaded with
its type, title, school and description; an upload on a slow link resumes where it was after the
network drops, and after a reload when the file is picked again, and becomes one document of the
file's bytes; an upload whose last answer was lost is accepted when the server kept it; a file of
the wrong type is stopped in the sheet with the app's words; search, the Filter sheet, removable
filter chips and Clear filters; the sort and the grid/list choice remembered; error pages in the
specification's words; every touch target on a phone at least 44 px; axe-core finds no serious or
critical violation. With a screenshot folder, each size's page is saved there.

    python list_page.py BASE_URL SAMPLES_FOLDER [SCREENSHOT_FOLDER]   (see walk.py; signed in, the
    uploads carry the session's CSRF token)

Prints one line per check; exits 1 at the first that fails.
"""
import hashlib
import re
import time
import uuid

from playwright.sync_api import expect

from walk import WAIT_MS, check, no_serious_violations, run, signed_in_page, small_touch_targets, upload_from_list

UPLOADS = ["document-5-pages.pdf", "image.webp", "photo-exif-orientation-6.jpg", "image-alpha.png", "office-roster.csv"]


def walk(browser, base, samples, size, shots, _):
    owner = f"athlete-{size}-{uuid.uuid4().hex[:6]}"
    page = signed_in_page(browser, base, size)
    started = time.monotonic()
    page.goto(f"{base}/?owner={owner}")
    expect(page.get_by_role("heading", name="Documents", exact=True)).to_be_visible()
    print(f"      {size}: usable after {1000 * (time.monotonic() - started):.0f} ms", flush=True)
    check(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), f"{size}: nothing wider than the screen")
    expect(page.get_by_text("No documents yet")).to_be_visible()
    if size == "phone":
        check(not small_touch_targets(page), f"{size}: every touch target of the empty list is 44 px or more {small_touch_targets(page)}")

    # Five files at once from the upload sheet: queued two at a time, each with a row and its
    # progress, none refused; the first creation is refused as the service paces uploads (429,
    # Retry-After: 1) and waited out. Then cards that become ready by themselves, and the numbers.
    paced = []

    def pace_first(route):
        if route.request.method == "POST" and not paced:
            paced.append(route.request.url)
            route.fulfill(status=429, headers={"Retry-After": "1", "Content-Type": "application/json"},
                          body='{"error": {"code": "queue_full", "message": "Too many uploads are arriving right now."}}')
        else:
            route.continue_()
    page.route("**/v1/uploads?*", pace_first)
    upload_from_list(page, [samples / name for name in UPLOADS])
    rows = page.locator("#uploads li")
    expect(rows).to_have_count(5)
    expect(page.locator("#uploads li .message").filter(has_text="Waiting: the server is busy")).to_have_count(1)
    expect(page.locator("#uploads li.accepted")).to_have_count(5)
    check(page.locator("#uploads li.refused").count() == 0 and len(paced) == 1,
          f"{size}: five files at once are all accepted, a paced refusal waited out")
    page.unroute("**/v1/uploads?*")
    check(page.locator("#uploads li.accepted progress").count() == 5, f"{size}: each accepted upload shows its full progress bar")
    cards = page.locator("#documents .card")
    expect(cards).to_have_count(5)
    expect(page.locator("[data-stat=total]")).to_have_text("5")
    expect(page.locator("[data-stat-detail=total]")).to_have_text("5 versions")
    expect(page.locator("#count")).to_contain_text("5 of 5 total")
    check(True, f"{size}: the statistics and the count follow the uploads without a reload")
    navigations = page.evaluate("performance.getEntriesByType('navigation').length")
    expect(page.locator("#documents .card[data-status=done]")).to_have_count(5)
    expect(page.locator("#documents .card img")).to_have_count(5)
    check(page.evaluate("performance.getEntriesByType('navigation').length") == navigations, f"{size}: the cards turned ready without a reload")
    check(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), f"{size}: the cards fit the screen")
    check(page.evaluate("getComputedStyle(document.querySelector('.card')).borderRadius") == "12px", f"{size}: the stylesheet applies")

    # One file with the form's every field: its title, school and description are the document's.
    upload_from_list(page, [samples / "transcript.txt"], type_label="Transcript", title="Official Transcript (Fall 2025)",
                     school="Stanford", description="Junior year")
    expect(page.locator("#uploads li.accepted")).to_have_count(6)
    expect(page.locator("#documents .card .title").first).to_have_text("Official Transcript (Fall 2025)")
    labels = page.evaluate(f"""fetch('/v1/documents?owner={owner}&q=Official').then(r => r.json())
                               .then(b => b.documents.map(d => [d.title, d.type, d.school, d.description]))""")
    check(labels == [["Official Transcript (Fall 2025)", "transcript", "Stanford", "Junior year"]],
          f"{size}: the upload form's type, title, school and description are the document's {labels}")

    # A slow link (Chrome's own throttling) whose connection drops mid-upload (another request for
    # the upload makes the server end the one in flight, as when a phone resumes on a new network):
    # the upload goes on from what the server kept.
    video = samples / "video-h264.mp4"
    video_bytes = video.read_bytes()
    network = page.context.new_cdp_session(page)

    def link(upload_bytes_per_second):
        network.send("Network.emulateNetworkConditions", {"offline": False, "latency": 0, "downloadThroughput": -1,
                                                          "uploadThroughput": upload_bytes_per_second})

    network.send("Network.enable")
    link(64 * 1024)
    upload_from_list(page, [video], type_label="Highlight Video")
    progress = page.locator("#uploads li progress").last
    deadline = time.monotonic() + WAIT_MS / 1000
    while float(progress.get_attribute("value") or 0) < 25:
        if time.monotonic() > deadline:
            check(False, f"{size}: the upload passed 25 %")
        time.sleep(0.05)
    page.evaluate("""fetch(Object.entries(localStorage).find(([key]) => key.startsWith('docpreview-upload:'))[1],
                           {method: 'HEAD', headers: {'Upload-Draft-Interop-Version': '6'}})""")
    # (Chromium itself sends a request again whose reused connection was reset: then the server's
    # 409 gives the script the offset; else the script asks for it. Either way it goes on from there.)
    link(-1)
    expect(page.locator("#uploads li").last).to_have_class("accepted")
    check(True, f"{size}: an upload went on after its connection dropped")
    network.detach()

    # A reload while the server holds part of an upload (the test sends those bytes itself, while
    # the page's own appends are held), then the same file picked again: the page resumes from
    # what the server kept; and when the server had all of it (only its answer was lost), the page
    # gets the answer the server gave instead of sending the file again.
    held = []

    def hold_appends(route):
        if route.request.method == "PATCH":
            held.append(route)
        else:
            route.continue_()

    def wait_for_an_append(what):
        deadline = time.monotonic() + WAIT_MS / 1000
        while not held:
            if time.monotonic() > deadline:
                check(False, f"{size}: the page sent an append {what}")
            page.wait_for_timeout(50)

    def picked_again_after(kept, completed):
        held.clear()
        page.route("**/v1/uploads/*", hold_appends)
        upload_from_list(page, [video], type_label="Highlight Video")
        wait_for_an_append("for a new upload")
        headers = {"Upload-Draft-Interop-Version": "6", "Upload-Offset": "0", "Upload-Complete": "?1" if completed else "?0",
                   "Content-Type": "application/partial-upload", "X-CSRF-Token": page.evaluate("DocPreview.csrf")}
        sent = page.request.patch(held[0].request.url, headers=headers, data=video_bytes[:kept])
        check(sent.status == (202 if completed else 204), f"{size}: the server kept {kept} bytes of the upload ({sent.status})")
        page.reload()
        held.clear()
        upload_from_list(page, [video], type_label="Highlight Video")
        expect(page.locator("#uploads li").last.locator(".message")).to_have_text(f"Resuming at {100 * kept // len(video_bytes)} %.")
        wait_for_an_append("after resuming")
        if shots and not completed:
            page.locator("#uploads").screenshot(path=str(shots / f"list-resuming-{size}.png"))
        held[0].continue_()
        page.unroute("**/v1/uploads/*")
        expect(page.locator("#uploads li").last).to_have_class("accepted")
        return sent

    picked_again_after(len(video_bytes) * 3 // 10, completed=False)
    digest = hashlib.sha256(video_bytes).hexdigest()
    stored = page.evaluate(f"fetch('/v1/documents?owner={owner}&q=video-h264').then(r => r.json()).then(b => b.documents.map(d => d.sha256))")
    check(stored == [digest], f"{size}: after a reload the upload resumed, one document of the file's bytes ({len(stored)})")
    answered = picked_again_after(len(video_bytes), completed=True).json()["document_id"]
    shown = page.locator("#documents .card").first.get_attribute("data-id")
    check(shown == answered, f"{size}: an upload the server had completed before a reload is answered, not sent again")

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
    upload_from_list(page, [samples / "office-letter.odt"])
    expect(page.locator("#uploads li").last).to_have_class("accepted")
    letters = page.evaluate(f"fetch('/v1/documents?owner={owner}&q=office-letter').then(r => r.json()).then(b => b.documents.length)")
    check(letters == 1, f"{size}: an upload whose last answer was lost is accepted, one document ({letters})")

    # A file of the wrong type: stopped in the sheet, in the app's words, Upload disabled.
    sheet = upload_from_list(page, [samples / "document-5-pages.pdf"], type_label="Highlight Video", send=False)
    expect(sheet.locator("#upload-files-message")).to_have_text("Invalid file type. Highlight Video requires .mp4, .mov, .avi.")
    check(sheet.get_by_role("button", name="Upload", exact=True).is_disabled(), f"{size}: a wrong type is stopped in the sheet with the app's message")
    sheet.get_by_label("Title").fill("   ")
    sheet.get_by_label("Document type").select_option(label="Transcript")
    expect(sheet.locator("#upload-title-message")).to_have_text("A title is required.")
    check(sheet.get_by_role("button", name="Upload", exact=True).is_disabled(), f"{size}: a blank title is required")
    no_serious_violations(page, size, "in the upload sheet")
    if shots:
        page.screenshot(path=str(shots / f"list-upload-{size}.png"))
    sheet.get_by_role("link", name="Cancel").click()
    expect(sheet).to_be_hidden()

    # The first document near the top on a phone (before: 1,068 px down), and the count.
    page.reload()
    first = page.locator("#documents .card").first.bounding_box()
    check(first["y"] < 500, f"{size}: the first document starts {first['y']:.0f} px down")
    total = page.locator("#documents .card").count()
    expect(page.locator("#count")).to_contain_text(f"{total} of {total} total")

    # Search (Enter), the Filter sheet, removable chips, Clear filters (the server's pages).
    page.get_by_label("Search", exact=True).fill("image")
    page.get_by_label("Search", exact=True).press("Enter")
    expect(page.locator("#documents .card")).to_have_count(2)
    check(page.locator("#documents .card .title").first.inner_text().startswith("image"), f"{size}: search finds documents by their title")
    expect(page.get_by_role("link", name="Remove filter Search: image")).to_be_visible()
    page.get_by_role("link", name=re.compile("^Filter documents")).click()
    filters = page.get_by_role("dialog", name="Filter documents")
    expect(filters).to_be_visible()
    no_serious_violations(page, size, "in the Filter sheet")
    if shots:
        page.screenshot(path=str(shots / f"list-filter-{size}.png"))
    page.goto(f"{base}/?owner={owner}")
    page.get_by_role("link", name=re.compile("^Filter documents")).click()
    filters.get_by_label("Transcript").check()
    filters.get_by_label("School").select_option("Stanford")
    filters.get_by_role("button", name="Show documents").click()
    expect(page.locator("#documents .card")).to_have_count(1)
    check(page.get_by_role("link", name=re.compile("^Filter documents. 2 filters active")).count() == 1, f"{size}: the Filter button counts its filters")
    page.get_by_role("link", name="Remove filter School: Stanford").click()
    expect(page.get_by_role("link", name="Remove filter Type: Transcript")).to_be_visible()
    check(page.get_by_role("link", name="Remove filter School: Stanford").count() == 0, f"{size}: a filter chip removes its filter")
    page.get_by_role("link", name="Clear filters").click()
    expect(page.locator("#documents .card")).to_have_count(total)
    check(True, f"{size}: Clear filters shows every document")

    # The sort and the layout, remembered across visits.
    page.get_by_label("Sort").select_option(label="Oldest")
    expect(page).to_have_url(re.compile("sort=oldest"))
    page.goto(f"{base}/?owner={owner}")
    expect(page).to_have_url(re.compile("sort=oldest"))
    check(page.get_by_label("Sort").input_value() == "oldest", f"{size}: the sort is remembered")
    page.get_by_label("Sort").select_option(label="Newest")
    page.get_by_role("button", name="List", exact=True).click()
    page.reload()
    expect(page.locator("#documents")).to_have_class("documents rows")
    check(page.get_by_role("button", name="List", exact=True).get_attribute("aria-pressed") == "true", f"{size}: the list layout is remembered")
    if shots:
        page.screenshot(path=str(shots / f"list-rows-{size}.png"))
    # A row's delete: asked first, then gone from the list, the numbers following.
    doomed = page.locator("#documents .card .title").first.inner_text()
    page.get_by_role("link", name=f"Delete {doomed}").click()
    page.get_by_role("button", name="Delete").click()
    expect(page.locator("#documents .card")).to_have_count(total - 1)
    expect(page.locator("[data-stat=total]")).to_have_text(str(total - 1))
    check(page.locator("#documents .card .title").filter(has_text=doomed).count() == 0, f"{size}: a row's delete removes it from the list")
    total -= 1
    page.get_by_role("button", name="Grid", exact=True).click()

    # A bad list query, an unknown document: pages in the specification's words, the status kept.
    answer = page.goto(f"{base}/?owner={owner}&sort=bogus")
    check(answer.status == 400 and answer.headers["content-type"].startswith("text/html"), f"{size}: a bad list query answers an HTML page, 400")
    expect(page.get_by_role("link", name="Return to Documents")).to_be_visible()
    no_serious_violations(page, size, "on the bad query's page")
    answer = page.goto(f"{base}/ui/documents/{uuid.uuid4()}")
    check(answer.status == 404 and page.get_by_role("heading", name="Document not found").count() == 1, f"{size}: an unknown document: 'Document not found', 404")
    check(page.evaluate("document.documentElement.lang") == "en", f"{size}: the error page has its language")
    no_serious_violations(page, size, "on the not-found page")
    if shots:
        page.screenshot(path=str(shots / f"not-found-{size}.png"))
    page.get_by_role("link", name="Return to Documents").click()
    page.goto(f"{base}/?owner={owner}")

    if size == "phone":
        check(not small_touch_targets(page), f"{size}: every touch target is 44 px or more {small_touch_targets(page)}")
    no_serious_violations(page, size, "on the list")
    if shots:
        page.screenshot(path=str(shots / f"list-{size}.png"), full_page=True)
    page.close()



if __name__ == "__main__":
    run(walk)
