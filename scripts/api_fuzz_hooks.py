"""Request bodies that schemathesis cannot make by itself, for scripts/api-fuzz: the raw bytes of
an upload's part, under tus's `application/offset+octet-stream` and the IETF draft's
`application/partial-upload`."""
from hypothesis import strategies as st
import schemathesis

for media_type in ("application/offset+octet-stream", "application/partial-upload"):
    schemathesis.openapi.media_type(media_type, st.binary(max_size=4096))
