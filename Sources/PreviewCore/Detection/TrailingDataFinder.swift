/// Finds bytes after a container's end marker by looking at the file's tail: JPEG EOI, PNG IEND,
/// PDF `%%EOF`, RIFF's declared size. ZIP's end record is handled by ``ZipSniffer``.
enum TrailingDataFinder {
    /// Padding that writers commonly leave after the end marker; not counted as trailing data.
    private static let padding: Set<UInt8> = [0x00, 0x09, 0x0A, 0x0D, 0x20]

    static func find(in probe: ByteProbe, kind: FileKind) -> TrailingData? {
        let tail = probe.tail
        let end: Int?
        switch kind {
        case .jpeg: end = tail.lastOffset(of: [0xFF, 0xD9]).map { $0 + 2 }
        case .png: end = tail.lastOffset(of: Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82]).map { $0 + 8 }
        case .pdf: end = tail.lastOffset(of: Array("%%EOF".utf8)).map { $0 + 5 }
        case .webp, .avi, .wav:
            guard let declared = probe.head.u32le(4) else { return nil }
            let riffEnd = 8 + Int(declared) + Int(declared & 1)
            return riffEnd < probe.size ? trailing(probe, from: riffEnd) : nil
        default: return nil
        }
        guard let end else { return nil }
        let meaningful = tail[end...].contains { !padding.contains($0) }
        return meaningful ? trailing(probe, from: probe.tailOffset + end) : nil
    }

    /// What the trailing bytes are: sniffed where they start, else after any padding
    /// (an MP4 box starts with zero bytes, so padding cannot be skipped first).
    private static func trailing(_ probe: ByteProbe, from offset: Int) -> TrailingData {
        let window = probe.read(at: offset, count: 4096)
        var payload = ContentDetector.sniffMagic(window)
        if payload == .unknown, let first = window.firstIndex(where: { !padding.contains($0) }), first > 0 {
            payload = ContentDetector.sniffMagic(probe.read(at: offset + first, count: 4096))
        }
        return TrailingData(offset: offset, length: probe.size - offset, payload: payload)
    }
}
