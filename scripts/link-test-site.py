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
"""
import http.server
import os
import sys
import time

video = open(sys.argv[1], "rb").read()
other_port = int(sys.argv[3]) if len(sys.argv) > 3 else 9
large = video + bytes(8 * 1024 * 1024 - len(video))


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
        if path == "/video.mp4" or path == "/clip.mp4":
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


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Site)
server.daemon_threads = True
with open(sys.argv[2] + ".part", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(sys.argv[2] + ".part", sys.argv[2])
server.serve_forever()
