"""What schemathesis needs for scripts/api-fuzz: request bodies it cannot make by itself (the raw bytes
of an upload's part, under tus's `application/offset+octet-stream` and the IETF draft's
`application/partial-upload`), and an HTTP client that reads past interim responses."""
import http.client

from hypothesis import strategies as st
import schemathesis

for media_type in ("application/offset+octet-stream", "application/partial-upload"):
    schemathesis.openapi.media_type(media_type, st.binary(max_size=4096))

# A client must read past any number of 1xx interim responses to the final one (RFC 9110 §15.2);
# Python's http.client (under requests) skips only `100 Continue`. It would take the draft's
# `104 (Upload Resumption Supported)` for an upload's answer and then read that answer as the answer
# to the next request on the connection. Here it skips every interim response but 100 (which it
# skips itself) and 101 (the end of HTTP/1.1 on an upgraded connection).
_read_status = http.client.HTTPResponse._read_status


def _read_final_status(response):
    while True:
        version, status, reason = _read_status(response)
        if not 102 <= status <= 199:
            return version, status, reason
        http.client._read_headers(response.fp)


http.client.HTTPResponse._read_status = _read_final_status
