"""What each school read and watched (issue 70, item 1), in Chromium (Playwright, Debian's chromium)
at a phone's size and a desktop's: an owner shares a 5-page transcript and a 3-minute video with two
schools (`PUT /v1/documents/{id}/schools`); each school opens its links in a browser of its own,
whose clock the walk runs (Playwright's `clock`: the page's timers and `performance.now`), reads
chosen pages for chosen times and plays chosen stretches of the video; then closes the tab, which
sends the last report. The owner's Share dialog on the Detail page shows, per school, the seconds of
each page within ±2 s of what the school's window had at least half in view while it read, and how
much of the video it watched within one point of the stretches the school's player says it played,
and that the school that opened a page zoomed did so once;
the owner's API gives those stretches within ±1 s; the owner's app, waiting on `GET /v1/events`
from before, hears the first school's first opening within 60 s. axe-core finds no serious or critical violation
on the shared pages or in the dialog. With a screenshot folder, both dialogs are saved there.

    python share_reading.py BASE_URL SAMPLES_FOLDER [SCREENSHOT_FOLDER]   (see walk.py)

Prints one line per check; exits 1 at the first that fails.
"""
import datetime
import json
import os
import re
import subprocess
import threading
import time
import urllib.parse
import urllib.request
import uuid
from pathlib import Path

from playwright.sync_api import expect

from walk import SIZES, WAIT_MS, check, no_serious_violations, run, signed_in_page

# What each school does: pages read (page number, seconds at its top), a page opened zoomed (or
# none), then stretches played (from, to).
SCHOOLS = {
    "North High": {"pages": [(1, 20), (3, 9)], "zoom": 3, "played": [(0, 12), (60, 70)]},
    "Lakeside Prep": {"pages": [(2, 14)], "zoom": None, "played": [(100, 130)]},
}


def prepared_files(folder):
    video = Path(folder) / "reel-3min.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=10", "-t", "180", "-c:v", "libx264",
                    "-preset", "veryfast", "-g", "20", "-pix_fmt", "yuv420p", "-movflags", "+faststart", str(video)], check=True)
    return video


def api(base, method, path, body=None, content_type="application/json"):
    """The API with the walk's token: its JSON answer."""
    data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method,
                                     headers={"Authorization": f"Bearer {os.environ['DOCPREVIEW_TOKEN']}", "Content-Type": content_type})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read() or b"{}")


def upload(base, path, title, owner):
    query = urllib.parse.urlencode({"filename": path.name, "title": title, "owner": owner})
    answer = api(base, "POST", f"/v1/documents?{query}", path.read_bytes(),
                 "application/octet-stream")
    return answer["document_id"]


def share_page(visitor, link, ready):
    """Opens `link` until `ready` (a selector) is on it: the document's job, then its playback's, end meanwhile."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while True:
        visitor.goto(link)
        if visitor.locator(ready).count() or time.monotonic() > deadline:
            return
        time.sleep(1)


def pages_in_view(visitor):
    """The pages at least half in the window now, as the reading script counts them."""
    return visitor.evaluate("""() => [...document.querySelectorAll('img[data-page]')].filter((image) => {
        const box = image.getBoundingClientRect();
        const seen = Math.max(0, Math.min(box.bottom, innerHeight) - Math.max(box.top, 0));
        return box.height > 0 && seen / box.height >= 0.5;
      }).map((image) => Number(image.dataset.page))""")


def settled(visitor, page):
    """Waits until an observer made now has told where page `page` is: the reading script's,
    made first, has been told too (observers are told in the order they were made)."""
    visitor.evaluate("""(page) => new Promise((done) => {
        const watcher = new IntersectionObserver(() => { watcher.disconnect(); done(); });
        watcher.observe(document.querySelector(`img[data-page="${page}"]`));
      })""", page)


def read_pages(visitor, steps):
    """Each step's page scrolled to the top and read for its seconds (the page's clock run that
    long); what the school had in view, by page."""
    expected = {}
    for page, seconds in steps:
        visitor.locator(f"img[data-page='{page}']").evaluate("image => image.scrollIntoView({block: 'start'})")
        settled(visitor, page)
        for shown in pages_in_view(visitor):
            expected[shown] = expected.get(shown, 0) + seconds
        visitor.clock.run_for(seconds * 1000)
    return expected


def play(visitor, stretches):
    """Plays each stretch at four times the speed, paused at its end by the frame it reaches; the
    stretches the player says it played."""
    for start, end in stretches:
        visitor.evaluate("""([start, end]) => new Promise((done) => {
            const video = document.querySelector('video');
            video.muted = true;
            video.playbackRate = 4;
            const onFrame = (_, frame) => {
              if (frame.mediaTime >= end) { video.pause(); done(); } else video.requestVideoFrameCallback(onFrame);
            };
            video.addEventListener('seeked', () => { video.requestVideoFrameCallback(onFrame); video.play(); }, { once: true });
            video.currentTime = start;
          })""", [start, end])
    return visitor.evaluate("() => { const p = document.querySelector('video').played; return [...Array(p.length).keys()].map((i) => [p.start(i), p.end(i)]) }")


def clock_text(seconds):
    return f"{int(seconds // 60)}:{int(seconds % 60):02d}"


def walk(browser, base, samples, size, shots, video):
    owner = f"reading-{size}-{uuid.uuid4().hex[:6]}"
    transcript = upload(base, samples / "document-5-pages.pdf", "Official Transcript", owner)
    reel = upload(base, video, "Season Reel", owner)
    links = {}
    for document in (transcript, reel):
        answer = api(base, "PUT", f"/v1/documents/{document}/schools", {"schools": list(SCHOOLS)})
        for each in answer["schools"]:
            links[(document, each["school"])] = (each["share"]["link"], each["share"]["share_id"])
    check(len(links) == 4, f"{size}: the transcript and the reel are shared with two schools")

    # The owner's app waits for a first opening (a long poll), from before any school opens its link.
    heard = {}
    def listen():
        while "event" not in heard and time.monotonic() < time_limit:
            answer = api(base, "GET", f"/v1/events?since=0&owner={owner}&wait=30")
            if answer["events"]:
                heard["event"], heard["at"] = answer["events"][0], time.monotonic()
    time_limit = time.monotonic() + WAIT_MS / 1000
    listener = threading.Thread(target=listen)
    listener.start()

    truth = {}
    opened_at = None
    for school, plan in SCHOOLS.items():
        context = browser.new_context(viewport=SIZES[size])
        context.set_default_timeout(WAIT_MS)
        visitor = context.new_page()
        # The page's clock stands still but for what the walk runs (installed, it would go on in real time).
        visitor.clock.install(time=datetime.datetime(2026, 1, 1, 8, 0, 0))
        visitor.clock.pause_at(datetime.datetime(2026, 1, 1, 8, 0, 1))
        opened_at = opened_at or time.monotonic()
        share_page(visitor, links[(transcript, school)][0], "img[data-page='5']")
        expect(visitor.get_by_role("heading", level=1)).to_have_text("Official Transcript")
        pages = read_pages(visitor, plan["pages"])
        if plan["zoom"]:
            # Opened zoomed and closed again, the paused clock adds no seconds to any page.
            visitor.locator(f"img[data-page='{plan['zoom']}']").click()
            expect(visitor.locator(".zoom")).to_be_visible()
            visitor.keyboard.press("Escape")
            expect(visitor.locator(".zoom")).to_have_count(0)
        share_page(visitor, links[(reel, school)][0], "video source[src*='renditions/']")
        played = play(visitor, plan["played"])
        truth[school] = (pages, played)
        # Closing the tab sends the last report (`pagehide`).
        visitor.close()
        context.close()
        check(True, f"{size}: {school} read pages {pages} and played {[[round(a, 1), round(b, 1)] for a, b in played]}")

    listener.join()
    event = heard.get("event", {})
    first_share = links[(transcript, next(iter(SCHOOLS)))][1]
    check(event.get("kind") == "share.first_opened" and event.get("share_id") == first_share and heard["at"] - opened_at < 60,
          f"{size}: the owner's long poll hears {next(iter(SCHOOLS))}'s first opening within 60 s ({event})")

    for school, (pages, played) in truth.items():
        reel_share = links[(reel, school)][1]
        deadline = time.monotonic() + WAIT_MS / 1000
        while True:
            visits = api(base, "GET", f"/v1/documents/{reel}/shares/{reel_share}/visits")["visits"]
            spans = [(span["from"], span["to"]) for visit in visits for span in visit["reading"]["played"]]
            if len(spans) >= len(played) or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        close = len(spans) == len(played) and all(abs(a - c) <= 1 and abs(b - d) <= 1 for (a, b), (c, d) in zip(sorted(spans), played))
        check(close, f"{size}: the owner's API has {school}'s played stretches within 1 s ({spans} against {played})")

    # The transcript's last reports (sent as each tab closed) in before its dialog is opened.
    deadline = time.monotonic() + WAIT_MS / 1000
    wanted = {school: sum(pages.values()) for school, (pages, _) in truth.items()}
    while time.monotonic() < deadline:
        listed = {share["school"]: share["reading"]["reading"] for share in api(base, "GET", f"/v1/documents/{transcript}/shares")["shares"]}
        if all(sum(page["seconds"] for page in listed.get(school, {}).get("pages", [])) >= wanted[school] - 2 for school in wanted):
            break
        time.sleep(0.5)

    page = signed_in_page(browser, base, size)
    page.goto(f"{base}/ui/documents/{transcript}")
    page.get_by_role("button", name="Share document with schools").click()
    dialog = page.get_by_role("dialog", name="Share Document")
    for school, (pages, _) in truth.items():
        line = dialog.locator("#share-links li", has_text=school)
        expect(line).to_contain_text("page ")
        shown = {int(number): int(minutes) * 60 + int(seconds)
                 for number, minutes, seconds in re.findall(r"page (\d+) (\d+):(\d\d)", line.inner_text())}
        close = shown.keys() == pages.keys() and all(abs(shown[number] - pages[number]) <= 2 for number in pages)
        check(close, f"{size}: the Share dialog shows {school}'s seconds per page within 2 s ({shown} against {pages})")
        zoomed = re.search(r"zoomed in (\d+)×", line.inner_text())
        check((zoomed and zoomed.group(1)) == ("1" if SCHOOLS[school]["zoom"] else None),
              f"{size}: the Share dialog shows how often {school} zoomed in ({zoomed and zoomed.group(0)})")
    no_serious_violations(page, size, "in the Share dialog with what each school read")
    if shots:
        page.screenshot(path=str(shots / f"share-reading-{size}.png"))
    page.get_by_role("button", name="Close").click()
    page.goto(f"{base}/ui/documents/{reel}")
    page.get_by_role("button", name="Share document with schools").click()
    for school, (_, played) in truth.items():
        line = dialog.locator("#share-links li", has_text=school)
        expect(line).to_contain_text("watched ")
        percent = int(re.search(r"watched (\d+) %", line.inner_text()).group(1))
        actual = round(sum(b - a for a, b in played) / 180 * 100)
        check(abs(percent - actual) <= 1, f"{size}: the reel's dialog shows how much {school} watched ({percent} % against {actual} %)")
    if shots:
        page.screenshot(path=str(shots / f"share-reading-reel-{size}.png"))
    page.context.close()

    # axe-core runs on timers, which the schools' paused clocks would never fire: the shared pages
    # are checked now, in a browser of their own, their reading done.
    context = browser.new_context(viewport=SIZES[size])
    context.set_default_timeout(WAIT_MS)
    checker = context.new_page()
    for (document, school), (link, _) in links.items():
        checker.goto(link)
        no_serious_violations(checker, size, f"on the {'transcript' if document == transcript else 'reel'} shared with {school}")
    context.close()


if __name__ == "__main__":
    run(walk, prepared_files)
