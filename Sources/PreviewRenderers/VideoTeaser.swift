import Foundation
import PreviewCore
import PreviewFFmpeg

/// A video's teaser for the list's cards and for apps (``TeaserWriter``): a second of each of its
/// first plays (around each play's poster, clear of its cuts), else three seconds spread over a
/// video of one shot; silent, 320 px wide, under 50 KB (written as a ``StagedOutput``).
public struct VideoTeaser: Sendable {
    /// Seconds of each play the teaser shows, and the most plays it shows.
    static let spanSeconds = 1.0
    static let maxSpans = 4
    /// A play must leave this much either side of its second (a cut's frames are not shown).
    static let margin = 0.2
    /// Fewer plays than this give way to seconds spread over the video.
    static let minSpans = 3

    /// Wall-clock seconds the teaser may take.
    package var timeoutSeconds: Double?

    public init(timeoutSeconds: Double? = nil) {
        self.timeoutSeconds = timeoutSeconds
    }

    /// What a teaser is.
    public struct Teaser: Sendable, Codable, Equatable {
        package var width: Int
        package var height: Int
        package var durationSeconds: Double
        package var size: Int

        enum CodingKeys: String, CodingKey {
            case width, height, size
            case durationSeconds = "duration_s"
        }
    }

    /// The spans of a video of `duration` seconds whose plays are `plays`: a second around each of
    /// the first plays' posters that are long enough, else three seconds spread over the video (the
    /// whole of one of 5 s or less).
    package static func spans(plays: [Play], duration: Double) -> [MediaSpan] {
        guard duration.isFinite, duration > 0 else { return [] }
        if duration <= 5 { return [MediaSpan(start: 0, end: duration)] }
        var spans: [MediaSpan] = []
        for play in plays where play.end - play.start >= spanSeconds + 2 * margin {
            let start = min(max(play.poster - spanSeconds / 2, play.start + margin), play.end - margin - spanSeconds)
            spans.append(MediaSpan(start: start, end: start + spanSeconds))
            if spans.count == maxSpans { break }
        }
        if spans.count >= minSpans { return spans }
        return (1...minSpans).map { part in
            let middle = duration * Double(part) / Double(minSpans + 1)
            return MediaSpan(start: middle - spanSeconds / 2, end: middle + spanSeconds / 2)
        }
    }

    /// Writes the teaser of the video at `path` made of `spans` to `output` (an MP4).
    public func write(_ path: String, kind: FileKind?, spans: [MediaSpan], to output: String) throws(PreviewError) -> Teaser {
        let input = try VideoRenderer.openVideo(path, kind: kind, timeoutSeconds: timeoutSeconds, toMake: "a teaser", mapping: mapped)
        let (result, size) = try StagedOutput.make(output, "teaser", mapping: mapped) { staged in
            try TeaserWriter().write(input, spans: spans.map { ($0.start, $0.end) }, to: staged)
        }
        return Teaser(width: result.width, height: result.height, durationSeconds: result.seconds, size: size)
    }

    private func mapped(_ error: FFmpegError) -> PreviewError {
        if error.isInterrupted {
            return PreviewError(.timeout, "Making the teaser took longer than \(Int(timeoutSeconds ?? 0)) s.", detail: error.description)
        }
        if error.isMissingDecoder { return PreviewError(.unsupportedType, "This video's codec is not supported.", detail: error.description) }
        if error.isEncrypted { return PreviewError(.encrypted, "The video is DRM-protected (encrypted); it has no teaser.") }
        if error.isDiskFull {
            return PreviewError(.storageFull, "There is no room left to write the teaser: the disk is full.", detail: error.description)
        }
        return PreviewError(.corrupt, "The video's teaser could not be made; it may be damaged.", detail: error.description)
    }
}
