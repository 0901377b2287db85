import Foundation
import PreviewCore
import PreviewFFmpeg

/// An adaptive ladder for a long or large video: HLS renditions at 360p, 720p and 1080p (as the
/// source allows), each one fragmented MP4 whose playlist lists its segments as byte ranges, cut on
/// a 2 s keyframe grid, and a master playlist over
/// them with each rung's peak and average bit rate, resolution and codecs, so AVPlayer (and hls.js)
/// starts on a rung the network carries and switches as it changes, and a seek lands within 2 s.
/// Each rung has an I-frame playlist too (`EXT-X-I-FRAME-STREAM-INF`): each segment's keyframe as a
/// byte range, what Apple devices fetch to show frames while scrubbing.
///
/// Every rung is re-encoded (capped CRF: the settings' CRF under a ceiling per rung), so its
/// keyframes fall on the segment grid whatever the source's spacing. Written into a staged folder
/// beside the destination and moved there when complete.
public struct VideoLadder: Sendable {
    package var transcoding: VideoTranscoding

    /// The rungs, by short side, with their bit-rate ceilings (Apple's HLS authoring ranges).
    package static let rungs: [(height: Int, maxBitrate: Int)] = [(360, 1_000_000), (720, 3_500_000), (1080, 6_500_000)]

    public init(transcoding: VideoTranscoding = VideoTranscoding()) {
        self.transcoding = transcoding
    }

    public struct Rung: Sendable, Codable, Equatable {
        /// `360p`: also the stem of its files (``playlist`` and ``media``).
        package var name: String
        package var width: Int
        package var height: Int
        package var codecs: String
        /// Peak and average bits per second over its segments, as `EXT-X-STREAM-INF` states them.
        package var bandwidth: Int
        package var averageBandwidth: Int
        /// Frames per second (`FRAME-RATE`, which Apple's authoring rules ask of every variant);
        /// nil in ladders made before it was kept.
        package var frameRate: Double?
        /// The peak bits per second of its I-frame playlist (``iFramePlaylist``); nil when it has none.
        package var iFrameBandwidth: Int?

        /// Its media playlist, and the fragmented MP4 whose byte ranges that playlist lists.
        package var playlist: String { "\(name).m3u8" }
        package var media: String { "\(name).mp4" }
        /// Its I-frame playlist: its segments' keyframes, as byte ranges of ``media``.
        package var iFramePlaylist: String { "\(name)-iframes.m3u8" }

        /// Its playlists: the media playlist, and the I-frame one when it has it.
        package var playlists: [String] { [playlist] + (iFrameBandwidth == nil ? [] : [iFramePlaylist]) }

        enum CodingKeys: String, CodingKey {
            case name, width, height, codecs, bandwidth
            case averageBandwidth = "average_bandwidth"
            case frameRate = "frame_rate"
            case iFrameBandwidth = "iframe_bandwidth"
        }
    }

    /// The file name of the master playlist in the ladder's folder.
    package static let masterName = "master.m3u8"

    /// The rungs a video whose picture's short side is `shortSide` gets: those up to its size, or one
    /// at its own size when it is smaller than the lowest.
    static func rungs(shortSide: Double) -> [(height: Int, maxBitrate: Int)] {
        let fitting = rungs.filter { Double($0.height) <= shortSide.rounded() }
        return fitting.isEmpty ? [(Int(shortSide.rounded()), rungs[0].maxBitrate)] : fitting
    }

    /// The work of the ladder of a video whose short side is `shortSide`, against one 720p
    /// rendition's: each rung decodes the source again and encodes its own pixels.
    package static func relativeWork(shortSide: Double) -> Double {
        rungs(shortSide: shortSide).reduce(0) { $0 + work(height: $1.height) }
    }

    private static func work(height: Int) -> Double { max(0.5, pow(Double(height) / 720, 2)) }

    /// Writes the ladder of the video at `path` into the folder `output` (replacing it when complete),
    /// telling `progress` the fraction done over all rungs.
    public func make(
        _ path: String, kind: FileKind? = nil, into output: String,
        progress: (Double) -> Void = { _ in }
    ) throws(PreviewError) -> [Rung] {
        let source = try transcoding.plan(path, kind: kind)
        let shortSide = min(source.video.displaySize.width, source.video.displaySize.height)
        let rungs = Self.rungs(shortSide: shortSide)
        let work = Self.relativeWork(shortSide: shortSide)

        let staged = URL(fileURLWithPath: output + ".partial-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: staged) }
        do {
            try FileManager.default.createDirectory(at: staged, withIntermediateDirectories: false)
        } catch {
            throw PreviewError(.internal, "The ladder's folder could not be made beside \(output).", detail: "\(error)")
        }
        var made: [Rung] = []
        var done = 0.0
        for (height, maxBitrate) in rungs {
            var settings = transcoding.settings
            settings.height = height
            let name = "\(height)p"
            let share = Self.work(height: height) / work
            let playlist = staged.appendingPathComponent("\(name).m3u8")
            let result = try transcoding.transcode(
                path, kind: kind, settings: settings, reencode: true, maxBitrate: maxBitrate,
                to: .hls(playlist: playlist.path, mediaPath: staged.appendingPathComponent("\(name).mp4").path)
            ) {
                progress(done + $0 * share)
            }
            done += share
            let media = staged.appendingPathComponent("\(name).mp4")
            let text = try Self.check(playlist: playlist, media: media)
            let rates = Self.bitRates(text)
            var rung = Rung(
                name: name, width: result.plan.width, height: result.plan.height, codecs: result.codecs,
                bandwidth: rates.peak, averageBandwidth: rates.average, frameRate: result.frameRate)
            if let iFrames = Self.iFramePlaylist(of: text, media: media) {
                let file = staged.appendingPathComponent(rung.iFramePlaylist)
                do {
                    try Data(iFrames.utf8).write(to: file)
                } catch {
                    throw PreviewError(
                        RendererPool.isNearlyFull(near: file.path) ? .storageFull : .internal,
                        "The rung's I-frame playlist could not be written.", detail: "\(error)")
                }
                rung.iFrameBandwidth = Self.bitRates(iFrames).peak
            }
            made.append(rung)
        }
        do {
            try Data(Self.masterPlaylist(made).utf8).write(to: staged.appendingPathComponent(Self.masterName))
            if FileManager.default.fileExists(atPath: output) { try FileManager.default.removeItem(atPath: output) }
            try FileManager.default.moveItem(at: staged, to: URL(fileURLWithPath: output))
        } catch {
            throw PreviewError(.internal, "The ladder could not be moved to \(output).", detail: "\(error)")
        }
        return made
    }

    /// The master playlist over `rungs`, lowest first (where a player starts).
    static func masterPlaylist(_ rungs: [Rung]) -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-INDEPENDENT-SEGMENTS"]
        for rung in rungs {
            let frameRate = rung.frameRate.map { ",FRAME-RATE=" + String(format: "%.3f", $0) } ?? ""
            lines.append(
                "#EXT-X-STREAM-INF:BANDWIDTH=\(rung.bandwidth),AVERAGE-BANDWIDTH=\(rung.averageBandwidth),"
                    + "RESOLUTION=\(rung.width)x\(rung.height)\(frameRate),CODECS=\"\(rung.codecs)\"")
            lines.append(rung.playlist)
        }
        for rung in rungs {
            guard let bandwidth = rung.iFrameBandwidth else { continue }
            lines.append(
                "#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=\(bandwidth),RESOLUTION=\(rung.width)x\(rung.height),"
                    + "CODECS=\"\(rung.codecs.split(separator: ",").first ?? "")\",URI=\"\(rung.iFramePlaylist)\"")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A rung's I-frame playlist: its media playlist with each segment's byte range cut to the
    /// segment's `moof` and first video sample (``FragmentKeyframes``); nil when a segment's
    /// keyframe cannot be found (the ladder then has none: scrubbing fetches whole segments).
    static func iFramePlaylist(of text: String, media: URL) -> String? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let map = lines.lazy.compactMap(mapRange).first, let initRange = byteRange(map),
            let keyframes = FragmentKeyframes(media: media, initRange: initRange)
        else { return nil }
        var out: [String] = []
        for line in lines {
            if line.hasPrefix("#EXT-X-BYTERANGE:") {
                guard let segment = byteRange(line.dropFirst(17)), let keyframe = keyframes.keyframe(of: segment) else { return nil }
                out.append("#EXT-X-BYTERANGE:\(keyframe.count)@\(keyframe.lowerBound)")
            } else {
                out.append(String(line))
                if line.hasPrefix("#EXT-X-PLAYLIST-TYPE:") { out.append("#EXT-X-I-FRAMES-ONLY") }
            }
        }
        return out.contains("#EXT-X-I-FRAMES-ONLY") ? out.joined(separator: "\n") : nil
    }

    /// Marks `plays` in the media playlists of `rungs` in `folder` (``markingPlays(_:plays:)``).
    package static func markPlays(_ plays: [Play], in rungs: [Rung], folder: URL) throws(PreviewError) {
        for rung in rungs {
            let file = folder.appendingPathComponent(rung.playlist)
            do {
                let text = try String(contentsOf: file, encoding: .utf8)
                try Data(markingPlays(text, plays: plays).utf8).write(to: file)
            } catch {
                throw PreviewError(.internal, "The ladder's playlists could not be marked with the plays.", detail: "\(error)")
            }
        }
    }

    /// A media playlist with `plays` marked as `EXT-X-DATERANGE`s (class ``playClass``, one per play
    /// after the first, each starting at its cut). Dates need a clock: the stream's first segment is
    /// given `EXT-X-PROGRAM-DATE-TIME` 1970-01-01T00:00:00Z, so a play's date is its offset.
    static func markingPlays(_ playlist: String, plays: [Play]) -> String {
        guard plays.count > 1 else { return playlist }
        var lines = playlist.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let first = lines.firstIndex(where: { $0.hasPrefix("#EXTINF") }) else { return playlist }
        let marks = plays.enumerated().dropFirst().map { number, play in
            "#EXT-X-DATERANGE:ID=\"play-\(number + 1)\",CLASS=\"\(playClass)\",START-DATE=\"\(date(play.start))\","
                + "DURATION=\(String(format: "%.3f", play.end - play.start))"
        }
        lines.insert(contentsOf: ["#EXT-X-PROGRAM-DATE-TIME:\(date(0))"] + marks, at: first)
        return lines.joined(separator: "\n")
    }

    /// The `CLASS` of a play's `EXT-X-DATERANGE`.
    package static let playClass = "com.docpreview.play"

    /// `seconds` after 1970-01-01T00:00:00Z, as ISO 8601 with milliseconds.
    private static func date(_ seconds: Double) -> String {
        let milliseconds = Int((seconds * 1000).rounded())
        let (days, hours, minutes, secs, millis) = (
            milliseconds / 86_400_000, milliseconds / 3_600_000 % 24, milliseconds / 60_000 % 60, milliseconds / 1000 % 60, milliseconds % 1000
        )
        return String(format: "1970-01-%02dT%02d:%02d:%02d.%03dZ", 1 + days, hours, minutes, secs, millis)
    }

    /// The `length@offset` of an `EXT-X-MAP` line's `BYTERANGE` (the init segment); nil for other lines.
    private static func mapRange(_ line: Substring) -> Substring? {
        guard line.hasPrefix("#EXT-X-MAP:"), let start = line.range(of: "BYTERANGE=\"") else { return nil }
        return line[start.upperBound...].prefix { $0 != "\"" }
    }

    /// `length@offset` as a range of bytes.
    private static func byteRange(_ text: Substring) -> Range<Int>? {
        let parts = text.split(separator: "@").compactMap { Int($0) }
        guard parts.count == 2, parts[0] > 0, parts[1] >= 0, parts[1] <= Int.max - parts[0] else { return nil }
        return parts[1]..<(parts[1] + parts[0])
    }

    /// The rung's playlist, refused when it and its media file disagree (``mismatch(playlist:mediaSize:)``).
    /// On a (nearly) full disk that is `storage_full`, to be tried again once there is room; never
    /// a ladder recorded half written.
    @discardableResult
    static func check(playlist: URL, media: URL) throws(PreviewError) -> String {
        var info = stat()
        let size = stat(media.path, &info) == 0 ? Int(info.st_size) : 0
        let text = (try? String(contentsOf: playlist, encoding: .utf8)) ?? ""
        guard let mismatch = mismatch(playlist: text, mediaSize: size) else { return text }
        let full = RendererPool.isNearlyFull(near: media.path)
        throw PreviewError(
            full ? .storageFull : .internal,
            full
                ? "There is no room left to write the video's ladder: the disk is full."
                : "The ladder's \(playlist.lastPathComponent) does not match its media file.",
            detail: mismatch)
    }

    /// What is wrong with a media playlist over a media file of `mediaSize` bytes (what a muxer that
    /// lost writes leaves): no segment, or a byte range past the media's end; nil when they agree.
    package static func mismatch(playlist text: String, mediaSize: Int) -> String? {
        var segments = 0
        for line in text.split(separator: "\n") {
            let range: Substring
            if line.hasPrefix("#EXT-X-BYTERANGE:") {
                range = line.dropFirst(17)
                segments += 1
            } else if let map = mapRange(line) {
                range = map
            } else {
                continue
            }
            guard let bytes = byteRange(range), bytes.upperBound <= mediaSize else {
                return "the byte range \(range) is past the end of the \(mediaSize) bytes of media"
            }
        }
        return segments > 0 ? nil : "no segment over \(mediaSize) bytes of media"
    }

    /// Peak and average bits per second of a media playlist's segments, from their byte ranges
    /// (`#EXT-X-BYTERANGE:length@offset`) and `#EXTINF` durations.
    static func bitRates(_ text: String) -> (peak: Int, average: Int) {
        var (peak, bits, seconds) = (0.0, 0.0, 0.0)
        var duration: Double?
        for line in text.split(separator: "\n") {
            if line.hasPrefix("#EXTINF:") {
                duration = Double(line.dropFirst(8).prefix { $0 != "," })
            } else if line.hasPrefix("#EXT-X-BYTERANGE:"), let segment = duration,
                let length = Double(line.dropFirst(17).prefix { $0 != "@" })
            {
                peak = max(peak, length * 8 / max(segment, 0.1))
                bits += length * 8
                seconds += segment
                duration = nil
            }
        }
        return (Int(peak.rounded(.up)), seconds > 0 ? Int((bits / seconds).rounded(.up)) : 0)
    }
}
