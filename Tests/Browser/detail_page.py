"""The detail page in Chromium (Playwright, Debian's chromium), at a phone's size and a desktop's:
a transcript uploaded from the list is opened; its title, school and description edited (a blank
title and an over-long one refused in the dialog, the school chosen from the owner's list, the
School fact following without a reload, a lost network said as such) and found again by a word
of it; shared with two schools from the dialog with a password, one school's link opened in a fresh
browser context (no cookie) with that password; the dialog reopened lists both live links whole
(before: only after the Save that made them) and a later Save keeps them; a new link made only
after a confirmation; that school removed and the link answering 410; a new version uploaded with
its progress, a file of a type the transcript refuses refused with the service's words, the first
version restored after its confirmation ("restored from v1"); the document deleted after its
confirmation, back on the list; confirming the delete again in a stale tab answers the
specification's "Document not found" page (404); a session that ended sends the page's scripts to
sign-in; every touch target on a phone at least 44 px; axe-core finds no serious or critical
violation on the page or in its dialogs. With a screenshot folder, each size's page is saved there.

    python detail_page.py BASE_URL SAMPLES_FOLDER [SCREENSHOT_FOLDER]   (see walk.py)

Prints one line per check; exits 1 at the first that fails.
"""
import os
import re
import time
import uuid

from playwright.sync_api import expect

from walk import SIZES, check, no_serious_violations, run, signed_in_page, small_touch_targets, upload_from_list


def walk(browser, base, samples, size, shots, _):
    owner = f"athlete-{size}-{uuid.uuid4().hex[:6]}"
    page = signed_in_page(browser, base, size)
    page.goto(f"{base}/?owner={owner}")
    upload_from_list(page, [samples / "document-5-pages.pdf"], type_label="Transcript")
    expect(page.locator("#documents .card[data-status=done]")).to_have_count(1)
    started = time.monotonic()
    page.locator("#documents .card a").first.click()
    expect(page.get_by_role("heading", level=1)).to_have_text("document-5-pages.pdf")
    expect(page.locator(".pages img").first).to_be_visible()
    print(f"      {size}: usable after {1000 * (time.monotonic() - started):.0f} ms", flush=True)
    check(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), f"{size}: nothing wider than the screen")
    check(page.locator(".heading .badge").inner_text() == "Transcript", f"{size}: the type badge")
    detail = page.url

    # A document opened while its job runs (an office file, converted first): its pages appear
    # when they are made, without a reload.
    page.goto(f"{base}/?owner={owner}-office")
    upload_from_list(page, [samples / "office-report.docx"])
    expect(page.locator("#documents .card")).to_have_count(1)
    page.locator("#documents .card a").first.click()
    expect(page.get_by_role("heading", level=1)).to_have_text("office-report.docx")
    navigations = page.evaluate("performance.getEntriesByType('navigation').length")
    expect(page.locator(".preview .pages img").first).to_be_visible()
    check(page.evaluate("performance.getEntriesByType('navigation').length") == navigations,
          f"{size}: a document opened while its job runs shows its pages when made, without a reload")
    page.goto(detail)

    # Edit: a blank or over-long title is refused in the dialog; a lost network is said as such;
    # then the title, a school from the owner's list (or another) and the description, the page
    # following without a reload. Then the document is found by a word of its description.
    page.get_by_role("button", name="Edit document metadata").click()
    dialog = page.get_by_role("dialog", name="Edit Document")
    expect(dialog).to_be_visible()
    save = dialog.get_by_role("button", name="Save")
    dialog.get_by_label("Title").fill("   ")
    expect(dialog.locator("#edit-title-message")).to_have_text("A title is required.")
    check(save.is_disabled(), f"{size}: a title of only spaces cannot be saved")
    check(dialog.get_by_label("Title").get_attribute("maxlength") == "100"
          and dialog.get_by_label("Description").get_attribute("maxlength") == "500", f"{size}: the title takes 100 characters, the description 500")
    dialog.get_by_label("Title").fill("Official Transcript")
    dialog.get_by_label("School", exact=True).select_option(label="Another school…")
    dialog.get_by_label("Another school's name").fill("Stanford")
    dialog.get_by_label("Description").fill("Junior year, with honours in chemistry")
    page.context.set_offline(True)
    expect(page.locator(".offline")).to_have_text("No internet connection. Check your connection.")
    check(page.locator("#share-open").get_attribute("aria-disabled") == "true", f"{size}: offline, a banner says so and Share is off")
    save.click()
    expect(dialog.locator("#edit-message")).to_contain_text("Check your connection")
    check("Failed to fetch" not in dialog.locator("#edit-message").inner_text(), f"{size}: a lost network is said in words, not 'Failed to fetch'")
    page.context.set_offline(False)
    expect(page.locator(".offline")).to_be_hidden()
    no_serious_violations(page, size, "in the Edit dialog")
    if shots:
        page.screenshot(path=str(shots / f"detail-edit-{size}.png"))
    save.click()
    expect(dialog).to_be_hidden()
    expect(page.locator("#description")).to_have_text("Junior year, with honours in chemistry")
    expect(page.locator("#title")).to_have_text("Official Transcript")
    expect(page.locator("[data-fact=school]")).to_have_text("Stanford")
    check(True, f"{size}: the title, description and School fact follow the Save without a reload")
    page.reload()
    page.get_by_role("button", name="Edit document metadata").click()
    check(dialog.get_by_label("School", exact=True).input_value() == "Stanford", f"{size}: the school is one of the owner's list from then on")
    dialog.get_by_role("button", name="Cancel").click()
    page.goto(f"{base}/?owner={owner}&q=chemistry")
    expect(page.locator("#documents .card")).to_have_count(1)
    check(True, f"{size}: the edited description finds the document")
    # Two words from the List's search box: the form sends them as `honours+in`, which the server
    # reads as a space (before: no match, and the box then held `honours+in`).
    page.get_by_label("Search", exact=True).fill("honours in")
    page.get_by_label("Search", exact=True).press("Enter")
    expect(page.locator("#documents .card")).to_have_count(1)
    check(page.get_by_label("Search", exact=True).input_value() == "honours in", f"{size}: a two-word search matches and keeps its words")
    page.goto(detail)

    # The document's text is read by the job after its preview (the pages are then described by it):
    # a link shared from then on marks the text its owner chose.
    for _ in range(150):
        if page.locator(".page-text").count():
            break
        page.wait_for_timeout(200)
        page.reload()
    # (The pages past the first three are made as they come near: scrolled to.)
    page.locator(".pages img").nth(2).scroll_into_view_if_needed()
    expect(page.locator(".pages img")).to_have_count(5)
    expect(page.locator(".page-text")).to_have_count(5)
    check(page.locator("#page-text-5").count() == 1, f"{size}: the pages are described by their text once it is read (those the script made too)")

    # Share with two schools, password protected, a text marked.
    page.get_by_role("button", name="Share document with schools").click()
    share = page.get_by_role("dialog", name="Share Document")
    expect(share).to_be_visible()
    check(share.get_by_role("button", name="Save").is_disabled(), f"{size}: Save waits until a school is chosen")
    for school in ["Lakeside Prep", "North High"]:
        share.get_by_label("Another school").fill(school)
        share.get_by_role("button", name="Add").click()
    share.locator("summary").click()
    share.get_by_label("Password (optional)").fill("blue-heron-42")
    share.get_by_label("Mark a text on its pages (optional)").fill("sample, 5")
    no_serious_violations(page, size, "in the Share dialog")
    if shots:
        page.screenshot(path=str(shots / f"detail-share-{size}.png"))
    share.get_by_role("button", name="Save").click()
    expect(share.locator("#share-links li")).to_have_count(2)
    link = share.get_by_role("textbox", name="Link for Lakeside Prep").input_value()
    check(link.startswith(base + "/s/"), f"{size}: each school gets a whole, absolute link")
    north = share.get_by_role("textbox", name="Link for North High").input_value()

    # Closed and opened again (or after a reload): the live links are listed whole, with their
    # counts; a later Save with another school keeps them (before: "New link" for each, revoking).
    share.get_by_role("button", name="Close").click()
    page.reload()
    page.get_by_role("button", name="Share document with schools").click()
    expect(share.get_by_role("textbox", name="Link for Lakeside Prep")).to_have_value(link)
    check(share.get_by_role("textbox", name="Link for North High").input_value() == north, f"{size}: reopened, the dialog lists each live link whole")
    links_box = share.locator("#share-links").bounding_box()
    check(links_box["y"] < SIZES[size]["height"], f"{size}: the links are above the fold ({links_box['y']:.0f} px)")
    check("opened 0×" in share.locator("#share-links li").first.inner_text(), f"{size}: each link says how often it was opened")
    if shots:
        page.screenshot(path=str(shots / f"detail-share-links-{size}.png"))

    visitor = browser.new_context(viewport=SIZES[size]).new_page()
    visitor.goto(link)
    no_serious_violations(visitor, size, "on a share's password form")
    visitor.get_by_label("Password").fill("blue-heron-42")
    visitor.get_by_role("button", name="Open").click()
    expect(visitor.get_by_role("heading", level=1)).to_have_text("Official Transcript")
    check(True, f"{size}: a school opens its password-protected link in a fresh browser")
    pages = visitor.locator("img[src*='highlight=']")
    check(pages.count() == 5, f"{size}: the school's pages show the text its owner marked ({pages.count()} of 5)")
    expect(pages.first).to_be_visible()
    visitor.wait_for_function("() => { const img = document.querySelector(\"img[src*='highlight=']\"); return img.complete && img.naturalWidth > 0 }")
    if shots:
        pages.first.evaluate("img => img.scrollIntoView({block: 'end'})")
        visitor.screenshot(path=str(shots / f"share-highlight-{size}.png"))
    no_serious_violations(visitor, size, "on a shared document")

    # A new link only after a confirmation (dismissed: nothing changes; accepted: a new one).
    page.once("dialog", lambda question: question.dismiss())
    share.get_by_role("button", name="Make a new link for North High").click()
    check(share.get_by_role("textbox", name="Link for North High").input_value() == north, f"{size}: a dismissed confirmation keeps the link")
    page.once("dialog", lambda question: question.accept())
    share.get_by_role("button", name="Make a new link for North High").click()
    expect(share.get_by_role("textbox", name="Link for North High")).not_to_have_value(north)
    check(visitor.goto(north).status == 410, f"{size}: a confirmed new link replaces the old one (410)")
    expect(share.get_by_role("textbox", name="Link for Lakeside Prep")).to_have_value(link)

    page.once("dialog", lambda question: question.accept())
    share.get_by_role("button", name="Stop sharing with Lakeside Prep").click()
    expect(share.locator("#share-links li")).to_have_count(1)
    share.get_by_role("button", name="Close").click()
    check(visitor.goto(link).status == 410, f"{size}: the removed school's link answers 410")
    no_serious_violations(visitor, size, "on a withdrawn link's page")
    visitor.context.close()
    expect(page.get_by_role("button", name="Share document with schools")).to_have_text("Share · 1")

    # Versions: a new one with its progress, a refused one, then the first restored after its confirmation.
    versions = page.locator(".versions li")
    page.locator("#new-version-file").set_input_files(str(samples / "transcript.txt"))
    expect(versions).to_have_count(2)
    check(True, f"{size}: a new version is uploaded from the page")
    page.locator("#new-version-file").set_input_files(str(samples / "image.webp"))
    expect(page.locator("#new-version-message")).to_have_text("Upload failed: Invalid file type. Transcript requires .pdf, .txt.")
    check(True, f"{size}: a version of another type is refused in the service's words")
    # (What the message said at each progress event, kept across the page's opening of the new version.)
    page.evaluate("""(() => { const send = XMLHttpRequest.prototype.send;
      XMLHttpRequest.prototype.send = function (body) { this.upload.addEventListener('progress', () => sessionStorage.setItem('progressSeen',
        JSON.stringify([...JSON.parse(sessionStorage.getItem('progressSeen') || '[]'), document.getElementById('new-version-message').textContent])));
        return send.call(this, body); }; })()""")
    page.locator("#new-version-file").set_input_files(str(samples / "office-transcript-utf16.txt"))
    expect(versions).to_have_count(3)
    seen = page.evaluate("JSON.parse(sessionStorage.getItem('progressSeen') || '[]')")
    check(any(re.search(r"Uploading office-transcript-utf16.txt: \d+%", text) for text in seen), f"{size}: a new version shows its progress {seen[-1:]}")
    page.get_by_role("link", name="Restore version 1").click()
    expect(page.get_by_role("heading", name="Restore this version?")).to_be_visible()
    check("The current version will be marked as archived" in page.locator("main").inner_text(), f"{size}: Restore asks first, in the specification's words")
    no_serious_violations(page, size, "on the restore confirmation")
    page.get_by_role("link", name="Cancel").click()
    expect(versions).to_have_count(3)
    page.get_by_role("link", name="Restore version 1").click()
    page.get_by_role("button", name="Restore").click()
    expect(versions).to_have_count(4)
    check("restored from v1" in versions.first.inner_text(), f"{size}: the restored version says where it came from")
    if size == "phone":
        restore = page.get_by_role("link", name="Restore version 2").bounding_box()
        check(restore["x"] + restore["width"] <= SIZES[size]["width"], f"{size}: Restore is on the screen, no table scrolled sideways")
        check(not small_touch_targets(page), f"{size}: every touch target is 44 px or more {small_touch_targets(page)}")
    no_serious_violations(page, size, "on the page")
    if shots:
        page.screenshot(path=str(shots / f"detail-{size}.png"), full_page=False)

    # A session that ends: the page's next request sends it to sign-in, and back after.
    if os.environ.get("DOCPREVIEW_TOKEN"):
        cookies = page.context.cookies()
        page.context.clear_cookies()
        page.get_by_role("button", name="Share document with schools").click()
        expect(page).to_have_url(re.compile("/ui/signin"))
        check(True, f"{size}: a request after the session ended goes to sign-in")
        page.context.add_cookies(cookies)
        page.goto(detail)

    # Delete, after the confirmation, back to the list; the same confirmation sent again from a
    # stale tab answers the specification's page.
    page.get_by_role("link", name=re.compile("^Delete document")).click()
    check("This action cannot be undone" in page.locator("main").inner_text(), f"{size}: Delete asks first, in the specification's words")
    no_serious_violations(page, size, "on the delete confirmation")
    stale = page.context.new_page()
    stale.goto(page.url)
    page.get_by_role("button", name="Delete").click()
    expect(page).to_have_url(re.compile(re.escape(f"/?owner={owner}") + "$"))
    expect(page.locator("#documents .card")).to_have_count(0)
    check(True, f"{size}: deleted, and back on the list")
    with stale.expect_response(lambda answer: "/delete" in answer.url and answer.request.method == "POST") as confirmed:
        stale.get_by_role("button", name="Delete").click()
    check(confirmed.value.status == 404, f"{size}: a stale tab's delete answers 404")
    expect(stale.get_by_role("heading", name="Document not found")).to_be_visible()
    expect(stale.get_by_role("link", name="Return to Documents")).to_be_visible()
    no_serious_violations(stale, size, "on a stale tab's not-found page")
    answer = page.goto(detail)
    check(answer.status == 404 and page.get_by_role("heading", name="Document not found").count() == 1,
          f"{size}: a deleted document's page: 'Document not found', 404")
    answer = page.goto(detail + "/view")
    check(answer.status == 404 and page.get_by_role("link", name="Return to Documents").count() == 1,
          f"{size}: a deleted document's viewer: 'Document not found', 404")
    page.context.close()



if __name__ == "__main__":
    run(walk)
