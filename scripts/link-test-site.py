#!/usr/bin/env python3
"""The loopback site the link-download tests fetch from: every case a shared link can meet.

    link-test-site.py VIDEO PORT_FILE [OTHER_PORT]

Serves on 127.0.0.1 (a free port, written to PORT_FILE once listening) until killed:
  /video.mp4          VIDEO, as video/mp4                  /page.html      a page with a <video> of it
  /hop/N              a redirect chain of N hops to /video.mp4
  /to-loopback, /to-mapped, /to-decimal, /to-octal
                      a redirect to 127.0.0.1:OTHER_PORT, [::ffff:127.0.0.1]:OTHER_PORT, 2130706433:OTHER_PORT
                      (127.0.0.1 as one decimal number) and 0177.0.0.1:OTHER_PORT (in octal)
Every redirect names a loopback address and a port the test owns: no test may make the program
connect anywhere else, not even where it is expected to refuse (the address rules for other
addresses are tested as a pure function, FetchAddressPolicy).
  /missing            404                                  /no-video.html  a page with no video
  /large.mp4          8 MiB (VIDEO, then zeros) with its length; /large-unsized.mp4 the same, chunked
  /trickle.mp4        VIDEO's length announced, then a byte every half second
  /delayed/video.mp4  VIDEO, after 3 s
Links' cards: pages shaped like each platform's answers (the sites are told apart by address: it
listens on 127.0.0.1 to 127.0.0.5 at one port, and the tests' configuration names 127.0.0.2 X,
.3 Instagram, .4 TikTok, .5 YouTube, their oEmbed endpoints at /oembed/<site>):
  /coach/status/1850000000000000001  X's script shell (no tags)   /oembed/x    X's oEmbed answer
  /x-embed/tweet-result?id=1850000000000000001&token=4hfy2jnxph  X's embed data of that post (its photo);
                      404 for another id or token (the token is the widget's, as JavaScript makes it)
  /p/CzSigned1/       an Instagram post page                      /oembed/tiktok, /oembed/youtube
  /@coachdrills/video/7300000000000000000  a TikTok page's shell  /watch?v=hl2026  a YouTube watch page
  /news/signing-day   an article with only JSON-LD               /bare.html   only a <title>
  /files/transcript.pdf  a PDF (VIDEO's folder's document-5-pages.pdf)
  /pictures/photo.jpg    a JPEG (photo-exif-orientation-6.jpg)    /pictures/not-an-image.jpg  a page as image/jpeg
  /pictures/bomb.png     a PNG of 20,000 x 20,000 pixels (400 KB compressed)
Hostile cards: /cards/og-inside.html and /cards/oembed-inside.html (their picture and oEmbed link
at 127.0.0.1:OTHER_PORT), /cards/bomb.html (og:image the bomb), /cards/huge.html (20 MB),
/cards/deep.html (100,000 nested tags), /cards/trickle.html, /loop/a <-> /loop/b, /to-file and
/to-gopher (redirects to file: and gopher: addresses).
  /requests?path=P    how many requests for path P (query left out) the site has had, as text
"""
import functools
import http.server
import json
import os
import struct
import sys
import threading
import time
import urllib.parse
import zlib

video = open(sys.argv[1], "rb").read()
samples = os.path.dirname(os.path.abspath(sys.argv[1]))
other_port = int(sys.argv[3]) if len(sys.argv) > 3 else 9
large = video + bytes(8 * 1024 * 1024 - len(video))
photo = open(os.path.join(samples, "photo-exif-orientation-6.jpg"), "rb").read()
pdf = open(os.path.join(samples, "document-5-pages.pdf"), "rb").read()


requests = {}
requests_lock = threading.Lock()


@functools.lru_cache(maxsize=1)
def bomb():
    """A grey PNG of 20,000 x 20,000 pixels: 400 MB of pixels in about 400 KB."""
    side = 20000
    compressor = zlib.compressobj(9)
    row = bytes(side + 1)
    body = b"".join(compressor.compress(row) for _ in range(side)) + compressor.flush()

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0)) + chunk(b"IDAT", body) + chunk(b"IEND", b"")


def card_page(host, path, query):
    """The card pages' HTML for `path` on `host` (the address the request came to), or None."""
    base = f"http://{host}"
    if path == "/coach/status/1850000000000000001":
        return ("<!DOCTYPE html><html dir=\"ltr\" lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" "
                "content=\"width=device-width,initial-scale=1\"><link rel=\"preload\" as=\"script\" href=\"/main.js\">"
                "</head><body><noscript><p>JavaScript is not available.</p></noscript><div id=\"react-root\"></div>"
                "<script>window.__INITIAL_STATE__={};</script></body></html>")
    if path == "/p/CzSigned1/":
        return ("<!DOCTYPE html><html><head><title>Jordan Lee on Instagram: \"Signed!\"</title>"
                "<meta property=\"og:site_name\" content=\"Instagram\"><meta property=\"og:type\" content=\"article\">"
                "<meta property=\"og:title\" content=\"Jordan Lee on Instagram: &quot;Signed with State! #committed&quot;\">"
                "<meta property=\"og:description\" content=\"1,204 likes, 88 comments - jordanlee27 on November 2, 2026: "
                "&quot;Signed with State! #committed&quot;\">"
                f"<meta property=\"og:image\" content=\"{base}/pictures/photo.jpg\"><meta property=\"og:url\" "
                f"content=\"{base}/p/CzSigned1/\"><meta name=\"twitter:creator\" content=\"@jordanlee27\">"
                "</head><body><div id=\"root\"></div></body></html>")
    if path == "/@coachdrills/video/7300000000000000000":
        return ("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>TikTok - Make Your Day</title></head><body>"
                "<script id=\"__UNIVERSAL_DATA_FOR_REHYDRATION__\" type=\"application/json\">{\"__DEFAULT_SCOPE__\":{}}</script>"
                "</body></html>")
    if path == "/watch" and query.get("v") == ["hl2026"]:
        oembed = urllib.parse.quote(f"{base}/watch?v=hl2026", safe="")
        return ("<!DOCTYPE html><html><head><title>Senior highlights 2026 - YouTube</title>"
                "<meta property=\"og:site_name\" content=\"YouTube\"><meta property=\"og:type\" content=\"video.other\">"
                "<meta property=\"og:title\" content=\"Senior highlights 2026\">"
                "<meta property=\"og:description\" content=\"Every snap of the 2026 season, QB #7.\">"
                f"<meta property=\"og:image\" content=\"{base}/pictures/photo.jpg\"><meta property=\"og:image:width\" content=\"1280\">"
                "<meta property=\"og:image:height\" content=\"720\">"
                f"<meta property=\"og:video:url\" content=\"{base}/embed/hl2026\"><meta property=\"og:video:width\" content=\"1280\">"
                "<meta property=\"og:video:height\" content=\"720\"><meta itemprop=\"duration\" content=\"PT3M12S\">"
                f"<link rel=\"alternate\" type=\"application/json+oembed\" href=\"{base}/oembed/youtube?format=json&amp;url={oembed}\">"
                f"<link rel=\"canonical\" href=\"{base}/watch?v=hl2026\"></head><body></body></html>")
    if path == "/news/signing-day":
        article = {"@context": "https://schema.org", "@graph": [
            {"@type": "WebSite", "name": "Prep Sports Daily"},
            {"@type": "NewsArticle", "headline": "Signing day: 14 seniors commit", "description": "Lakeside's class of 2027 signs.",
             "datePublished": "2026-11-12T08:00:00Z", "author": [{"@type": "Person", "name": "Dana Ortiz"}],
             "image": {"@type": "ImageObject", "url": f"{base}/pictures/photo.jpg"}}]}
        return (f"<!DOCTYPE html><html><head><script type=\"application/ld+json\">{json.dumps(article)}</script></head>"
                "<body><h1>Signing day</h1></body></html>")
    if path == "/bare.html":
        return "<!DOCTYPE html><html><head><title>  Team schedule\n 2026  </title></head><body>Games</body></html>"
    if path == "/cards/og-inside.html":
        return (f"<html><head><meta property=\"og:title\" content=\"Inside\"><meta property=\"og:image\" "
                f"content=\"http://127.0.0.1:{other_port}/metrics\"></head></html>")
    if path == "/cards/oembed-inside.html":
        return (f"<html><head><title>Discovery</title><link rel=\"alternate\" type=\"application/json+oembed\" "
                f"href=\"http://127.0.0.1:{other_port}/oembed\"></head></html>")
    if path == "/cards/bomb.html":
        return f"<html><head><meta property=\"og:title\" content=\"Bomb\"><meta property=\"og:image\" content=\"{base}/pictures/bomb.png\"></head></html>"
    if path == "/cards/not-an-image.html":
        return (f"<html><head><meta property=\"og:title\" content=\"Not an image\"><meta property=\"og:image\" "
                f"content=\"{base}/pictures/not-an-image.jpg\"></head></html>")
    if path == "/cards/deep.html":
        return "<html><head><title>Deep</title></head><body>" + "<div>" * 100000 + "</body></html>"
    return None


def x_embed_data(host, query):
    """X's embed data of the one post the site has, when asked with its id and the widget's token."""
    if query.get("id") != ["1850000000000000001"] or query.get("token") != ["4hfy2jnxph"]:
        return None
    return {"__typename": "Tweet", "lang": "en", "favorite_count": 120, "created_at": "2026-11-03T17:04:11.000Z",
            "id_str": "1850000000000000001", "text": "Great workout with the 2027 class. Offers going out this week! https://t.co/abc",
            "user": {"id_str": "99", "name": "Coach Rivera", "screen_name": "coachrivera"},
            "mediaDetails": [{"display_url": "pic.x.com/abc", "media_url_https": f"http://{host}/pictures/photo.jpg",
                              "original_info": {"height": 1080, "width": 1920}, "type": "photo"}],
            "photos": [{"url": f"http://{host}/pictures/photo.jpg", "width": 1920, "height": 1080}], "conversation_count": 4}


def oembed_answer(host, site):
    base = f"http://{host}"
    if site == "x":
        return {"url": "https://twitter.com/coachrivera/status/1850000000000000001", "author_name": "Coach Rivera",
                "author_url": "https://twitter.com/coachrivera",
                "html": "<blockquote class=\"twitter-tweet\"><p lang=\"en\" dir=\"ltr\">Great workout with the 2027 class. "
                        "Offers going out this week! <a href=\"https://t.co/abc\">pic.twitter.com/abc</a></p>&mdash; Coach Rivera "
                        "(@coachrivera) <a href=\"https://twitter.com/coachrivera/status/1850000000000000001?ref_src=twsrc%5Etfw\">"
                        "November 3, 2026</a></blockquote>\n",
                "width": 550, "height": None, "type": "rich", "cache_age": "3153600000", "provider_name": "Twitter",
                "provider_url": "https://twitter.com", "version": "1.0"}
    if site == "tiktok":
        return {"version": "1.0", "type": "video", "title": "Footwork drills for DBs #football", "author_url":
                "https://www.tiktok.com/@coachdrills", "author_name": "Coach Drills", "width": "100%", "height": "100%",
                "html": "<blockquote class=\"tiktok-embed\" cite=\"https://www.tiktok.com/@coachdrills/video/7300000000000000000\">"
                        "<section><a title=\"@coachdrills\" href=\"https://www.tiktok.com/@coachdrills\">@coachdrills</a>"
                        "<p>Footwork drills for DBs #football</p></section></blockquote>",
                "thumbnail_width": 720, "thumbnail_height": 1280, "thumbnail_url": f"{base}/pictures/photo.jpg",
                "provider_url": "https://www.tiktok.com", "provider_name": "TikTok"}
    if site == "youtube":
        return {"title": "Senior highlights 2026", "author_name": "Lakeside Football", "author_url": "https://www.youtube.com/@lakesidefb",
                "type": "video", "height": 113, "width": 200, "version": "1.0", "provider_name": "YouTube",
                "provider_url": "https://www.youtube.com/", "thumbnail_height": 360, "thumbnail_width": 480,
                "thumbnail_url": f"{base}/pictures/photo.jpg", "html": "<iframe width=\"200\" height=\"113\"></iframe>"}
    return None


class Site(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body=b"", kind="text/html", headers=()):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def redirect(self, location):
        self.send(302, headers=[("Location", location)])

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        path = self.path.split("?")[0]
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
        if path == "/requests":
            with requests_lock:
                return self.send(200, str(requests.get(query.get("path", [""])[0], 0)).encode(), "text/plain")
        with requests_lock:
            requests[path] = requests.get(path, 0) + 1
        host = f"{self.server.server_address[0]}:{self.server.server_address[1]}"
        page = card_page(host, path, query)
        answer = oembed_answer(host, path[len("/oembed/"):]) if path.startswith("/oembed/") else None
        if path == "/x-embed/tweet-result":
            answer = x_embed_data(host, query)
        if page is not None:
            self.send(200, page.encode())
        elif answer is not None:
            self.send(200, json.dumps(answer).encode(), "application/json")
        elif path == "/files/transcript.pdf":
            self.send(200, pdf, "application/pdf")
        elif path == "/pictures/photo.jpg":
            self.send(200, photo, "image/jpeg")
        elif path == "/pictures/not-an-image.jpg":
            self.send(200, b"<!doctype html><title>Not a picture</title>", "image/jpeg")
        elif path == "/pictures/bomb.png":
            self.send(200, bomb(), "image/png")
        elif path == "/cards/huge.html":
            self.send(200, b"<html><head><title>Huge</title></head><body>" + b"x" * (20 * 1024 * 1024) + b"</body></html>")
        elif path == "/cards/trickle.html":
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", "100000")
            self.end_headers()
            for _ in range(100000):
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(0.5)
        elif path == "/loop/a":
            self.redirect("/loop/b")
        elif path == "/loop/b":
            self.redirect("/loop/a")
        elif path == "/to-file":
            self.redirect("file:///etc/passwd")
        elif path == "/to-gopher":
            self.redirect(f"gopher://127.0.0.1:{other_port}/_metrics")
        elif path == "/video.mp4" or path == "/clip.mp4":
            self.send(200, video, "video/mp4")
        elif path == "/delayed/video.mp4":
            time.sleep(3)
            self.send(200, video, "video/mp4")
        elif path == "/page.html":
            self.send(200, b"<!doctype html><html><head><title>Highlight reel</title></head><body>"
                           b"<video controls width=640><source src=\"/clip.mp4\" type=\"video/mp4\"></video></body></html>")
        elif path == "/no-video.html":
            self.send(200, b"<!doctype html><html><head><title>Nothing here</title></head><body><p>No video.</p></body></html>")
        elif path.startswith("/hop/"):
            hops = int(path[5:])
            self.redirect("/video.mp4" if hops <= 1 else f"/hop/{hops - 1}")
        elif path == "/to-loopback":
            self.redirect(f"http://127.0.0.1:{other_port}/metrics")
        elif path == "/to-octal":
            self.redirect(f"http://0177.0.0.1:{other_port}/metrics")
        elif path == "/to-mapped":
            self.redirect(f"http://[::ffff:127.0.0.1]:{other_port}/metrics")
        elif path == "/to-decimal":
            self.redirect(f"http://2130706433:{other_port}/metrics")
        elif path == "/large.mp4":
            self.send(200, large, "video/mp4")
        elif path == "/large-unsized.mp4":
            self.send_response(200)
            self.send_header("Content-Type", "video/mp4")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for start in range(0, len(large), 65536):
                chunk = large[start:start + 65536]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            self.wfile.write(b"0\r\n\r\n")
        elif path == "/trickle.mp4":
            self.send_response(200)
            self.send_header("Content-Type", "video/mp4")
            self.send_header("Content-Length", str(len(video)))
            self.end_headers()
            for byte in video:
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(0.5)
        else:
            self.send(404, b"<!doctype html><title>Not found</title>")


def listen():
    """Servers on 127.0.0.1 to 127.0.0.5 at one port (another port when one of those is taken)."""
    for _ in range(20):
        first = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Site)
        servers = [first]
        try:
            for last in range(2, 6):
                servers.append(http.server.ThreadingHTTPServer((f"127.0.0.{last}", first.server_address[1]), Site))
            return servers
        except OSError:
            for server in servers:
                server.server_close()
    raise SystemExit("no port free on 127.0.0.1 to 127.0.0.5")


servers = listen()
for server in servers:
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
with open(sys.argv[2] + ".part", "w") as f:
    f.write(str(servers[0].server_address[1]))
os.rename(sys.argv[2] + ".part", sys.argv[2])
threading.Event().wait()
