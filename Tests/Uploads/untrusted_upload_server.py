#!/usr/bin/env python3
"""A resumable-upload server that cannot be trusted, for testing `docpreview upload` against it.

    untrusted_upload_server.py --mode elsewhere|stuck --ports FILE --stats FILE

Listens on 127.0.0.1 (the server the client is given) and on 127.0.0.2 (another origin; both are
loopback), on free ports written to --ports as "PORT OTHERPORT". --mode elsewhere answers an
upload's creation with a Location on the other origin; --mode stuck answers every append 204 with
the offset still 0, and HEAD the same. Every request is counted in --stats (JSON, rewritten whole
after each), with whether it carried an Authorization header, by listener.
"""
import argparse
import http.server
import json
import os
import threading


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=["elsewhere", "stuck"], required=True)
    parser.add_argument("--ports", required=True)
    parser.add_argument("--stats", required=True)
    args = parser.parse_args()
    stats = {"server": {"requests": 0, "tokens": 0, "patches": 0}, "other": {"requests": 0, "tokens": 0, "patches": 0}}
    lock = threading.Lock()
    servers = {}

    def record(name, handler):
        with lock:
            entry = stats[name]
            entry["requests"] += 1
            entry["tokens"] += 1 if handler.headers.get("Authorization") else 0
            entry["patches"] += 1 if handler.command == "PATCH" else 0
            temporary = args.stats + ".tmp"
            with open(temporary, "w") as file:
                json.dump(stats, file)
            os.replace(temporary, args.stats)

    def handler_for(name):
        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_):
                pass

            def answer(self, status, headers):
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                record(name, self)
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self):
                if args.mode == "elsewhere" and name == "server":
                    other = servers["other"].server_address[1]
                    self.answer(201, {"Location": f"http://127.0.0.2:{other}/v1/uploads/0123456789abcdef0123456789abcdef",
                                      "Upload-Offset": "0"})
                else:
                    self.answer(201, {"Location": "/v1/uploads/0123456789abcdef0123456789abcdef", "Upload-Offset": "0"})

            def do_PATCH(self):
                self.answer(204, {"Upload-Offset": "0", "Upload-Complete": "?0"})

            def do_HEAD(self):
                self.answer(204, {"Upload-Offset": "0", "Upload-Complete": "?0"})

        return Handler

    servers["server"] = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler_for("server"))
    servers["other"] = http.server.ThreadingHTTPServer(("127.0.0.2", 0), handler_for("other"))
    with open(args.stats, "w") as file:
        json.dump(stats, file)
    temporary = args.ports + ".tmp"
    with open(temporary, "w") as file:
        file.write(f"{servers['server'].server_address[1]} {servers['other'].server_address[1]}")
    os.replace(temporary, args.ports)
    threading.Thread(target=servers["other"].serve_forever, daemon=True).start()
    servers["server"].serve_forever()


if __name__ == "__main__":
    main()
