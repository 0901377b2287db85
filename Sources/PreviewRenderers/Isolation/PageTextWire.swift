import PreviewCore

/// A page's words as a renderer child sends them: little-endian binary, one field after another,
/// decoded in a fraction of the time JSON takes (a text job decodes thousands of pages; as JSON
/// they took the server process as much CPU as reading them took the child). What the parent gets
/// is what JSON gave it: edges to a tenth of a point from the word's left side.
///
/// `1` (the format), page `Int32`, width and height `Float64`, truncated `UInt8`, OCR path (a
/// length `UInt16`, `0xFFFF` for none, then UTF-8), word count `UInt32`; each word: its text (a
/// length `UInt32`, then UTF-8), its box (a count `UInt8`, then `Float64`s), what follows it
/// (`UInt8`: 0 nothing, 1 space, 2 line, 3 hyphen, 4 block), its edges (a count `UInt32`,
/// `0xFFFF_FFFF` for none, then tenths `Int64`). The child is not trusted: every length is checked
/// against the bytes left, and anything else is no page.
enum PageTextWire {
    static let format: UInt8 = 1
    private static let breaks: [PageText.Break?] = [nil, .space, .line, .hyphen, .block]

    static func encode(_ text: PageText) -> [UInt8] {
        var bytes: [UInt8] = [format]
        bytes.reserveCapacity(64 + text.words.count * 64)
        append(UInt32(truncatingIfNeeded: Int32(clamping: text.page)), to: &bytes)
        append(text.width.bitPattern, to: &bytes)
        append(text.height.bitPattern, to: &bytes)
        bytes.append(text.truncated ? 1 : 0)
        if let path = text.ocrPath.map({ Array($0.utf8.prefix(0xFFFE)) }) {
            append(UInt16(path.count), to: &bytes)
            bytes += path
        } else {
            append(UInt16(0xFFFF), to: &bytes)
        }
        append(UInt32(text.words.count), to: &bytes)
        for word in text.words {
            let utf8 = Array(word.text.utf8)
            append(UInt32(utf8.count), to: &bytes)
            bytes += utf8
            let box = word.box.prefix(255)
            bytes.append(UInt8(box.count))
            for value in box { append(value.bitPattern, to: &bytes) }
            bytes.append(UInt8(breaks.firstIndex(of: word.next) ?? 0))
            if let tenths = word.edgeTenths {
                append(UInt32(tenths.count), to: &bytes)
                for tenth in tenths { append(Int64(tenth), to: &bytes) }
            } else {
                append(UInt32.max, to: &bytes)
            }
        }
        return bytes
    }

    /// The page `bytes` hold, or nil when they are not one.
    static func decode(_ bytes: [UInt8]) -> PageText? {
        var reader = Reader(bytes: bytes)
        // Numbers JSON could not have carried (infinities, NaN) are no page either: they would trap the arithmetic after.
        guard reader.byte() == format, let page = reader.uint32(), let width = reader.uint64().map(Double.init(bitPattern:)), width.isFinite,
            let height = reader.uint64().map(Double.init(bitPattern:)), height.isFinite, let truncated = reader.byte(), truncated <= 1,
            let pathLength = reader.uint16()
        else { return nil }
        var ocrPath: String?
        if pathLength != 0xFFFF {
            guard let path = reader.take(Int(pathLength)) else { return nil }
            ocrPath = String(decoding: path, as: UTF8.self)
        }
        guard let count = reader.uint32() else { return nil }
        var words: [PageText.Word] = []
        // Every word takes 10 bytes at least: a count that says more than the bytes hold is refused as it runs out.
        words.reserveCapacity(min(Int(count), reader.remaining / 10))
        for _ in 0..<count {
            guard let length = reader.uint32(), let text = reader.take(Int(length)), let boxCount = reader.byte() else { return nil }
            var box: [Double] = []
            box.reserveCapacity(Int(boxCount))
            for _ in 0..<boxCount {
                guard let value = reader.uint64().map(Double.init(bitPattern:)), value.isFinite else { return nil }
                box.append(value)
            }
            guard let next = reader.byte(), Int(next) < breaks.count, let edgeCount = reader.uint32() else { return nil }
            var edges: [Double]?
            if edgeCount != UInt32.max {
                guard Int(edgeCount) <= reader.remaining / 8 else { return nil }
                var tenths: [Int] = []
                tenths.reserveCapacity(Int(edgeCount))
                for _ in 0..<edgeCount {
                    guard let tenth = reader.uint64() else { return nil }
                    tenths.append(Int(Int64(bitPattern: tenth)))
                }
                edges = PageText.Word.edges(tenths: tenths, left: box.first ?? 0)
            }
            words.append(PageText.Word(text: String(decoding: text, as: UTF8.self), box: box, next: breaks[Int(next)], edges: edges))
        }
        guard reader.remaining == 0 else { return nil }
        return PageText(page: Int(Int32(bitPattern: page)), width: width, height: height, words: words, truncated: truncated == 1, ocrPath: ocrPath)
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }

    /// Reads `bytes` front to back; each read is nil past the end.
    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        var remaining: Int { bytes.count - offset }

        mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
            guard count >= 0, count <= remaining else { return nil }
            defer { offset += count }
            return bytes[offset..<(offset + count)]
        }

        mutating func byte() -> UInt8? { take(1)?.first }
        mutating func uint16() -> UInt16? { integer() }
        mutating func uint32() -> UInt32? { integer() }
        mutating func uint64() -> UInt64? { integer() }

        private mutating func integer<T: FixedWidthInteger>() -> T? {
            guard let slice = take(MemoryLayout<T>.size) else { return nil }
            return slice.reversed().reduce(T.zero) { $0 << 8 | T($1) }
        }
    }
}
