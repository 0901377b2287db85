#!/usr/bin/env python3
"""Writes the sample files that the Debian CLIs cannot make directly: PDFs, OOXML, EXIF
orientation, tiny executables. Standard library only; output is deterministic."""
import struct
import sys
import zipfile
import zlib


def pdf(path, pages, size=(612, 792)):
    """A text PDF: each page shows its number in large type and a bar whose height depends on it,
    so two pages never render alike."""
    width, height = size
    objects = {1: b"<< /Type /Catalog /Pages 2 0 R >>", 3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"}
    kids = []
    for n in range(1, pages + 1):
        page_id, content_id = 2 + 2 * n, 3 + 2 * n
        bar = 50 + (n * 37) % (height - 200)
        stream = (f"0.2 0.4 0.8 rg 60 100 80 {bar} re f 0 0 0 rg BT /F1 96 Tf 200 {height // 2} Td (Page {n}) Tj ET "
                  f"BT /F1 14 Tf 60 60 Td (DocPreview sample, {pages} pages) Tj ET").encode()
        objects[page_id] = (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {width} {height}] "
                            f"/Resources << /Font << /F1 3 0 R >> >> /Contents {content_id} 0 R >>").encode()
        objects[content_id] = b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream"
        kids.append(f"{page_id} 0 R")
    objects[2] = f"<< /Type /Pages /Count {pages} /Kids [{' '.join(kids)}] >>".encode()
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = {}
    for number in sorted(objects):
        offsets[number] = len(out)
        out += b"%d 0 obj\n" % number + objects[number] + b"\nendobj\n"
    xref = len(out)
    count = max(objects) + 1
    out += b"xref\n0 %d\n0000000000 65535 f \n" % count
    for number in range(1, count):
        out += b"%010d 00000 n \n" % offsets[number] if number in offsets else b"0000000000 65535 f \n"
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (count, xref)
    open(path, "wb").write(out)


def _zip(path, parts):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in parts:
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, text)


def docx(path):
    _zip(path, [
        ("[Content_Types].xml", '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
         '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
         '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'),
        ("_rels/.rels", '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
         '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>'),
        ("word/document.xml", '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
         '<w:body><w:p><w:r><w:t>Resume: DocPreview sample</w:t></w:r></w:p></w:body></w:document>'),
    ])


def xlsx(path):
    _zip(path, [
        ("[Content_Types].xml", '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
         '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
         '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
         '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>'),
        ("_rels/.rels", '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
         '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>'),
        ("xl/workbook.xml", '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
         'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Stats" sheetId="1" r:id="rId1"/></sheets></workbook>'),
        ("xl/_rels/workbook.xml.rels", '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
         '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>'),
        ("xl/worksheets/sheet1.xml", '<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
         '<sheetData><row r="1"><c r="A1"><v>40</v></c><c r="B1"><v>4.52</v></c></row></sheetData></worksheet>'),
    ])


def zip_archive(path):
    _zip(path, [("notes.txt", "not a document\n")])


def exif_orientation(source, path, orientation):
    """Copies a JPEG, inserting an APP1 Exif segment whose IFD0 holds only Orientation."""
    data = open(source, "rb").read()
    assert data[:2] == b"\xff\xd8"
    tiff = b"II*\x00" + struct.pack("<I", 8) + struct.pack("<H", 1) + struct.pack("<HHII", 0x0112, 3, 1, orientation) + struct.pack("<I", 0)
    payload = b"Exif\x00\x00" + tiff
    open(path, "wb").write(data[:2] + b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload + data[2:])


def rotate_mp4(source, path, degrees):
    """Copies an MP4, writing a display matrix for `degrees` (90, 180, 270) into every video track's
    tkhd box: what phones record, and what `-display_rotation` does in FFmpeg 6 (not in 5.1)."""
    data = bytearray(open(source, "rb").read())
    one, minus = 0x10000, 0xFFFF0000
    matrix = {90: (0, one, minus, 0, 0, 0), 180: (minus, 0, 0, minus, 0, 0), 270: (0, minus, one, 0, 0, 0)}[degrees]
    def walk(start, end):
        while start + 8 <= end:
            size, kind = struct.unpack(">I4s", data[start:start + 8])
            if size < 8:
                return
            if kind in (b"moov", b"trak"):
                walk(start + 8, start + size)
            elif kind == b"tkhd" and data[start + 8] == 0 and struct.unpack(">I", data[start + 84:start + 88])[0] > 0:
                a, b, c, d, x, y = matrix  # only tracks with a width (video) carry the rotation
                struct.pack_into(">9I", data, start + 48, a, b, 0, c, d, 0, x, y, 0x40000000)
            start += size
    walk(0, len(data))
    open(path, "wb").write(data)


def elf(path):
    """A minimal x86-64 ELF header (64 bytes) plus one program header; enough for any sniffer."""
    header = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8) + struct.pack("<HHIQQQIHHHHHH", 2, 62, 1, 0x400078, 64, 0, 0, 64, 56, 1, 0, 0, 0)
    program = struct.pack("<IIQQQQQQ", 1, 5, 0, 0x400000, 0x400000, 0x80, 0x80, 0x1000)
    code = b"\xb8\x3c\x00\x00\x00\x31\xff\x0f\x05"  # exit(0)
    open(path, "wb").write(header + program + code)


def pe(path):
    """A DOS stub whose e_lfanew points at a PE signature and a COFF header."""
    stub = bytearray(b"MZ" + bytes(62))
    struct.pack_into("<I", stub, 0x3C, 64)
    coff = b"PE\x00\x00" + struct.pack("<HHIIIHH", 0x14C, 0, 0, 0, 0, 0, 0x0102)
    open(path, "wb").write(bytes(stub) + coff)


def png_gradient_alpha(path, width=320, height=200):
    """RGBA PNG: a colour gradient whose alpha fades left to right."""
    rows = bytearray()
    for y in range(height):
        rows.append(0)
        for x in range(width):
            rows += bytes([x * 255 // width, y * 255 // height, 160, 255 - x * 255 // width])
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(bytes(rows), 9)) + chunk(b"IEND", b""))


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "pdf":
        pdf(args[0], int(args[1]))
    elif command == "rotate":
        rotate_mp4(args[0], args[1], int(args[2]))
    elif command == "exif":
        exif_orientation(args[0], args[1], int(args[2]))
    else:
        {"docx": docx, "xlsx": xlsx, "zip": zip_archive, "elf": elf, "pe": pe, "png-alpha": png_gradient_alpha}[command](args[0])
