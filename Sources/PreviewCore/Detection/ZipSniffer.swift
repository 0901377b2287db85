/// Reads a ZIP's central directory (from the tail) to tell OOXML and OpenDocument files from plain
/// archives, find encrypted entries, and notice archives whose structure is cut or impossible.
enum ZipSniffer {
    private static let endRecord: [UInt8] = [0x50, 0x4B, 0x05, 0x06]
    private static let centralEntry: [UInt8] = [0x50, 0x4B, 0x01, 0x02]

    struct Entry {
        var name: String
        var encrypted: Bool
        /// Sizes from the central directory; nil for local headers and ZIP64 placeholders.
        var packed: Int? = nil
        var unpacked: Int? = nil
    }

    static func detect(_ probe: ByteProbe) -> Detection {
        let entries: [Entry]
        var declaredCount = 0
        var damage: String?
        var trailing: TrailingData?
        switch readCentralDirectory(probe) {
        case let .success(directory):
            entries = directory.entries
            declaredCount = directory.declaredCount
            damage = impossibleLocalEntry(probe)
            if directory.end < probe.size {
                trailing = TrailingData(
                    offset: directory.end, length: probe.size - directory.end,
                    payload: ContentDetector.sniffMagic(probe.read(at: directory.end, count: 4096)))
            }
        case let .failure(problem):
            damage = problem.reason
            entries = localEntries(probe.head)
        }
        var detection = Detection(kind: classify(entries, head: probe.head), damage: damage, trailing: trailing)
        detection.encrypted = entries.contains { $0.encrypted }
        detection.unpacked = size(of: entries, declaredCount: declaredCount)
        return detection
    }

    private static func classify(_ entries: [Entry], head: [UInt8]) -> FileKind {
        // OpenDocument stores an uncompressed `mimetype` entry first.
        if head.matches("mimetype", at: 30) {
            let type = String(decoding: head.dropFirst(38).prefix(60), as: UTF8.self)
            if type.hasPrefix("application/vnd.oasis.opendocument.text") { return .odt }
            if type.hasPrefix("application/vnd.oasis.opendocument.spreadsheet") { return .ods }
            if type.hasPrefix("application/vnd.oasis.opendocument.presentation") { return .odp }
        }
        let names = Set(entries.map(\.name))
        guard names.contains("[Content_Types].xml") else { return .zip }
        if names.contains(where: { $0.hasPrefix("word/") }) { return .docx }
        if names.contains(where: { $0.hasPrefix("xl/") }) { return .xlsx }
        if names.contains(where: { $0.hasPrefix("ppt/") }) { return .pptx }
        return .ooxml
    }

    /// Totals over the central directory's entries; an entry without sizes, or entries beyond what
    /// was read, leave the unpacked total unknown.
    private static func size(of entries: [Entry], declaredCount: Int) -> UnpackedSize {
        var unpacked: Int? = entries.count < declaredCount ? nil : 0
        for entry in entries { unpacked = unpacked.flatMap { total in entry.unpacked.map { total + $0 } } }
        return UnpackedSize(
            entries: max(entries.count, declaredCount), packedBytes: entries.reduce(0) { $0 + ($1.packed ?? 0) }, unpackedBytes: unpacked)
    }

    struct Problem: Error { var reason: String }

    private struct Directory {
        var entries: [Entry]
        /// Where the end record (with its comment) ends.
        var end: Int
        /// Entries the end record counts (the central directory may be longer than what was read).
        var declaredCount: Int
    }

    private static func readCentralDirectory(_ probe: ByteProbe) -> Result<Directory, Problem> {
        guard let recordInTail = probe.tail.lastOffset(of: endRecord) else {
            return .failure(Problem(reason: "the ZIP end record is missing (the archive is truncated)"))
        }
        let tail = probe.tail
        let recordOffset = probe.tailOffset + recordInTail
        guard let count = tail.u16le(recordInTail + 10), let cdSize = tail.u32le(recordInTail + 12),
            let cdOffset = tail.u32le(recordInTail + 16), let commentLength = tail.u16le(recordInTail + 20)
        else {
            return .failure(Problem(reason: "the ZIP end record is cut short"))
        }
        let end = recordOffset + 22 + Int(commentLength)
        if cdOffset == 0xFFFF_FFFF || cdSize == 0xFFFF_FFFF {
            // ZIP64: trust the local headers for naming; sizes are checked by whoever extracts.
            return .success(Directory(entries: localEntries(probe.head), end: max(end, probe.size), declaredCount: Int(count)))
        }
        guard Int(cdOffset) + Int(cdSize) <= recordOffset else {
            return .failure(Problem(reason: "the ZIP central directory lies outside the file"))
        }
        let directory = probe.read(at: Int(cdOffset), count: Int(cdSize))
        var entries: [Entry] = []
        var offset = 0
        while entries.count < Int(count), directory.matches(centralEntry, at: offset) {
            guard let flags = directory.u16le(offset + 8), let compressed = directory.u32le(offset + 20),
                let uncompressed = directory.u32le(offset + 24), let nameLength = directory.u16le(offset + 28),
                let extraLength = directory.u16le(offset + 30),
                let commentLen = directory.u16le(offset + 32), let localOffset = directory.u32le(offset + 42)
            else { break }
            if compressed != 0xFFFF_FFFF, localOffset != 0xFFFF_FFFF, Int(localOffset) + Int(compressed) > recordOffset {
                return .failure(Problem(reason: "a ZIP entry claims more bytes than the file holds"))
            }
            let nameStart = offset + 46
            let name = String(decoding: directory.dropFirst(nameStart).prefix(Int(nameLength)), as: UTF8.self)
            let sized = compressed != 0xFFFF_FFFF && uncompressed != 0xFFFF_FFFF
            entries.append(
                Entry(
                    name: name, encrypted: flags & 1 != 0, packed: sized ? Int(compressed) : nil,
                    unpacked: sized ? Int(uncompressed) : nil))
            offset = nameStart + Int(nameLength) + Int(extraLength) + Int(commentLen)
            if directory.count >= ByteProbe.maxReadSize && offset >= directory.count { break }
        }
        if entries.count < Int(count) && directory.count < ByteProbe.maxReadSize {
            return .failure(Problem(reason: "the ZIP central directory is damaged"))
        }
        return .success(Directory(entries: entries, end: end, declaredCount: Int(count)))
    }

    private static let localHeader: [UInt8] = [0x50, 0x4B, 0x03, 0x04]

    /// Entries named by local headers found in the head: the fallback when the central directory is gone.
    /// Scans for signatures rather than following sizes, which data descriptors leave unknown.
    private static func localEntries(_ head: [UInt8]) -> [Entry] {
        var entries: [Entry] = []
        var offset = 0
        while entries.count < 256, let found = head.firstOffset(of: localHeader, from: offset) {
            guard let flags = head.u16le(found + 6), let nameLength = head.u16le(found + 26) else { break }
            let name = String(decoding: head.dropFirst(found + 30).prefix(Int(nameLength)), as: UTF8.self)
            entries.append(Entry(name: name, encrypted: flags & 1 != 0))
            offset = found + 30 + Int(nameLength)
        }
        return entries
    }

    /// The first local header, when its declared size (no data descriptor) runs past the end of the file.
    private static func impossibleLocalEntry(_ probe: ByteProbe) -> String? {
        let head = probe.head
        guard head.matches(localHeader), let flags = head.u16le(6), flags & 8 == 0,
            let compressed = head.u32le(18), compressed != 0xFFFF_FFFF,
            let nameLength = head.u16le(26), let extraLength = head.u16le(28)
        else { return nil }
        let end = 30 + Int(nameLength) + Int(extraLength) + Int(compressed)
        return end > probe.size ? "a ZIP entry claims more bytes than the file holds" : nil
    }
}
