import Foundation

/// Where each fragment of a ladder rung's fragmented MP4 has its keyframe: the bytes from a
/// segment's `moof` (after its `sidx` boxes) to the end of its first video sample, which an I-frame playlist lists (Apple's
/// HLS authoring rules: scrubbing on Apple devices fetches those, not whole segments). Reads only
/// the init segment's `moov` and each segment's `moof`, never the media data; every offset is
/// checked against the file and the segment, and anything unexpected is nil (no I-frame playlist).
struct FragmentKeyframes {
    private let file: FileHandle
    private let fileSize: Int
    /// The `track_ID` of the video track.
    private let videoTrack: UInt32

    /// The largest box header and `moof` read: fragments of 2 s hold at most a few hundred samples.
    private static let maxMoof = 1 << 20

    /// Opens `media` and finds its video track in the init segment's `moov` (`initRange`, from the playlist's `EXT-X-MAP`).
    init?(media: URL, initRange: Range<Int>) {
        guard let file = try? FileHandle(forReadingFrom: media), let end = try? file.seekToEnd(), let size = Int(exactly: end) else { return nil }
        self.file = file
        fileSize = size
        guard initRange.upperBound <= size, initRange.count <= Self.maxMoof, let bytes = Self.read(file, initRange),
            let moov = Self.children(of: bytes, in: 0..<bytes.count).first(where: { $0.type == "moov" }),
            let track = Self.videoTrack(in: bytes, moov: moov)
        else { return nil }
        videoTrack = track
    }

    /// The range from `segment`'s `moof` to the end of its first video sample; nil when the segment
    /// has no `moof` among its first boxes whose video run says where that is within the segment.
    func keyframe(of segment: Range<Int>) -> Range<Int>? {
        guard segment.upperBound <= fileSize, let start = moofStart(in: segment),
            let header = Self.read(file, start..<min(segment.upperBound, start + 16)),
            let moof = Self.children(of: header, in: 0..<header.count, partial: true).first,
            moof.size <= Self.maxMoof, moof.size <= segment.upperBound - start,
            let bytes = Self.read(file, start..<(start + moof.size))
        else { return nil }
        for traf in Self.children(of: bytes, in: moof.body) where traf.type == "traf" {
            let boxes = Self.children(of: bytes, in: traf.body)
            guard let tfhd = boxes.first(where: { $0.type == "tfhd" }), let trun = boxes.first(where: { $0.type == "trun" }),
                let header = Self.trackFragmentHeader(bytes, tfhd), header.track == videoTrack,
                let end = Self.firstSampleEnd(bytes, trun, defaultSize: header.defaultSampleSize)
            else { continue }
            // Offsets count from the moof (default-base-is-moof, or no base given) or from the file's start.
            let (sampleEnd, overflow) = (header.baseDataOffset ?? start).addingReportingOverflow(end)
            guard !overflow, sampleEnd > start + moof.size, sampleEnd <= segment.upperBound else { return nil }
            return start..<sampleEnd
        }
        return nil
    }

    /// Where the first `moof` of `segment` starts, past the boxes before it (`styp`, `sidx`, `prft`).
    private func moofStart(in segment: Range<Int>) -> Int? {
        var offset = segment.lowerBound
        for _ in 0..<8 {
            guard let header = Self.read(file, offset..<min(segment.upperBound, offset + 16)),
                let box = Self.children(of: header, in: 0..<header.count, partial: true).first
            else { return nil }
            if box.type == "moof" { return offset }
            guard box.type != "mdat", box.size <= segment.upperBound - offset else { return nil }
            offset += box.size
        }
        return nil
    }

    // MARK: Boxes

    struct Box {
        var type: String
        var start: Int
        var size: Int
        var headerSize: Int
        var body: Range<Int> { (start + headerSize)..<(start + size) }
    }

    /// The boxes laid one after another in `range` of `bytes`; with `partial`, the last may run past it.
    static func children(of bytes: [UInt8], in range: Range<Int>, partial: Bool = false) -> [Box] {
        var boxes: [Box] = []
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound {
            var size = Int(uint32(bytes, offset))
            var headerSize = 8
            if size == 1 {
                guard offset + 16 <= range.upperBound, let large = Int(exactly: uint64(bytes, offset + 8)) else { break }
                (size, headerSize) = (large, 16)
            } else if size == 0 {
                size = range.upperBound - offset
            }
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            guard size >= headerSize, partial || size <= range.upperBound - offset else { break }
            boxes.append(Box(type: type, start: offset, size: size, headerSize: headerSize))
            guard size <= range.upperBound - offset else { break }
            offset += size
        }
        return boxes
    }

    /// The `track_ID` of the `trak` in `moov` whose handler is `vide`.
    private static func videoTrack(in bytes: [UInt8], moov: Box) -> UInt32? {
        for trak in children(of: bytes, in: moov.body) where trak.type == "trak" {
            let boxes = children(of: bytes, in: trak.body)
            guard let tkhd = boxes.first(where: { $0.type == "tkhd" }), let mdia = boxes.first(where: { $0.type == "mdia" }),
                let hdlr = children(of: bytes, in: mdia.body).first(where: { $0.type == "hdlr" }), hdlr.body.count >= 12,
                String(decoding: bytes[(hdlr.body.lowerBound + 8)..<(hdlr.body.lowerBound + 12)], as: UTF8.self) == "vide"
            else { continue }
            // Full box: version (1), flags (3); then the times (4 or 8 each by version) and the track ID.
            let idOffset = tkhd.body.lowerBound + (bytes[tkhd.body.lowerBound] == 1 ? 20 : 12)
            guard idOffset + 4 <= tkhd.body.upperBound else { return nil }
            return uint32(bytes, idOffset)
        }
        return nil
    }

    /// `tfhd`: the track, the explicit base data offset (an offset in the file) and the default sample size.
    private static func trackFragmentHeader(_ bytes: [UInt8], _ tfhd: Box) -> (track: UInt32, baseDataOffset: Int?, defaultSampleSize: UInt32?)? {
        guard tfhd.body.count >= 8 else { return nil }
        let flags = uint32(bytes, tfhd.body.lowerBound) & 0xFF_FFFF
        var offset = tfhd.body.lowerBound + 8
        var base: Int?
        var defaultSize: UInt32?
        for (flag, width) in [(0x1, 8), (0x2, 4), (0x8, 4), (0x10, 4)] where flags & UInt32(flag) != 0 {
            guard offset + width <= tfhd.body.upperBound else { return nil }
            if flag == 0x1 {
                guard let value = Int(exactly: uint64(bytes, offset)) else { return nil }
                base = value
            }
            if flag == 0x10 { defaultSize = uint32(bytes, offset) }
            offset += width
        }
        return (uint32(bytes, tfhd.body.lowerBound + 4), base, defaultSize)
    }

    /// `trun`: the data offset plus the first sample's size, or nil when the run does not say both.
    private static func firstSampleEnd(_ bytes: [UInt8], _ trun: Box, defaultSize: UInt32?) -> Int? {
        guard trun.body.count >= 8 else { return nil }
        let flags = uint32(bytes, trun.body.lowerBound) & 0xFF_FFFF
        guard flags & 0x1 != 0, uint32(bytes, trun.body.lowerBound + 4) > 0 else { return nil }
        var offset = trun.body.lowerBound + 8
        guard offset + 4 <= trun.body.upperBound else { return nil }
        let dataOffset = Int(Int32(bitPattern: uint32(bytes, offset)))
        offset += 4
        if flags & 0x4 != 0 { offset += 4 }
        if flags & 0x100 != 0 { offset += 4 }
        var size = defaultSize
        if flags & 0x200 != 0 {
            guard offset + 4 <= trun.body.upperBound else { return nil }
            size = uint32(bytes, offset)
        }
        guard let size, size > 0, dataOffset > 0 else { return nil }
        return dataOffset + Int(size)
    }

    private static func read(_ file: FileHandle, _ range: Range<Int>) -> [UInt8]? {
        guard range.lowerBound >= 0, (try? file.seek(toOffset: UInt64(range.lowerBound))) != nil,
            let data = try? file.read(upToCount: range.count), data.count == range.count
        else { return nil }
        return [UInt8](data)
    }

    private static func uint32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func uint64(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
        bytes[offset..<(offset + 8)].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
