import Foundation
import PreviewCore

/// PDFs whose first page is small to store and endless to draw, as a stranger would upload them:
/// a chain of form XObjects in which each draws the next `fanOut` times, `depth` deep, so the page
/// draws the last one `fanOut^depth` times. With a fan-out of 2 each form's content stream has two
/// operators, fewer than Poppler's abort callback waits for; later pages (`plainPages`) are plain.
package enum SlowPDF {
    package static func make(depth: Int = 30, fanOut: Int = 2, plainPages: Int = 0) -> [UInt8] {
        var objects: [String] = []
        let formBase = 4 + plainPages * 2
        // 1 catalog, 2 pages, 3 the slow page, then each plain page and its contents, then the forms.
        let kids = ["3 0 R"] + (0..<plainPages).map { "\(4 + $0 * 2) 0 R" }
        objects.append("<< /Type /Catalog /Pages 2 0 R >>")
        objects.append("<< /Type /Pages /Kids [\(kids.joined(separator: " "))] /Count \(kids.count) >>")
        objects.append(
            """
            << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /F0 \(formBase) 0 R >> >> \
            /Contents \(formBase + depth + 1) 0 R >>
            """)
        for page in 0..<plainPages {
            let contents = 5 + page * 2
            objects.append("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents \(contents) 0 R >>")
            objects.append(stream("0 0 1 rg 72 72 200 100 re f"))
        }
        for level in 0..<depth {
            let draws = Array(repeating: "/N Do", count: fanOut).joined(separator: " ")
            objects.append(
                stream(
                    draws,
                    dictionary: "/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /XObject << /N \(formBase + level + 1) 0 R >> >>"))
        }
        objects.append(stream("0 0 0 rg 10 10 5 5 re f", dictionary: "/Type /XObject /Subtype /Form /BBox [0 0 612 792]"))
        objects.append(stream("/F0 Do"))
        return PDFWriter.document(objects)
    }

    private static func stream(_ content: String, dictionary: String = "") -> String {
        "<< \(dictionary) /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream"
    }
}

/// Writes PDF objects as a file with a correct cross-reference table: `objects[0]` is object 1 and
/// the catalog (``PagesPDF/document(_:)``, for text objects).
package enum PDFWriter {
    package static func document(_ objects: [String]) -> [UInt8] {
        PagesPDF.document(objects.map { Array($0.utf8) })
    }
}

/// A Letter page of dense text (60 lines of 9 pt Helvetica) with hairlines between paragraphs: what a
/// zoomed transcript or letter shows, where a soft or shifted render is plain to see. `rotate` is the
/// page's /Rotate (a page scanned or set sideways).
package enum TextPDF {
    /// The page's content stream.
    static var content: String {
        var content = "BT /F1 9 Tf 11 TL 54 750 Td\n"
        for line in 0..<60 {
            content += "(\(line + 1). The quick brown fox jumps over the lazy dog; GPA 3.87, 40-yd 4.52 s, vertical 34.5 in.) '\n"
        }
        content += "ET 0.25 w 0 0 0 RG\n"
        for rule in 0..<12 { content += "54 \(740 - rule * 55) m 558 \(740 - rule * 55) l S\n" }
        return content
    }

    /// `pages` pages that all draw the one content stream: a small file (about 100 bytes a page)
    /// with a thousand words on every page, as a hostile upload makes a lot of text of little.
    package static func repeated(pages: Int) -> [UInt8] {
        let content = Self.content
        let kids = (0..<pages).map { "\(5 + $0) 0 R" }.joined(separator: " ")
        return PDFWriter.document(
            [
                "<< /Type /Catalog /Pages 2 0 R >>",
                "<< /Type /Pages /Kids [\(kids)] /Count \(pages) >>",
                "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
                "<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream"
            ]
                + (0..<pages).map { _ in
                    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>"
                })
    }

    package static func make(rotate: Int = 0) -> [UInt8] {
        let content = Self.content
        return PDFWriter.document([
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Rotate \(rotate) /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
            "<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream"
        ])
    }
}

/// A PDF whose pages hold the given lines of 12 pt Helvetica (Windows-1252, so "École" and
/// "Müller" are text a search must fold), one page per element.
package enum LinesPDF {
    package static func make(_ pages: [[String]]) -> [UInt8] {
        let kids = pages.indices.map { "\(4 + 2 * $0) 0 R" }.joined(separator: " ")
        var objects = [
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [\(kids)] /Count \(pages.count) >>",
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
        ]
        for (index, lines) in pages.enumerated() {
            var content = "BT /F1 12 Tf 16 TL 72 720 Td\n"
            for line in lines { content += "(\(literal(line))) '\n" }
            content += "ET"
            objects.append(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents \(5 + 2 * index) 0 R >>")
            objects.append("<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream")
        }
        return PDFWriter.document(objects)
    }

    /// `text` as a PDF string's contents: Windows-1252 bytes, those outside ASCII (and the string's
    /// own delimiters) escaped.
    private static func literal(_ text: String) -> String {
        let bytes = text.data(using: .windowsCP1252).map(Array.init) ?? Array(text.utf8)
        return bytes.map { byte in
            switch byte {
            case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "\\"): "\\" + String(UnicodeScalar(byte))
            case 0x20..<0x7F: String(UnicodeScalar(byte))
            default: "\\" + String(byte, radix: 8)
            }
        }.joined()
    }
}

/// A scan: a PDF of `pages` Letter pages, each the same JPEG image and no text (the JPEG
/// hex-encoded once, so the file is text and small whatever its length).
package enum ScanPDF {
    package static func make(jpeg: [UInt8], width: Int, height: Int, pages: Int = 1) -> [UInt8] {
        let hex = jpeg.map { String(format: "%02x", $0) }.joined() + ">"
        let content = "q 612 0 0 792 0 0 cm /Scan Do Q"
        var objects = [
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [\((0..<pages).map { "\(6 + $0) 0 R" }.joined(separator: " "))] /Count \(pages) >>",
            """
            << /Type /XObject /Subtype /Image /Width \(width) /Height \(height) /ColorSpace /DeviceRGB /BitsPerComponent 8
               /Filter [/ASCIIHexDecode /DCTDecode] /Length \(hex.utf8.count) >>
            stream
            \(hex)
            endstream
            """,
            "<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream",
            "<< /XObject << /Scan 3 0 R >> >>"
        ]
        objects += (0..<pages).map { _ in "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources 5 0 R /Contents 4 0 R >>" }
        return PDFWriter.document(objects)
    }
}

/// A stats sheet: one Letter page with a header row and `rows` players, each with `columns` figures
/// (games, minutes, percentages: whole numbers and tenths) in columns of their own, Helvetica 10 pt,
/// every cell set where its column starts — the page whose figures OCR's automatic segmentation
/// drops whole columns of.
package enum StatsSheetPDF {
    /// The figure in `column` of `row`: made from the two, never the same twice in a column.
    package static func figure(row: Int, column: Int) -> String {
        let value = (row * 37 + column * 113 + row * column * 7) % 900 + 10
        return column % 3 == 0 ? String(value / 10) : "\(value / 10).\(value % 10)"
    }

    package static func make(rows: Int = 15, columns: Int = 10) -> [UInt8] {
        var content = "BT /F1 10 Tf\n"
        func cell(_ text: String, x: Int, y: Int) {
            content += "1 0 0 1 \(x) \(y) Tm (\(text)) Tj\n"
        }
        cell("Player", x: 54, y: 720)
        for column in 0..<columns { cell("C\(column + 1)", x: 170 + column * 40, y: 720) }
        for row in 0..<rows {
            let y = 700 - row * 16
            cell("Player \(row + 1)", x: 54, y: y)
            for column in 0..<columns { cell(figure(row: row, column: column), x: 170 + column * 40, y: y) }
        }
        content += "ET"
        return PDFWriter.document([
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
            "<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream"
        ])
    }
}
