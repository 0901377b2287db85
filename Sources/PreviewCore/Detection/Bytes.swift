/// Fixed-width integer reads and searches over byte buffers, bounds-checked (nil when short).
extension Collection where Element == UInt8, Index == Int {
    func u8(_ offset: Int) -> UInt8? {
        let i = startIndex + offset
        return offset >= 0 && i < endIndex ? self[i] : nil
    }

    func u16le(_ offset: Int) -> UInt16? { int(offset, width: 2, bigEndian: false).map(UInt16.init) }
    func u16be(_ offset: Int) -> UInt16? { int(offset, width: 2, bigEndian: true).map(UInt16.init) }
    func u32le(_ offset: Int) -> UInt32? { int(offset, width: 4, bigEndian: false).map(UInt32.init) }
    func u32be(_ offset: Int) -> UInt32? { int(offset, width: 4, bigEndian: true).map(UInt32.init) }
    func u64be(_ offset: Int) -> UInt64? { int(offset, width: 8, bigEndian: true) }

    private func int(_ offset: Int, width: Int, bigEndian: Bool) -> UInt64? {
        guard offset >= 0, startIndex + offset + width <= endIndex else { return nil }
        var value: UInt64 = 0
        for k in 0..<width {
            let byte = UInt64(self[startIndex + offset + (bigEndian ? k : width - 1 - k)])
            value = value << 8 | byte
        }
        return value
    }

    /// True when the bytes at `offset` equal `pattern`.
    func matches(_ pattern: [UInt8], at offset: Int = 0) -> Bool {
        guard offset >= 0, startIndex + offset + pattern.count <= endIndex else { return false }
        var i = startIndex + offset
        for byte in pattern {
            if self[i] != byte { return false }
            i += 1
        }
        return true
    }

    func matches(_ ascii: String, at offset: Int = 0) -> Bool { matches(Array(ascii.utf8), at: offset) }

    /// The offset (from startIndex) of the first occurrence of `pattern` at or after `from`.
    func firstOffset(of pattern: [UInt8], from: Int = 0) -> Int? {
        guard let first = pattern.first, count >= pattern.count else { return nil }
        var offset = Swift.max(0, from)
        let last = count - pattern.count
        while offset <= last {
            if self[startIndex + offset] == first && matches(pattern, at: offset) { return offset }
            offset += 1
        }
        return nil
    }

    /// The offset (from startIndex) of the last occurrence of `pattern`.
    func lastOffset(of pattern: [UInt8]) -> Int? {
        guard let first = pattern.first, count >= pattern.count else { return nil }
        var offset = count - pattern.count
        while offset >= 0 {
            if self[startIndex + offset] == first && matches(pattern, at: offset) { return offset }
            offset -= 1
        }
        return nil
    }

    /// A four-character code read as ASCII, e.g. `ftyp`.
    func fourCC(_ offset: Int) -> String? {
        guard offset >= 0, startIndex + offset + 4 <= endIndex else { return nil }
        return String(decoding: self[(startIndex + offset)..<(startIndex + offset + 4)], as: UTF8.self)
    }
}
