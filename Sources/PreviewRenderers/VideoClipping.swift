import Foundation
import PreviewCore
import PreviewFFmpeg

/// Frame-exact clips of videos, cut by stream copy (``StreamClipper``): no frame is re-encoded, so
/// none loses quality, and a clip of a 100 MB video takes as long as copying its part does
/// (written as a ``StagedOutput``).
public struct VideoClipping: Sendable {
    /// Wall-clock seconds the clip may take; nil for no bound (the CLI's default).
    package var timeoutSeconds: Double?

    public init(timeoutSeconds: Double? = nil) {
        self.timeoutSeconds = timeoutSeconds
    }

    /// A finished clip: what it shows, in seconds of its source, and its size.
    public struct Clip: Sendable, Codable, Equatable {
        /// The first frame shown and the end of the last.
        package var start: Double
        package var end: Double
        /// The keyframe its copied video begins at (decoded, never shown).
        package var keyframe: Double
        package var size: Int

        /// Its length to the millisecond.
        package var durationSeconds: Double { ((end - start) * 1000).rounded() / 1000 }
    }

    /// Writes the part of the video at `path` from `start` to `end` seconds to `output` (an MP4).
    public func clip(_ path: String, kind: FileKind?, from start: Double, to end: Double, into output: String) throws(PreviewError) -> Clip {
        let input = try VideoRenderer.openVideo(path, kind: kind, timeoutSeconds: timeoutSeconds, toMake: "a clip", mapping: mapped)
        if input.bestVideoStream()?.declaresEncryption == true {
            throw PreviewError(.encrypted, "The video is DRM-protected (encrypted); it cannot be clipped.")
        }
        let (result, size) = try StagedOutput.make(output, "clip", mapping: mapped) { staged in
            try StreamClipper().clip(input, from: start, to: end, into: staged)
        }
        return Clip(start: result.start, end: result.end, keyframe: result.keyframe, size: size)
    }

    private func mapped(_ error: FFmpegError) -> PreviewError {
        if error.isInterrupted {
            return PreviewError(.timeout, "Making the clip took longer than \(Int(timeoutSeconds ?? 0)) s.", detail: error.description)
        }
        if error.isEncrypted { return PreviewError(.encrypted, "The video is DRM-protected (encrypted); it cannot be clipped.") }
        if error.isDiskFull {
            return PreviewError(.storageFull, "There is no room left to write the clip: the disk is full.", detail: error.description)
        }
        return PreviewError(.corrupt, "The video could not be clipped; it may be damaged.", detail: error.description)
    }
}
