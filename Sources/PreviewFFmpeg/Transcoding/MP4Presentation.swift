internal import CFFmpeg
import Foundation

/// How long an MP4 that FFmpeg wrote presents, set after the fact: FFmpeg's MP4 muxer ends each
/// track's edit at its last sample, and a clip's last samples may be frames that only the shown
/// ones refer to (a B-frame's later reference). ``cut(_:toSeconds:)`` shortens every track's last
/// edit to the clip's length and the track and movie headers with it; fields are rewritten in
/// place, so nothing moves. Only files this process wrote are read here.
enum MP4Presentation {
    /// The largest `moov` read: a 2-hour clip's sample tables are a few megabytes.
    static let maxMovieBox = 64 << 20

    /// Cuts the MP4 at `path` to present `seconds` at most.
    static func cut(_ path: String, toSeconds seconds: Double) throws(FFmpegError) {
        guard let file = FileHandle(forUpdatingAtPath: path) else { throw FFmpegError(function: "open for edit list", code: -2) }
        defer { try? file.close() }
        do {
            let size = try file.seekToEnd()
            var offset: UInt64 = 0
            while offset + 8 <= size {
                try file.seek(toOffset: offset)
                let header = [UInt8](try file.read(upToCount: 16) ?? Data())
                guard header.count >= 8 else { break }
                var boxSize = UInt64(Self.uint32(header, 0))
                let type = String(decoding: header[4..<8], as: UTF8.self)
                if boxSize == 1, header.count == 16 { boxSize = Self.uint64(header, 8) }
                if boxSize == 0 { boxSize = size - offset }
                guard boxSize >= 8, boxSize <= size - offset else { break }
                if type == "moov" {
                    guard boxSize <= UInt64(maxMovieBox) else { break }
                    try file.seek(toOffset: offset)
                    var movie = [UInt8](try file.read(upToCount: Int(boxSize)) ?? Data())
                    guard cut(movie: &movie, toSeconds: seconds) else { break }
                    try file.seek(toOffset: offset)
                    try file.write(contentsOf: movie)
                    return
                }
                offset += boxSize
            }
        } catch {
            throw FFmpegError(function: "edit list: \(error)", code: -5)
        }
        throw FFmpegError(function: "edit list: no movie box to cut", code: docpreview_averror_invaliddata())
    }

    /// Cuts the `moov` box `movie` (its header included) to `seconds`: each track's last edit that
    /// shows media ends at `seconds` (never later than it did), its header's duration is its
    /// edits' sum and the movie's the longest track's. False when the box is not as FFmpeg writes it.
    static func cut(movie: inout [UInt8], toSeconds seconds: Double) -> Bool {
        guard let movieHeader = child("mvhd", of: 0..<movie.count, in: movie), movieHeader.count >= 32 else { return false }
        let longVersion = movie[movieHeader.lowerBound] == 1
        let timescale = uint32(movie, movieHeader.lowerBound + (longVersion ? 20 : 12))
        guard timescale > 0, seconds.isFinite, seconds >= 0, seconds * Double(timescale) < Double(UInt32.max) else { return false }
        let total = UInt64((seconds * Double(timescale)).rounded())
        var longest: UInt64 = 0
        for track in children("trak", of: 0..<movie.count, in: movie) {
            guard let edits = child("edts", of: track, in: movie).flatMap({ child("elst", of: $0, in: movie) }),
                let trackHeader = child("tkhd", of: track, in: movie),
                let shown = cutEdits(&movie, edits, to: total)
            else { return false }
            setDuration(&movie, fullBox: trackHeader, at: (short: 20, long: 28), to: shown)
            longest = max(longest, shown)
        }
        setDuration(&movie, fullBox: movieHeader, at: (short: 16, long: 24), to: longest)
        return true
    }

    /// Shortens the last edit of `elst` that shows media so the edits sum to `total` at most;
    /// returns their new sum, nil when the box is malformed.
    private static func cutEdits(_ bytes: inout [UInt8], _ list: Range<Int>, to total: UInt64) -> UInt64? {
        guard list.count >= 8 else { return nil }
        let long = bytes[list.lowerBound] == 1
        let entrySize = long ? 20 : 12
        let count = Int(uint32(bytes, list.lowerBound + 4))
        guard count > 0, count <= (list.count - 8) / entrySize else { return nil }
        let entries = (0..<count).map { list.lowerBound + 8 + $0 * entrySize }
        let table = bytes
        let duration = { (entry: Int) in long ? uint64(table, entry) : UInt64(uint32(table, entry)) }
        let isEmpty = { (entry: Int) in long ? uint64(table, entry + 8) == UInt64.max : uint32(table, entry + 4) == UInt32.max }
        guard let last = entries.last(where: { !isEmpty($0) }) else { return nil }
        let others = entries.filter { $0 != last }.reduce(UInt64(0)) { $0.addingReportingOverflow(duration($1)).partialValue }
        let cut = min(duration(last), total > others ? total - others : 0)
        if long { put(&bytes, cut, at: last, width: 8) } else { put(&bytes, cut, at: last, width: 4) }
        return others + cut
    }

    private static func setDuration(_ bytes: inout [UInt8], fullBox: Range<Int>, at offsets: (short: Int, long: Int), to value: UInt64) {
        let long = bytes[fullBox.lowerBound] == 1
        let at = fullBox.lowerBound + (long ? offsets.long : offsets.short)
        guard at + (long ? 8 : 4) <= fullBox.upperBound else { return }
        put(&bytes, value, at: at, width: long ? 8 : 4)
    }

    /// The payload ranges of the boxes of `type` directly inside `parent` (a payload range; the
    /// whole `moov` for 0..<count, whose own header is skipped).
    private static func children(_ type: String, of parent: Range<Int>, in bytes: [UInt8]) -> [Range<Int>] {
        var found: [Range<Int>] = []
        var offset = parent.lowerBound
        if parent.lowerBound == 0, bytes.count >= 8, String(decoding: bytes[4..<8], as: UTF8.self) == "moov" { offset = 8 }
        while offset + 8 <= parent.upperBound {
            var size = Int(uint32(bytes, offset))
            var header = 8
            if size == 1, offset + 16 <= parent.upperBound {
                guard let long = Int(exactly: uint64(bytes, offset + 8)) else { break }
                (size, header) = (long, 16)
            }
            if size == 0 { size = parent.upperBound - offset }
            guard size >= header, size <= parent.upperBound - offset else { break }
            if String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self) == type { found.append(offset + header..<offset + size) }
            offset += size
        }
        return found
    }

    private static func child(_ type: String, of parent: Range<Int>, in bytes: [UInt8]) -> Range<Int>? {
        children(type, of: parent, in: bytes).first
    }

    private static func uint32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        bytes[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func uint64(_ bytes: [UInt8], _ at: Int) -> UInt64 {
        bytes[at..<at + 8].reduce(0) { $0 << 8 | UInt64($1) }
    }

    private static func put(_ bytes: inout [UInt8], _ value: UInt64, at: Int, width: Int) {
        for index in 0..<width { bytes[at + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(width - 1 - index))) }
    }
}
