#!/usr/bin/env python3
"""Uploads a file to DocPreview's tus endpoint with tuspy, the tus project's Python client.

    tus_upload.py BASE FILE STORAGE [--stop-at N] [--chunk-size N] [--metadata key=value ...]

The upload's URL is kept in STORAGE (tuspy's URL storage, keyed by the file's fingerprint), so a
second run with the same STORAGE resumes from the offset the server reports instead of starting
again. Every chunk carries a checksum (tuspy's sha1). --stop-at stops after that many bytes, as a
client that lost its connection would. The token comes from $DOCPREVIEW_TOKEN. Prints one JSON
line: the upload's URL, its offset, and the document the last answer named (null until complete).
"""
import argparse
import json
import os
import sys

from tusclient import client
from tusclient.storage import filestorage


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("base")
    parser.add_argument("file")
    parser.add_argument("storage")
    parser.add_argument("--stop-at", type=int)
    parser.add_argument("--chunk-size", type=int, default=256 * 1024)
    parser.add_argument("--metadata", nargs="*", default=[])
    args = parser.parse_args()
    headers = {"Authorization": "Bearer " + os.environ["DOCPREVIEW_TOKEN"]}
    tus = client.TusClient(args.base + "/v1/uploads/tus", headers=headers)
    metadata = dict(item.split("=", 1) for item in args.metadata)
    uploader = tus.uploader(file_path=args.file, chunk_size=args.chunk_size, metadata=metadata,
                            store_url=True, url_storage=filestorage.FileStorage(args.storage), upload_checksum=True)
    uploader.upload(stop_at=args.stop_at)
    answer = uploader.request.response_headers if uploader.request else {}
    print(json.dumps({"url": uploader.url, "offset": uploader.offset, "document_id": answer.get("docpreview-document-id")}))


if __name__ == "__main__":
    sys.exit(main())
