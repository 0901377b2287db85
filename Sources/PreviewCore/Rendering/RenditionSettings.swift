import Foundation

/// How a rendition is encoded: H.264 High 8-bit 4:2:0 through libx264, AAC-LC stereo, in MP4.
/// The `renditions` object of the configuration file (`--config`); every key is optional.
public struct RenditionSettings: Sendable, Equatable, Codable {
    /// The short side of the picture (720 for "720p"); a smaller source keeps its size.
    public var height = 720
    /// x264's speed/size trade-off (`ultrafast` … `veryslow`).
    public var preset = "veryfast"
    /// x264's constant rate factor: lower is larger and closer to the source.
    package var crf = 23
    package var audioBitrate = 128_000
    /// Keyframes at least this often, so a seek or a ladder's segment starts within this much.
    package var keyframeSeconds = 2.0
    /// A stored video this long, or this large, also gets an HLS ladder (360p/720p/1080p as it
    /// allows) a player switches between on a changing network; shorter and smaller ones stream
    /// their one rendition or original well enough.
    package var ladderMinSeconds = 60.0
    package var ladderMinBytes = 100_000_000

    public init() {}

    /// Whether a video of `seconds` and `bytes` gets a ladder.
    package func wantsLadder(seconds: Double?, bytes: Int) -> Bool {
        (seconds ?? 0) >= ladderMinSeconds || bytes >= ladderMinBytes
    }

    enum CodingKeys: String, CodingKey {
        case height, preset, crf
        case audioBitrate = "audio_bitrate"
        case keyframeSeconds = "keyframe_seconds"
        case ladderMinSeconds = "ladder_min_seconds"
        case ladderMinBytes = "ladder_min_bytes"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        height = try container.decodeIfPresent(Int.self, forKey: .height) ?? height
        preset = try container.decodeIfPresent(String.self, forKey: .preset) ?? preset
        crf = try container.decodeIfPresent(Int.self, forKey: .crf) ?? crf
        audioBitrate = try container.decodeIfPresent(Int.self, forKey: .audioBitrate) ?? audioBitrate
        keyframeSeconds = try container.decodeIfPresent(Double.self, forKey: .keyframeSeconds) ?? keyframeSeconds
        ladderMinSeconds = try container.decodeIfPresent(Double.self, forKey: .ladderMinSeconds) ?? ladderMinSeconds
        ladderMinBytes = try container.decodeIfPresent(Int.self, forKey: .ladderMinBytes) ?? ladderMinBytes
    }

    /// x264's presets, fastest first.
    package static let presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow"]

    /// What is wrong with these settings, or nil.
    package var problem: String? {
        if !(144...2160).contains(height) { return "renditions.height must be between 144 and 2160" }
        if !Self.presets.contains(preset) { return "renditions.preset must be one of \(Self.presets.joined(separator: ", "))" }
        if !(0...51).contains(crf) { return "renditions.crf must be between 0 and 51" }
        if !(32_000...512_000).contains(audioBitrate) { return "renditions.audio_bitrate must be between 32000 and 512000" }
        if !(0.5...10).contains(keyframeSeconds) { return "renditions.keyframe_seconds must be between 0.5 and 10" }
        if !(ladderMinSeconds >= 0) { return "renditions.ladder_min_seconds must be 0 or more" }
        if ladderMinBytes < 0 { return "renditions.ladder_min_bytes must be 0 or more" }
        return nil
    }
}
