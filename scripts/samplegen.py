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


# Office sources as flat OpenDocument XML; make-samples converts them with `soffice --convert-to`.
_ODF_NS = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
           'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
           'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
           'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
           'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
           'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" '
           'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" '
           'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" '
           'xmlns:xlink="http://www.w3.org/1999/xlink"')

PLAYERS = [("Jordan Lee", "WR", 183, 4.52), ("Sam Ortiz", "QB", 190, 4.81), ("Alex Kim", "CB", 178, 4.44),
           ("José Núñez", "RB", 180, 4.49), ("Zoë Brontë", "S", 176, 4.58), ("Łukasz Żółć", "LB", 188, 4.70)]


def _png_bars(width=240, height=120):
    """A small opaque PNG with coloured bars (an image to embed)."""
    rows = b""
    for y in range(height):
        row = bytearray([0])
        for x in range(width):
            band = x * 4 // width
            row += bytes([(60 + band * 60) % 256, (200 - band * 40) % 256, (90 + y) % 256])
        rows += bytes(row)
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))


def _flat(mimetype, body, styles=""):
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<office:document {_ODF_NS} office:version="1.2" '
            f'office:mimetype="application/vnd.oasis.opendocument.{mimetype}">{styles}<office:body>{body}</office:body></office:document>\n')


def office_text(path, pages, title="Recruiting report"):
    """A report: a heading, a table of players, an embedded image, then `pages` pages in all (page breaks)."""
    import base64
    cells = "".join(
        "<table:table-row>" + "".join(f'<table:table-cell office:value-type="string"><text:p>{v}</text:p></table:table-cell>'
                                      for v in row) + "</table:table-row>"
        for row in [("Player", "Position", "Height (cm)", "40 yd (s)")] + PLAYERS)
    image = base64.b64encode(_png_bars()).decode()
    body = [f'<office:text><text:h text:outline-level="1">{title}</text:h>',
            '<text:p>Prepared for coaches: measurements from the spring combine.</text:p>',
            f'<table:table table:name="Players"><table:table-column table:number-columns-repeated="4"/>{cells}</table:table>',
            '<text:p><draw:frame draw:name="Chart" text:anchor-type="as-char" svg:width="6cm" svg:height="3cm">'
            f'<draw:image><office:binary-data>{image}</office:binary-data></draw:image></draw:frame></text:p>']
    for n in range(2, pages + 1):
        body.append(f'<text:p text:style-name="Break">Page {n}: notes</text:p>')
        body.extend(f"<text:p>Observation {n}.{i}: footwork, hands and route running.</text:p>" for i in range(1, 8))
    styles = ('<office:automatic-styles><style:style style:name="Break" style:family="paragraph">'
              '<style:paragraph-properties fo:break-before="page"/></style:style></office:automatic-styles>')
    open(path, "w", encoding="utf-8").write(_flat("text", "".join(body) + "</office:text>", styles))


def office_sheet(path, season=2026):
    """Two sheets: players, and a season summary."""
    def row(values):
        out = "<table:table-row>"
        for v in values:
            if isinstance(v, (int, float)):
                out += f'<table:table-cell office:value-type="float" office:value="{v}"><text:p>{v}</text:p></table:table-cell>'
            else:
                out += f'<table:table-cell office:value-type="string"><text:p>{v}</text:p></table:table-cell>'
        return out + "</table:table-row>"
    players = row(["Player", "Position", "Height (cm)", "40 yd (s)"]) + "".join(row(p) for p in PLAYERS)
    season = row(["Game", f"Points {season}", "Yards"]) + "".join(row([f"Week {w}", 10 + w * 3 + season % 7, 200 + w * 17]) for w in range(1, 11))
    body = (f'<office:spreadsheet><table:table table:name="Players">{players}</table:table>'
            f'<table:table table:name="Season">{season}</table:table></office:spreadsheet>')
    open(path, "w", encoding="utf-8").write(_flat("spreadsheet", body))


def office_slides(path, year=2026):
    """Two slides with a title and a line of text each."""
    slides = ""
    for n, (title, line) in enumerate([(f"Highlights {year}", "Season in numbers"), ("Next steps", "Visits and offers")], 1):
        slides += (f'<draw:page draw:name="Slide {n}">'
                   f'<draw:frame svg:x="2cm" svg:y="2cm" svg:width="24cm" svg:height="3cm"><draw:text-box>'
                   f'<text:p>{title}</text:p></draw:text-box></draw:frame>'
                   f'<draw:frame svg:x="2cm" svg:y="7cm" svg:width="24cm" svg:height="3cm"><draw:text-box>'
                   f'<text:p>{line}</text:p></draw:text-box></draw:frame></draw:page>')
    open(path, "w", encoding="utf-8").write(_flat("presentation", f"<office:presentation>{slides}</office:presentation>"))


def office_csv(path, encoding):
    """Players with non-ASCII names, semicolon-separated (as spreadsheets in many locales save them)."""
    rows = [p for p in PLAYERS if p[0].encode(encoding, "ignore").decode(encoding) == p[0]]  # names the encoding can hold
    lines = ["player;position;height_cm;forty_yard_s"] + [f"{p};{q};{h};{t}" for p, q, h, t in rows]
    open(path, "w", encoding=encoding, newline="\r\n").write("\n".join(lines) + "\n")


def office_txt_utf16(path, lines):
    """A transcript in UTF-16 (with its byte-order mark), long enough for two pages."""
    text = ["Official transcript — Zoë Brontë", ""] + [f"{n:3d}  Course {n:<20} Grade {'ABC'[n % 3]}{'+-'[n % 2]}" for n in range(1, lines)]
    open(path, "w", encoding="utf-16").write("\n".join(text) + "\n")


def office_set(folder, count):
    """Flat OpenDocument sources of `count` distinct documents for the office benchmarks, in equal
    parts text (to .docx and .odt), spreadsheets (.xlsx) and presentations (.pptx), plus CSV and text files."""
    import os
    for n in range(count):
        kind = n % 6
        if kind in (0, 1):
            office_text(os.path.join(folder, f"report-{n:02d}.fodt"), 1 + n % 3, title=f"Recruiting report {n}")
        elif kind == 2:
            office_sheet(os.path.join(folder, f"stats-{n:02d}.fods"), season=2000 + n)
        elif kind == 3:
            office_slides(os.path.join(folder, f"slides-{n:02d}.fodp"), year=2000 + n)
        elif kind == 4:
            office_csv(os.path.join(folder, f"roster-{n:02d}.csv"), "utf-8")
            with open(os.path.join(folder, f"roster-{n:02d}.csv"), "a", encoding="utf-8") as extra:
                extra.write(f"Player {n};WR;180;4.6\n")
        else:
            office_txt_utf16(os.path.join(folder, f"transcript-{n:02d}.txt"), 40 + n)


def zip_bomb(path, megabytes=100):
    """A .docx whose document part unpacks to `megabytes` MB of zeros (about a thousand times its packed size)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in [("[Content_Types].xml", '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>'),
                           ("_rels/.rels", '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"/>')]:
            archive.writestr(zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0)), text, zipfile.ZIP_DEFLATED)
        info = zipfile.ZipInfo("word/document.xml", date_time=(2024, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        with archive.open(info, "w", force_zip64=False) as part:
            block = b"\0" * (1 << 20)
            for _ in range(megabytes):
                part.write(block)


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "pdf":
        pdf(args[0], int(args[1]))
    elif command == "rotate":
        rotate_mp4(args[0], args[1], int(args[2]))
    elif command == "office-text":
        office_text(args[0], int(args[1]))
    elif command == "office-set":
        office_set(args[0], int(args[1]))
    elif command == "office-csv":
        office_csv(args[0], args[1])
    elif command == "office-txt-utf16":
        office_txt_utf16(args[0], int(args[1]))
    elif command == "exif":
        exif_orientation(args[0], args[1], int(args[2]))
    else:
        {"docx": docx, "xlsx": xlsx, "office-sheet": office_sheet, "office-slides": office_slides, "zip-bomb": zip_bomb, "zip": zip_archive, "elf": elf, "pe": pe, "png-alpha": png_gradient_alpha}[command](args[0])
