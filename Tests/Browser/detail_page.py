"""The detail page in Chromium (Playwright, Debian's chromium), at a phone's size and a desktop's:
a transcript uploaded from the list is opened; its description edited and found again by a word
of it; shared with two schools from the dialog with a password, one school's link opened in a fresh
browser context (no cookie) with that password, then that school removed and the link answering
410; a new version uploaded, a file of a type the transcript refuses refused with the service's
words, the first version restored ("restored from v1"); the filmstrip-free PDF pages shown; the
document deleted after its confirmation, back on the list; axe-core finds no serious or critical
violation on the page or in its dialogs. With a screenshot folder, each size's page is saved there.

    python detail_page.py BASE_URL SAMPLES_FOLDER [SCREENSHOT_FOLDER]   (see walk.py)

Prints one line per check; exits 1 at the first that fails.
"""
import re
import time
import uuid

from playwright.sync_api import expect

from walk import SIZES, check, no_serious_violations, run, signed_in_page


def walk(browser, base, samples, size, shots, _):
    owner = f"athlete-{size}-{uuid.uuid4().hex[:6]}"
    page = signed_in_page(browser, base, size)
    page.goto(f"{base}/?owner={owner}")
    page.get_by_label("Type", exact=True).select_option(label="Transcript")
    page.get_by_label("Files", exact=True).set_input_files(str(samples / "document-5-pages.pdf"))
    page.get_by_role("button", name="Upload", exact=True).click()
    expect(page.locator("#documents .card[data-status=done]")).to_have_count(1)
    started = time.monotonic()
    page.locator("#documents .card a").first.click()
    expect(page.get_by_role("heading", level=1)).to_have_text("document-5-pages.pdf")
    expect(page.locator(".pages img").first).to_be_visible()
    print(f"      {size}: usable after {1000 * (time.monotonic() - started):.0f} ms", flush=True)
    check(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), f"{size}: nothing wider than the screen")
    check(page.locator(".badge").inner_text() == "Transcript", f"{size}: the type badge")
    detail = page.url

    # A document opened while its job runs (an office file, converted first): its pages appear
    # when they are made, without a reload.
    page.goto(f"{base}/?owner={owner}-office")
    page.get_by_label("Files", exact=True).set_input_files(str(samples / "office-report.docx"))
    page.get_by_role("button", name="Upload", exact=True).click()
    expect(page.locator("#documents .card")).to_have_count(1)
    page.locator("#documents .card a").first.click()
    expect(page.get_by_role("heading", level=1)).to_have_text("office-report.docx")
    navigations = page.evaluate("performance.getEntriesByType('navigation').length")
    expect(page.locator(".preview .pages img").first).to_be_visible()
    check(page.evaluate("performance.getEntriesByType('navigation').length") == navigations,
          f"{size}: a document opened while its job runs shows its pages when made, without a reload")
    page.goto(detail)

    # Edit the description, then find the document by a word of it.
    page.get_by_role("button", name="Edit").click()
    dialog = page.get_by_role("dialog", name="Edit")
    expect(dialog).to_be_visible()
    dialog.get_by_label("Description").fill("Junior year, with honours in chemistry")
    no_serious_violations(page, size, "in the Edit dialog")
    dialog.get_by_role("button", name="Save").click()
    expect(dialog).to_be_hidden()
    expect(page.locator("#description")).to_have_text("Junior year, with honours in chemistry")
    page.goto(f"{base}/?owner={owner}&q=chemistry")
    expect(page.locator("#documents .card")).to_have_count(1)
    check(True, f"{size}: the edited description finds the document")
    # Two words from the List's search box: the form sends them as `honours+in`, which the server
    # reads as a space (before: no match, and the box then held `honours+in`).
    page.get_by_label("Search", exact=True).fill("honours in")
    page.get_by_role("button", name="Apply").click()
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
    check(page.locator(".page-text").count() == 5, f"{size}: the pages are described by their text once it is read")

    # Share with two schools, password protected, a text marked.
    page.get_by_role("button", name=re.compile("^Share")).click()
    share = page.get_by_role("dialog", name="Share with schools")
    expect(share).to_be_visible()
    for school in ["Lakeside Prep", "North High"]:
        share.get_by_label("Another school").fill(school)
        share.get_by_role("button", name="Add").click()
    share.get_by_label("Password (optional)").fill("blue-heron-42")
    share.get_by_label("Mark a text on its pages (optional)").fill("sample, 5")
    no_serious_violations(page, size, "in the Share dialog")
    if shots:
        page.screenshot(path=str(shots / f"detail-share-{size}.png"))
    share.get_by_role("button", name="Save").click()
    expect(share.locator("#share-links li")).to_have_count(2)
    link = share.get_by_role("textbox", name="Link for Lakeside Prep").input_value()
    check(link.startswith(base + "/s/"), f"{size}: each school gets a whole, absolute link")

    visitor = browser.new_context(viewport=SIZES[size]).new_page()
    visitor.goto(link)
    no_serious_violations(visitor, size, "on a share's password form")
    visitor.get_by_label("Password").fill("blue-heron-42")
    visitor.get_by_role("button", name="Open").click()
    expect(visitor.get_by_role("heading", level=1)).to_have_text("document-5-pages.pdf")
    check(True, f"{size}: a school opens its password-protected link in a fresh browser")
    pages = visitor.locator("img[src*='highlight=']")
    check(pages.count() == 5, f"{size}: the school's pages show the text its owner marked ({pages.count()} of 5)")
    expect(pages.first).to_be_visible()
    visitor.wait_for_function("() => { const img = document.querySelector(\"img[src*='highlight=']\"); return img.complete && img.naturalWidth > 0 }")
    if shots:
        pages.first.evaluate("img => img.scrollIntoView({block: 'end'})")
        visitor.screenshot(path=str(shots / f"share-highlight-{size}.png"))
    no_serious_violations(visitor, size, "on a shared document")

    share.get_by_role("button", name="Stop sharing with Lakeside Prep").click()
    expect(share.locator("#share-links li")).to_have_count(1)
    share.get_by_role("button", name="Close").click()
    check(visitor.goto(link).status == 410, f"{size}: the removed school's link answers 410")
    page.get_by_role("button", name=re.compile("^Share")).click()
    expect(share.get_by_role("button", name="Make a new link for North High")).to_be_visible()
    share.get_by_role("button", name="Make a new link for North High").click()
    expect(share.get_by_role("textbox", name="Link for North High")).to_have_value(re.compile("^" + re.escape(base) + "/s/"))
    check(True, f"{size}: a school's link, shown once, can be made again")
    share.get_by_role("button", name="Close").click()
    no_serious_violations(visitor, size, "on a withdrawn link's page")
    visitor.context.close()
    expect(page.get_by_role("button", name=re.compile("^Share"))).to_have_text("Share · 1")

    # Versions: a new one, a refused one, then the first restored.
    page.get_by_label("Upload a new version").set_input_files(str(samples / "transcript.txt"))
    page.locator("#new-version").get_by_role("button", name="Upload", exact=True).click()
    expect(page.locator("tbody tr")).to_have_count(2)
    page.get_by_label("Upload a new version").set_input_files(str(samples / "image.webp"))
    page.locator("#new-version").get_by_role("button", name="Upload", exact=True).click()
    expect(page.locator("#new-version-message")).to_have_text("Invalid file type. Transcript requires .pdf, .txt.")
    check(True, f"{size}: a version of another type is refused in the service's words")
    page.get_by_role("button", name="Restore version 1").click()
    expect(page.locator("tbody tr")).to_have_count(3)
    check("restored from v1" in page.locator("tbody tr").first.inner_text(), f"{size}: the restored version says where it came from")
    no_serious_violations(page, size, "on the page")
    if shots:
        page.screenshot(path=str(shots / f"detail-{size}.png"), full_page=False)

    # Delete, after the confirmation, back to the list.
    page.get_by_role("link", name="Delete…").click()
    no_serious_violations(page, size, "on the delete confirmation")
    page.get_by_role("button", name="Delete").click()
    expect(page).to_have_url(re.compile(re.escape(f"/?owner={owner}") + "$"))
    expect(page.locator("#documents .card")).to_have_count(0)
    check(True, f"{size}: deleted, and back on the list")
    page.context.close()



if __name__ == "__main__":
    run(walk)
