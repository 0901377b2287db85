import Foundation
import PreviewCore

/// A video's playback derivatives — its rendition, its HLS ladder and its scrubbing thumbnails — made in a
/// renderer child when the renderers are isolated, else in this process. Both write files (a
/// rendition is far larger than a reply pipe carries) where the caller says, which the caller
/// stages and removes.
package struct PlaybackMaker: Sendable {
    package var limits: Limits
    package var settings: RenditionSettings
    let isolation: RendererPool?

    /// Wall-clock seconds a transcode of `duration` seconds of video may take: the job time, plus
    /// four times its length (a 720p re-encode at `veryfast` runs at 2–5× real time on two cores).
    package func transcodeSeconds(duration: Double?) -> Double {
        limits.jobSeconds + 4 * max(0, duration ?? 0)
    }

    /// Writes the rendition of the video at `path` to `output` (replaced only when complete), with
    /// `watermark` burned into every frame when there is one, telling `progress` the fraction done
    /// as it advances; on `offload`'s renders lane or in a child.
    package func transcode(
        _ path: String, kind: FileKind, duration: Double?, to output: String, watermark: Watermark? = nil, on offload: Offload,
        progress: @escaping @Sendable (Double) -> Void = { _ in }
    ) async throws(PreviewError) -> VideoTranscoding.Rendition {
        let seconds = transcodeSeconds(duration: duration)
        guard let isolation else {
            let transcoding = VideoTranscoding(limits: limits, settings: settings, timeoutSeconds: seconds)
            return try await offload.render { () throws(PreviewError) in
                try transcoding.transcode(path, kind: kind, to: output, watermark: watermark, progress: progress)
            }
        }
        return try await isolation.transcode(
            path, kind: kind, to: output, settings: settings, watermark: watermark, seconds: seconds, on: offload, progress: progress)
    }

    /// Wall-clock seconds the ladder of a video of `duration` seconds whose short side is `shortSide`
    /// may take: as ``transcodeSeconds(duration:)``, times its rungs' work against one rendition's.
    package func ladderSeconds(duration: Double?, shortSide: Double) -> Double {
        limits.jobSeconds + 4 * max(0, duration ?? 0) * VideoLadder.relativeWork(shortSide: shortSide)
    }

    /// Writes the HLS ladder of the video at `path` into the folder `output` (made when complete),
    /// telling `progress` the fraction done; on `offload`'s renders lane or in a child.
    package func ladder(
        _ path: String, kind: FileKind, duration: Double?, shortSide: Double, into output: String, on offload: Offload,
        progress: @escaping @Sendable (Double) -> Void = { _ in }
    ) async throws(PreviewError) -> [VideoLadder.Rung] {
        let seconds = ladderSeconds(duration: duration, shortSide: shortSide)
        guard let isolation else {
            let ladder = VideoLadder(transcoding: VideoTranscoding(limits: limits, settings: settings, timeoutSeconds: seconds))
            return try await offload.render { () throws(PreviewError) in try ladder.make(path, kind: kind, into: output, progress: progress) }
        }
        return try await isolation.ladder(path, kind: kind, into: output, settings: settings, seconds: seconds, on: offload, progress: progress)
    }

    /// Writes the scrubbing thumbnails of the video at `path` into the existing folder `output`;
    /// on `offload`'s renders lane or in a child.
    package func sprites(_ path: String, kind: FileKind, into output: String, on offload: Offload) async throws(PreviewError)
        -> ScrubbingSprites.Files
    {
        guard let isolation else {
            let sprites = ScrubbingSprites(limits: limits)
            return try await offload.render { () throws(PreviewError) in try sprites.write(path, kind: kind, into: output) }
        }
        return try await isolation.sprites(path, kind: kind, into: output, on: offload)
    }

    /// The plays of the video at `path` (``PlayIndexer``) and its poster among them and the
    /// `opening`'s frame (the time the opening's rule chose); on `offload`'s renders lane or in a child.
    package func plays(_ path: String, kind: FileKind, duration: Double?, opening: Double?, on offload: Offload) async throws(PreviewError)
        -> PlayIndexer.Index
    {
        let seconds = PlayIndexer.seconds(limits: limits, duration: duration)
        guard let isolation else {
            let indexer = PlayIndexer(limits: limits, timeoutSeconds: seconds)
            return try await offload.render { () throws(PreviewError) in try indexer.index(path, kind: kind, opening: opening) }
        }
        return try await isolation.plays(path, kind: kind, opening: opening, seconds: seconds, on: offload)
    }

    /// The teaser of the video at `path` made of `spans`, written to `output`; on `offload`'s
    /// renders lane or in a child.
    package func teaser(_ path: String, kind: FileKind, spans: [MediaSpan], to output: String, on offload: Offload)
        async throws(PreviewError) -> VideoTeaser.Teaser
    {
        guard let isolation else {
            let teaser = VideoTeaser(timeoutSeconds: limits.jobSeconds)
            return try await offload.render { () throws(PreviewError) in try teaser.write(path, kind: kind, spans: spans, to: output) }
        }
        return try await isolation.teaser(path, kind: kind, spans: spans, to: output, on: offload)
    }

    /// Cuts the part `span` (seconds) of the video at `path` into the MP4 `output` by stream copy,
    /// within the job time; on `offload`'s renders lane or in a child.
    package func clip(_ path: String, kind: FileKind, span: MediaSpan, into output: String, on offload: Offload)
        async throws(PreviewError) -> VideoClipping.Clip
    {
        guard let isolation else {
            let clipping = VideoClipping(timeoutSeconds: limits.jobSeconds)
            return try await offload.render { () throws(PreviewError) in
                try clipping.clip(path, kind: kind, from: span.start, to: span.end, into: output)
            }
        }
        return try await isolation.clip(path, kind: kind, span: span, into: output, seconds: limits.jobSeconds, on: offload)
    }

    /// Names the recipe of each derivative (with the libraries' versions): part of its cache key, so
    /// a new encoder or new settings make them again.
    package var renditionRecipe: String { "rendition/2 \(VideoRenderer.libraryVersions) \(settings.height)p \(settings.preset) crf \(settings.crf)" }
    package var ladderRecipe: String {
        "ladder/3 \(VideoRenderer.libraryVersions) \(settings.preset) crf \(settings.crf) from \(settings.ladderMinSeconds) s or "
            + "\(settings.ladderMinBytes) B"
    }
    package var spritesRecipe: String { "sprites/1 \(VideoRenderer.libraryVersions)" }
}
