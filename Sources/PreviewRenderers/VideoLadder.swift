import Foundation
import PreviewCore
import PreviewFFmpeg

/// An adaptive ladder for a long or large video: HLS renditions at 360p, 720p and 1080p (as the
/// source allows), each one fragmented MP4 whose playlist lists its segments as byte ranges, cut on
/// a 2 s keyframe grid, and a master playlist over
/// them with each rung's peak and average bit rate, resolution and codecs, so AVPlayer (and hls.js)
/// starts on a rung the network carries and switches as it changes, and a seek lands within 2 s.
///
/// Every rung is re-encoded (capped CRF: the settings' CRF under a ceiling per rung), so its
/// keyframes fall on the segment grid whatever the source's spacing. Written into a staged folder
/// beside the destination and moved there when complete.
public struct VideoLadder: Sendable {
    public var transcoding: VideoTranscoding

    /// The rungs, by short side, with their bit-rate ceilings (Apple's HLS authoring ranges).
    public static let rungs: [(height: Int, maxBitrate: Int)] = [(360, 1_000_000), (720, 3_500_000), (1080, 6_500_000)]

    public init(transcoding: VideoTranscoding = VideoTranscoding()) {
        self.transcoding = transcoding
    }

    public struct Rung: Sendable, Codable, Equatable {
        /// `360p`: also the stem of its files (``playlist`` and ``media``).
        public var name: String
        public var width: Int
        public var height: Int
        public var codecs: String
        /// Peak and average bits per second over its segments, as `EXT-X-STREAM-INF` states them.
        public var bandwidth: Int
        public var averageBandwidth: Int
        /// Frames per second (`FRAME-RATE`, which Apple's authoring rules ask of every variant);
        /// nil in ladders made before it was kept.
        public var frameRate: Double?

        /// Its media playlist, and the fragmented MP4 whose byte ranges that playlist lists.
        public var playlist: String { "\(name).m3u8" }
        public var media: String { "\(name).mp4" }

        enum CodingKeys: String, CodingKey {
            case name, width, height, codecs, bandwidth
            case averageBandwidth = "average_bandwidth"
            case frameRate = "frame_rate"
        }
    }

    /// The file name of the master playlist in the ladder's folder.
    public static let masterName = "master.m3u8"

    /// The rungs a video whose picture's short side is `shortSide` gets: those up to its size, or one
    /// at its own size when it is smaller than the lowest.
    static func rungs(shortSide: Double) -> [(height: Int, maxBitrate: Int)] {
        let fitting = rungs.filter { Double($0.height) <= shortSide.rounded() }
        return fitting.isEmpty ? [(Int(shortSide.rounded()), rungs[0].maxBitrate)] : fitting
    }

    /// The work of the ladder of a video whose short side is `shortSide`, against one 720p
    /// rendition's: each rung decodes the source again and encodes its own pixels.
    public static func relativeWork(shortSide: Double) -> Double {
        rungs(shortSide: shortSide).reduce(0) { $0 + work(height: $1.height) }
    }

    private static func work(height: Int) -> Double { max(0.5, pow(Double(height) / 720, 2)) }

    /// Writes the ladder of the video at `path` into the folder `output` (replacing it when complete),
    /// telling `progress` the fraction done over all rungs.
    public func make(_ path: String, kind: FileKind? = nil, into output: String,
                     progress: (Double) -> Void = { _ in }) throws(PreviewError) -> [Rung] {
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
            let result = try transcoding.transcode(path, kind: kind, settings: settings, reencode: true, maxBitrate: maxBitrate,
                                                   to: .hls(playlist: playlist.path, mediaPath: staged.appendingPathComponent("\(name).mp4").path)) {
                progress(done + $0 * share)
            }
            done += share
            try Self.check(playlist: playlist, media: staged.appendingPathComponent("\(name).mp4"))
            let rates = try Self.bitRates(playlist: playlist)
            made.append(Rung(name: name, width: result.plan.width, height: result.plan.height, codecs: result.codecs,
                             bandwidth: rates.peak, averageBandwidth: rates.average, frameRate: result.frameRate))
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
            lines.append("#EXT-X-STREAM-INF:BANDWIDTH=\(rung.bandwidth),AVERAGE-BANDWIDTH=\(rung.averageBandwidth),"
                         + "RESOLUTION=\(rung.width)x\(rung.height)\(frameRate),CODECS=\"\(rung.codecs)\"")
            lines.append(rung.playlist)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Refuses a rung whose playlist and media file disagree: no segment, or a byte range past the
    /// end of the media (what a muxer that lost writes leaves). On a (nearly) full disk that is
    /// `storage_full`, to be tried again once there is room; never a ladder recorded half written.
    static func check(playlist: URL, media: URL) throws(PreviewError) {
        let text = (try? String(contentsOf: playlist, encoding: .utf8)) ?? ""
        var info = stat()
        let size = stat(media.path, &info) == 0 ? Int(info.st_size) : 0
        var segments = 0
        var fits = size > 0
        for line in text.split(separator: "\n") {
            let range: Substring
            if line.hasPrefix("#EXT-X-BYTERANGE:") {
                range = line.dropFirst(17)
                segments += 1
            } else if line.hasPrefix("#EXT-X-MAP:"), let start = line.range(of: "BYTERANGE=\"") {
                range = line[start.upperBound...].prefix { $0 != "\"" }
            } else {
                continue
            }
            let parts = range.split(separator: "@").compactMap { Int($0) }
            guard parts.count == 2, parts[0] > 0, parts[1] >= 0, parts[0] <= size - parts[1] else { fits = false; break }
        }
        if segments > 0 && fits { return }
        let full = RendererPool.isNearlyFull(near: media.path)
        throw PreviewError(full ? .storageFull : .internal,
                           full ? "There is no room left to write the video's ladder: the disk is full."
                                : "The ladder's \(playlist.lastPathComponent) does not match its media file.",
                           detail: "\(segments) segments over \(size) bytes")
    }

    /// Peak and average bits per second of a media playlist's segments, from their byte ranges
    /// (`#EXT-X-BYTERANGE:length@offset`) and `#EXTINF` durations.
    static func bitRates(playlist: URL) throws(PreviewError) -> (peak: Int, average: Int) {
        guard let text = try? String(contentsOf: playlist, encoding: .utf8) else {
            throw PreviewError(.internal, "The rung's playlist was not written.")
        }
        var (peak, bits, seconds) = (0.0, 0.0, 0.0)
        var duration: Double?
        for line in text.split(separator: "\n") {
            if line.hasPrefix("#EXTINF:") {
                duration = Double(line.dropFirst(8).prefix { $0 != "," })
            } else if line.hasPrefix("#EXT-X-BYTERANGE:"), let segment = duration,
                      let length = Double(line.dropFirst(17).prefix { $0 != "@" }) {
                peak = max(peak, length * 8 / max(segment, 0.1))
                bits += length * 8
                seconds += segment
                duration = nil
            }
        }
        return (Int(peak.rounded(.up)), seconds > 0 ? Int((bits / seconds).rounded(.up)) : 0)
    }
}
