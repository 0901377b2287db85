/// A PDF rebuilt from pictures of its pages: one page per JPEG, the picture filling it, nothing
/// else (no text layer, no links, no scripts, nothing of the original's). What a share serves as
/// its download when the original must not leave (a watermark burned into every page).
package enum PagesPDF {
    /// A page: a JPEG in RGB, `width`×`height` pixels, drawn at ``PagesPDF/dpi``.
    package struct Page: Sendable {
        package var jpeg: [UInt8]
        package var width: Int
        package var height: Int

        package init(jpeg: [UInt8], width: Int, height: Int) {
            (self.jpeg, self.width, self.height) = (jpeg, width, height)
        }
    }

    /// The resolution pages are drawn at: a page's size in points is its pixels × 72 / this.
    package static let dpi = 150

    /// The document of `pages`, in order.
    package static func make(_ pages: [Page]) -> [UInt8] {
        func text(_ string: String) -> [UInt8] { Array(string.utf8) }
        // 1 the catalog, 2 the page tree, then per page: the page, its picture, its content.
        let kids = pages.indices.map { "\(3 + 3 * $0) 0 R" }.joined(separator: " ")
        var objects = [text("<< /Type /Catalog /Pages 2 0 R >>"), text("<< /Type /Pages /Kids [\(kids)] /Count \(pages.count) >>")]
        for (index, page) in pages.enumerated() {
            let first = 3 + 3 * index
            let (width, height) = (points(page.width), points(page.height))
            objects.append(
                text(
                    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 \(width) \(height)] "
                        + "/Resources << /XObject << /P \(first + 1) 0 R >> >> /Contents \(first + 2) 0 R >>"))
            objects.append(
                text(
                    "<< /Type /XObject /Subtype /Image /Width \(page.width) /Height \(page.height) /ColorSpace /DeviceRGB "
                        + "/BitsPerComponent 8 /Filter /DCTDecode /Length \(page.jpeg.count) >>\nstream\n") + page.jpeg + text("\nendstream"))
            let content = "q \(width) 0 0 \(height) 0 0 cm /P Do Q"
            objects.append(text("<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream"))
        }
        return document(objects)
    }

    /// A PDF file of `objects` (`objects[0]` is object 1, the catalog) with its cross-reference table.
    package static func document(_ objects: [[UInt8]]) -> [UInt8] {
        var out = Array("%PDF-1.7\n".utf8)
        var offsets: [Int] = []
        for (index, object) in objects.enumerated() {
            offsets.append(out.count)
            out += Array("\(index + 1) 0 obj\n".utf8) + object + Array("\nendobj\n".utf8)
        }
        let xref = out.count
        var table = "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for offset in offsets {
            let digits = String(offset)
            table += String(repeating: "0", count: max(0, 10 - digits.count)) + digits + " 00000 n \n"
        }
        table += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        return out + Array(table.utf8)
    }

    /// `pixels` at ``dpi`` in points, to two decimals.
    private static func points(_ pixels: Int) -> String {
        let hundredths = pixels * 7200 / dpi
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
