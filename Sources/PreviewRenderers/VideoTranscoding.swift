import Foundation
import PreviewCore
import PreviewFFmpeg

/// Renditions of videos (``RenditionPlan``), made by ``Transcoder``: re-encoded when the apps'
/// players cannot all play the original as it is, else its streams copied into a fresh MP4 that
/// carries none of the original's metadata (a phone's location), so a page can play a video
/// without handing out its original. Under the limits: no frame larger than
/// ``Limits/maxRenditionPixels``, no DRM-protected stream, no re-encode longer than
/// ``Limits/maxRenditionSeconds``. The file is written beside
/// its destination under a staged name and moved there only when complete: a crash, a kill or a
/// failure leaves no partial rendition.
public struct VideoTranscoding: Sendable {
    package var limits: Limits
    package var settings: RenditionSettings
    /// Wall-clock seconds the whole transcode may take; nil for no bound (the CLI's default).
    package var timeoutSeconds: Double?

    public init(limits: Limits = Limits(), settings: RenditionSettings = RenditionSettings(), timeoutSeconds: Double? = nil) {
        self.limits = limits
        self.settings = settings
        self.timeoutSeconds = timeoutSeconds
    }

    /// A finished rendition, as the CLI and the document's facts describe it.
    public struct Rendition: Sendable, Codable, Equatable {
        package var playback: Playback
        /// `copy` or `encode`, per stream; no audio when the source has none.
        package var video: String
        package var audio: String?
        package var width: Int
        package var height: Int
        package var durationSeconds: Double
        package var codecs: String
        package var size: Int

        enum CodingKeys: String, CodingKey {
            case playback, video, audio, width, height, codecs, size
            case durationSeconds = "duration_s"
        }
    }

    /// The playback decision and rendition plan for the video at `path`, without encoding.
    /// `shrink` plans a smaller re-encode of a playable source larger than ``RenditionSettings/height``.
    package func plan(_ path: String, kind: FileKind? = nil, shrink: Bool = false) throws(PreviewError) -> RenditionPlan {
        let input = try open(path, kind: kind)
        return try plan(input, shrink: shrink)
    }

    /// Writes the rendition of the video at `path` to `output` (replacing it only when complete);
    /// with a `watermark`, re-encoded with it burned into every frame.
    public func transcode(
        _ path: String, kind: FileKind? = nil, to output: String, shrink: Bool = false, watermark: Watermark? = nil,
        progress: (Double) -> Void = { _ in }
    ) throws(PreviewError) -> Rendition {
        let staged = output + ".partial-\(UUID().uuidString)"
        defer { unlink(staged) }
        let result = try transcode(
            path, kind: kind, settings: settings, shrink: shrink, reencode: watermark != nil, watermark: watermark, to: .file(staged),
            progress: progress)
        guard rename(staged, output) == 0 else {
            throw PreviewError(.internal, "The rendition could not be moved to \(output).", detail: String(cString: strerror(errno)))
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
        let plan = result.plan
        return Rendition(
            playback: plan.playback, video: plan.videoAction.rawValue, audio: plan.audioAction?.rawValue,
            width: plan.width, height: plan.height, durationSeconds: result.durationSeconds, codecs: result.codecs, size: size)
    }

    /// The transcode itself, at `settings`, into `output` as it is (the callers stage it); a
    /// `watermark` is burned into every frame of a re-encode.
    func transcode(
        _ path: String, kind: FileKind?, settings: RenditionSettings, shrink: Bool = false, reencode: Bool = false,
        watermark: Watermark? = nil, maxBitrate: Int? = nil, to output: Transcoder.Output, progress: (Double) -> Void = { _ in }
    ) throws(PreviewError) -> Transcoder.Result {
        let input = try open(path, kind: kind)
        var limited = self
        limited.settings = settings
        let plan = try limited.plan(input, shrink: shrink, reencode: reencode)
        let mark = try watermark.map { watermark throws(PreviewError) in
            try WatermarkStamps.frameMark(watermark, width: plan.width, height: plan.height)
        }
        do {
            return try Transcoder(settings: settings, maxBitrate: maxBitrate, mark: mark).transcode(
                input, plan: plan, to: output, progress: progress)
        } catch {
            throw mapped(error)
        }
    }

    private func open(_ path: String, kind: FileKind?) throws(PreviewError) -> MediaInput {
        try VideoRenderer.openVideo(path, kind: kind, timeoutSeconds: timeoutSeconds, toMake: "a rendition", mapping: mapped)
    }

    private func plan(_ input: MediaInput, shrink: Bool, reencode: Bool = false) throws(PreviewError) -> RenditionPlan {
        guard let plan = RenditionPlan(input, settings: settings, shrink: shrink, reencode: reencode) else {
            throw PreviewError(.noVideoStream, "The file has no video to make a rendition of.")
        }
        let video = plan.video
        if video.declaresEncryption { throw PreviewError(.encrypted, "The video is DRM-protected (encrypted); it has no rendition.") }
        if video.width * video.height > limits.maxRenditionPixels {
            throw PreviewError(
                .tooManyPixels,
                "The video is \(video.width)×\(video.height), larger than renditions are made of "
                    + "(\(limits.maxRenditionPixels) pixels).")
        }
        // H.264 (and every player) stops well short of such shapes; x264 refuses them (and leaks on the way).
        if max(plan.width, plan.height) > Self.maxEdge {
            throw PreviewError(
                .tooManyPixels,
                "The video is \(video.width)×\(video.height): a rendition would be "
                    + "\(plan.width)×\(plan.height), past the \(Self.maxEdge) pixels a side that players take.")
        }
        if plan.videoAction == .encode, let duration = input.durationSeconds, duration > limits.maxRenditionSeconds {
            throw PreviewError(
                .tooLong,
                "The video lasts \(Int(duration / 60)) minutes, longer than renditions are made of "
                    + "(\(Int(limits.maxRenditionSeconds / 60)) minutes).")
        }
        return plan
    }

    /// The longest side of a rendition's picture.
    package static let maxEdge = 8192

    private func mapped(_ error: FFmpegError) -> PreviewError {
        if error.isInterrupted {
            return PreviewError(.timeout, "Making the rendition took longer than \(Int(timeoutSeconds ?? 0)) s.", detail: error.description)
        }
        if error.isMissingDecoder {
            return PreviewError(.unsupportedType, "This video's codec is not supported.", detail: error.description)
        }
        if error.isEncrypted { return PreviewError(.encrypted, "The video is DRM-protected (encrypted); it has no rendition.") }
        if error.isDiskFull {
            return PreviewError(.storageFull, "There is no room left to write the rendition: the disk is full.", detail: error.description)
        }
        return PreviewError(.corrupt, "The video could not be transcoded; it may be damaged.", detail: error.description)
    }
}
