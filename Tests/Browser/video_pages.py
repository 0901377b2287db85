"""A highlight video on the List and the Detail page in Chromium (Playwright, Debian's chromium), at
a phone's size and a desktop's: a 12-second video with B-frames and a keyframe every 2 s (made here
by the ffmpeg CLI) uploaded from the list. Its card's teaser (under 50 KB) is not fetched until
played (`preload="none"`), then plays while a mouse rests on the card (a desktop) or from a
half-second press (a phone), and stops when it leaves or lifts; with reduced motion asked for, the mouse plays nothing. On its Detail page the player is
moved into a group of pictures,
"Clip from here" starts the clip there (ten seconds on by default), an end typed before the start
is refused in the form, "End here" ends it where the player is; Save answers with the span cut and a
link to the clip. The clip's own file, played by Chromium: its first frame presented is the
source's frame at the start (its luma's SSIM ≥ 0.98 by the ffmpeg CLI's `ssim` filter, and more
than the frames either side, taken by number) and it lasts the span to the frame. Asked again as a new version, the video's versions
grow by one. A reel of three shots (hard cuts at 4 and 8 s): its plays' bar under the player, on
its Detail page and on a page it is shared to (opened without signing in), has a mark per play;
Next play, a mark and Previous play seek the player to the play's start, and the play under way is
marked current; the same on its Viewer. Every touch target on a phone at least 44 px; axe-core finds no serious or critical
violation with the clip's form open or on the shared page. With a screenshot folder, each size's
form is saved there, its card while the teaser plays, and the reel's player with its plays on each page.

    python video_pages.py BASE_URL SAMPLES_FOLDER [SCREENSHOT_FOLDER]   (see walk.py)

Prints one line per check; exits 1 at the first that fails.
"""
import base64
import os
import re
import subprocess
import uuid
from pathlib import Path

from playwright.sync_api import expect

from walk import check, no_serious_violations, run, signed_in_page, small_touch_targets, upload_from_list

RATE = 30


def prepared_files(folder):
    video = Path(folder) / "game.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", f"testsrc2=size=640x360:rate={RATE}", "-f", "lavfi", "-i", "sine",
                    "-t", "12", "-c:v", "libx264", "-preset", "veryfast", "-g", "60", "-sc_threshold", "0", "-pix_fmt", "yuv420p",
                    "-c:a", "aac", "-movflags", "+faststart", str(video)], check=True)
    # A reel: three shots joined by hard cuts at 4 and 8 s.
    reel = Path(folder) / "reel.mp4"
    shots = [f"testsrc2=size=640x360:rate={RATE}", f"mandelbrot=size=640x360:rate={RATE}", f"smptehdbars=size=640x360:rate={RATE}"]
    inputs = [argument for shot in shots for argument in ("-f", "lavfi", "-t", "4", "-i", shot)]
    subprocess.run(["ffmpeg", "-v", "error"] + inputs + ["-filter_complex", "[0][1][2]concat=n=3:v=1,format=yuv420p", "-c:v", "libx264",
                    "-preset", "veryfast", "-movflags", "+faststart", str(reel)], check=True)
    return video, Path(folder), reel


def luma_ssim(first, second):
    """The SSIM of two pictures' luma: Chromium's colour conversion is not swscale's, its light is."""
    graph = "[0:v]format=gray[a];[1:v]format=gray[b];[a][b]ssim=stats_file=-"
    stats = subprocess.run(["ffmpeg", "-v", "error", "-i", str(first), "-i", str(second), "-lavfi", graph, "-f", "null", "-"],
                           check=True, capture_output=True, text=True).stdout
    return float(re.search(r"All:([0-9.]+)", stats).group(1))


def seek(page, seconds):
    """Moves the Detail page's player to `seconds` and waits until it is there."""
    page.evaluate("""(seconds) => new Promise((done) => {
        const video = document.querySelector(".preview video");
        video.addEventListener("seeked", done, { once: true });
        video.currentTime = seconds;
    })""", seconds)


def played_to(page, action, seconds):
    """Does `action` (a click on the plays' bar) and waits until the player is sent to `seconds` (its
    `seeking` event: the time asked for, before playing on moves it)."""
    page.evaluate("() => { window.seekedTo = new Promise((done) => document.querySelector('.plays').parentElement"
                  ".querySelector('video').addEventListener('seeking', (event) => done(event.target.currentTime), { once: true })); }")
    action()
    reached = page.evaluate("() => window.seekedTo")
    return abs(reached - seconds) <= 0.05, reached


def plays_bar(page, size, where, plays, shot=None):
    """The plays' bar under the player on `page`: a mark per play; Next, a mark and Previous seek to
    starts. With `shot` (a path), the player and its bar are saved there."""
    bar = page.get_by_role("navigation", name="Plays")
    expect(bar).to_be_visible()
    marks = bar.locator("a[data-start]")
    check(marks.count() == len(plays), f"{size}: {where}: the plays' bar has a mark per play ({marks.count()} of {len(plays)})")
    starts = [play["start"] for play in plays]
    moved, reached = played_to(page, lambda: bar.get_by_role("button", name="Next play").click(), starts[1])
    check(moved, f"{size}: {where}: Next play seeks to the second play's start ({reached:.2f} s, {starts[1]:.2f} s)")
    moved, reached = played_to(page, lambda: marks.nth(2).click(), starts[2])
    check(moved, f"{size}: {where}: the third play's mark seeks to its start ({reached:.2f} s)")
    page.evaluate("() => document.querySelector('.plays').parentElement.querySelector('video').pause()")
    expect(marks.nth(2)).to_have_attribute("aria-current", "true")
    check(True, f"{size}: {where}: the play under way is marked current")
    moved, reached = played_to(page, lambda: bar.get_by_role("button", name="Previous play").click(), starts[1])
    check(moved, f"{size}: {where}: Previous play, at a play's start, seeks to the play before ({reached:.2f} s)")
    if shot:
        bar.locator("xpath=..").screenshot(path=str(shot))


def walk(browser, base, samples, size, shots, prepared):
    video, folder, reel = prepared
    owner = f"athlete-{size}-{uuid.uuid4().hex[:6]}"
    page = signed_in_page(browser, base, size)
    page.goto(f"{base}/?owner={owner}")
    upload_from_list(page, [video], type_label="Highlight Video", title="Game")
    expect(page.locator("#documents .card[data-status=done]")).to_have_count(1)
    source = page.locator("#documents .card").first.get_attribute("data-id")

    # The card's teaser, once the playback job made it.
    for _ in range(600):
        made = page.request.get(f"{base}/v1/documents/{source}").json().get("teaser")
        if made:
            break
        page.wait_for_timeout(200)
    teaser = page.request.get(f"{base}{made}")
    check(teaser.ok and teaser.headers["content-type"] == "video/mp4" and len(teaser.body()) <= 50_000,
          f"{size}: the video's teaser is an MP4 of {len(teaser.body()):,} bytes (at most 50,000)")
    page.reload()
    card = page.locator("#documents .card").first
    video_on_card = card.locator("video.teaser")
    check(video_on_card.get_attribute("preload") == "none" and video_on_card.evaluate("v => v.networkState") != 2,
          f"{size}: the teaser is not fetched before it plays (preload=none)")
    playing = "v => !v.hidden && !v.paused && v.readyState >= 2 && v.currentTime > 0"
    if size == "desktop":
        card.hover()
    else:
        card.dispatch_event("pointerdown", {"pointerType": "touch", "bubbles": True})
    page.evaluate(f"""() => new Promise((done) => {{
        const video = document.querySelector("#documents .card video.teaser");
        const look = () => ({playing})(video) ? done() : setTimeout(look, 50);
        look();
    }})""")
    check(True, f"{size}: the teaser plays on the card {'under the mouse' if size == 'desktop' else 'from a long press'}")
    if shots:
        card.screenshot(path=str(shots / f"list-teaser-{size}.png"))
    if size == "desktop":
        page.mouse.move(0, 0)
    else:
        card.dispatch_event("pointerup", {"pointerType": "touch", "bubbles": True})
    check(video_on_card.evaluate("v => v.paused && v.hidden"), f"{size}: the teaser stops when the {'mouse leaves' if size == 'desktop' else 'finger lifts'}")
    if size == "desktop":
        # Asked for less motion: resting the mouse on the card plays nothing (play() would unpause at once).
        page.emulate_media(reduced_motion="reduce")
        card.hover()
        check(video_on_card.evaluate("v => v.paused && v.hidden"), f"{size}: with reduced motion asked for, the mouse plays no teaser")
        page.mouse.move(0, 0)
        page.emulate_media(reduced_motion="no-preference")
    page.goto(f"{base}/ui/documents/{source}")
    player = page.locator(".preview video")
    expect(player).to_be_visible()
    page.evaluate("""() => new Promise((done) => {
        const video = document.querySelector(".preview video");
        if (video.readyState >= 1) done(); else video.addEventListener("loadedmetadata", done, { once: true });
    })""")

    # "Clip from here" where the player is: 3.52 s, inside the second group of pictures.
    seek(page, 3.52)
    page.get_by_role("button", name="Clip from here").click()
    start, end = page.get_by_label("Start (seconds)"), page.get_by_label("End (seconds)")
    check(start.input_value() == "3.52" and end.input_value() == "12", f"{size}: the clip starts where the player is and ends 10 s on ({start.input_value()}–{end.input_value()})")
    end.fill("2")
    expect(page.locator("#clip-message")).to_have_text("The end comes after the start.")
    check(page.get_by_role("button", name="Save clip").is_disabled(), f"{size}: an end before the start cannot be saved")
    seek(page, 6.25)
    page.get_by_role("button", name="End here").click()
    check(end.input_value() == "6.25", f"{size}: End here ends the clip where the player is")
    no_serious_violations(page, size, "with the clip's form open")
    if size == "phone":
        check(not small_touch_targets(page), f"{size}: every touch target is 44 px or more {small_touch_targets(page)}")
    if shots:
        page.locator(".preview").screenshot(path=str(shots / f"clip-{size}.png"))
    page.get_by_role("button", name="Save clip").click()
    expect(page.locator("#clip-made")).to_contain_text("Clip saved: 0:03.5–0:06.3")
    link = page.get_by_role("link", name="Open the clip")
    clip = link.get_attribute("href").rsplit("/", 1)[1]

    # The clip's file as Chromium plays it: its first frame presented and its length.
    shown = page.evaluate("""async (url) => {
        const video = document.createElement("video");
        video.muted = true;
        video.src = url;
        document.body.append(video);
        await new Promise((done, fail) => { video.onloadeddata = done; video.onerror = () => fail(new Error("cannot play")); });
        await new Promise((done) => { video.onseeked = done; video.currentTime = 0; });
        const canvas = document.createElement("canvas");
        canvas.width = video.videoWidth;
        canvas.height = video.videoHeight;
        canvas.getContext("2d").drawImage(video, 0, 0);
        return { duration: video.duration, png: canvas.toDataURL("image/png") };
    }""", f"/v1/documents/{clip}/content")
    answer = page.request.get(f"{base}/v1/documents/{source}").json()
    presented = folder / f"presented-{size}.png"
    presented.write_bytes(base64.b64decode(shown["png"].split(",", 1)[1]))
    shown_at = int(3.52 * RATE)  # the frame shown at 3.52 s: the one that starts at 3.5 s
    similarity = {}
    for number in (shown_at - 1, shown_at, shown_at + 1):
        expected = folder / f"frame-{number}.png"
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", str(video), "-vf", f"select=eq(n\\,{number})", "-frames:v", "1", str(expected)],
                       check=True)
        similarity[number] = luma_ssim(presented, expected)
    check(similarity[shown_at] >= 0.98 and max(similarity, key=similarity.get) == shown_at,
          f"{size}: Chromium's first frame of the clip is the source's at its start (SSIM {similarity[shown_at]:.4f}; "
          f"the frames either side {similarity[shown_at - 1]:.3f}, {similarity[shown_at + 1]:.3f})")
    span = 6.2667 - 3.5
    check(abs(shown["duration"] - span) <= 1 / RATE, f"{size}: Chromium plays the clip for {shown['duration']:.3f} s ({span:.3f} s asked, to the frame)")
    check(answer["duration_s"] > 11, f"{size}: the source is left as it was")

    # As a new version of the video.
    page.get_by_role("button", name="Clip from here").click()
    page.get_by_label("Save it as this video's next version").check()
    page.get_by_role("button", name="Save clip").click()
    expect(page.get_by_role("link", name="Open the new version")).to_be_visible()
    versions = page.request.get(f"{base}/v1/documents/{source}/versions").json()["versions"]
    check(len(versions) == 2, f"{size}: a clip saved as a version is the video's version 2")

    # A reel's plays, on its Detail page and on a page it is shared to.
    page.goto(f"{base}/?owner={owner}")
    upload_from_list(page, [reel], type_label="Highlight Video", title="Reel")
    card = page.locator("#documents .card[data-status=done]", has=page.locator(".title", has_text=re.compile("^Reel$")))
    expect(card).to_have_count(1)
    reel_id = card.get_attribute("data-id")
    for _ in range(600):
        plays = page.request.get(f"{base}/v1/documents/{reel_id}").json().get("plays")
        if plays:
            break
        page.wait_for_timeout(200)
    check(len(plays) == 3 and all(abs(play["start"] - cut) <= 0.2 for play, cut in zip(plays, [0, 4, 8])),
          f"{size}: the reel's plays start at its cuts {[round(play['start'], 2) for play in plays]}")
    page.goto(f"{base}/ui/documents/{reel_id}")
    plays_bar(page, size, "the Detail page", plays, shots and shots / f"plays-{size}-detail.png")
    page.goto(f"{base}/ui/documents/{reel_id}/view")
    plays_bar(page, size, "the Viewer", plays, shots and shots / f"plays-{size}-viewer.png")
    headers = {"Authorization": f"Bearer {os.environ['DOCPREVIEW_TOKEN']}"} if os.environ.get("DOCPREVIEW_TOKEN") else {}
    shared = page.request.post(f"{base}/v1/documents/{reel_id}/shares", data={"label": "North High"}, headers=headers)
    check(shared.status == 201, f"{size}: the reel is shared ({shared.status})")
    stranger = browser.new_context(viewport=page.viewport_size).new_page()
    stranger.goto(f"{base}{shared.json()['url']}")
    plays_bar(stranger, size, "the shared page", plays, shots and shots / f"shared-plays-{size}.png")
    no_serious_violations(stranger, size, "on the shared page with its plays")
    if size == "phone":
        check(not small_touch_targets(stranger), f"{size}: every touch target on the shared page is 44 px or more {small_touch_targets(stranger)}")
    stranger.context.close()
    page.context.close()


if __name__ == "__main__":
    run(walk, prepare=prepared_files)
