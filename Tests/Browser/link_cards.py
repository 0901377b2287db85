"""Links' cards on the Detail page in Chromium, at a phone's size and a desktop's: a transcript
uploaded with a description that holds three links (an article, a YouTube-shaped watch page, an
X-shaped post with its embed data's photo, all on the loopback link test site) shows a card for
each under the description — its picture (a thumbnail of ours, loaded), site, title, author and date; the description edited
to one link gives one card without a reload; a link that gives no card stays a link with the
reason; every card at least 44 px tall; axe-core finds no serious or critical violation. With a
screenshot folder, each size's cards are saved there.

    DOCPREVIEW_LINK_SITE=http://127.0.0.1:PORT python link_cards.py BASE_URL SAMPLES_FOLDER [SCREENSHOT_FOLDER]

The server must have been started with that site's `links` configuration (its addresses 127.0.0.2
as X and 127.0.0.5 as YouTube, scripts/link-test-site.py) and `--allow-private-fetch` for them.
Prints one line per check; exits 1 at the first that fails.
"""
import os
import uuid

from playwright.sync_api import expect

from walk import check, no_serious_violations, run, signed_in_page, small_touch_targets, upload_from_list

SITE = os.environ["DOCPREVIEW_LINK_SITE"].rstrip("/")
PORT = SITE.rsplit(":", 1)[1]


def walk(browser, base, samples, size, shots, _):
    owner = f"coach-{size}-{uuid.uuid4().hex[:6]}"
    page = signed_in_page(browser, base, size)
    page.goto(f"{base}/?owner={owner}")
    article, watch, post = (f"{SITE}/news/signing-day?w={size}", f"http://127.0.0.5:{PORT}/watch?v=hl2026",
                            f"http://127.0.0.2:{PORT}/coach/status/1850000000000000001")
    upload_from_list(page, [samples / "document-5-pages.pdf"], type_label="Transcript",
                     description=f"Signing day coverage: {article}. Highlights ({watch}) and the coach's post {post}")
    expect(page.locator("#documents .card[data-status=done]")).to_have_count(1)
    page.locator("#documents .card a").first.click()
    cards = page.locator(".link-cards .link-card")
    expect(cards).to_have_count(3)
    expect(cards.locator(".link-title")).to_have_text(["Signing day: 14 seniors commit", "Senior highlights 2026", "Coach Rivera on Twitter"])
    expect(cards.nth(2).locator(".link-text")).to_have_text("Great workout with the 2027 class. Offers going out this week! pic.twitter.com/abc")
    check(cards.nth(0).get_attribute("href") == article, f"{size}: a card opens its link (the trailing full stop left out)")
    expect(cards.nth(0).locator(".link-byline")).to_contain_text("Dana Ortiz")
    expect(cards.nth(2).locator(".link-byline")).to_contain_text("Coach Rivera")
    pictures = cards.locator("img.link-picture")
    expect(pictures).to_have_count(3)
    for index in range(3):
        expect(pictures.nth(index)).to_have_js_property("complete", True)
        check(pictures.nth(index).evaluate("(image) => image.naturalWidth > 0 && image.src.includes('/v1/links/pictures/')"),
              f"{size}: picture {index + 1} is our thumbnail, loaded")
    check(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), f"{size}: nothing wider than the screen")
    check(all(cards.nth(index).bounding_box()["height"] >= 44 for index in range(3)), f"{size}: every card at least 44 px tall")
    check(not small_touch_targets(page), f"{size}: every touch target at least 44 px {small_touch_targets(page)}")
    no_serious_violations(page, size, "with the cards")
    if shots:
        cards.first.scroll_into_view_if_needed()
        page.screenshot(path=str(shots / f"detail-link-cards-{size}.png"), full_page=False)

    # The description edited: one link that gives a card, one that gives none.
    page.get_by_role("button", name="Edit document metadata").click()
    dialog = page.get_by_role("dialog", name="Edit Document")
    dialog.get_by_label("Description").fill(f"Schedule: {SITE}/bare.html and {SITE}/missing")
    dialog.get_by_role("button", name="Save").click()
    expect(dialog).to_be_hidden()
    expect(cards).to_have_count(2)
    expect(cards.nth(0).locator(".link-title")).to_have_text("Team schedule 2026")
    expect(cards.nth(1).locator(".link-error")).to_contain_text("no preview: The site answered 404")
    check(cards.nth(1).get_attribute("href") == f"{SITE}/missing", f"{size}: a link without a card stays a link")
    no_serious_violations(page, size, "after the edit")


if __name__ == "__main__":
    run(walk)
