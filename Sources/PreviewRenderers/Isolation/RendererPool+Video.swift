import PreviewCore

/// A video's derivatives made by children: renditions, ladders, scrubbing thumbnails, plays and clips.
extension RendererPool {
    /// The rendition of the video at `path` (with `watermark` burned in), written to `output` by a
    /// child within `seconds`.
    func transcode(
        _ path: String, kind: FileKind, to output: String, settings: RenditionSettings, watermark: Watermark?, seconds: Double,
        on offload: Offload, progress: @escaping @Sendable (Double) -> Void
    ) async throws(PreviewError) -> VideoTranscoding.Rendition {
        let call = RenderCall(
            operation: .transcode, kind: kind, path: path, output: output, renditions: settings, watermark: watermark, seconds: seconds)
        let (reply, _) = try await self.call(call, on: offload, progress: progress)
        guard let rendition = reply.rendition else { throw PreviewError(.internal, "The renderer sent an incomplete answer.") }
        return rendition
    }

    /// The HLS ladder of the video at `path`, written to the folder `output` by a child within `seconds`.
    func ladder(
        _ path: String, kind: FileKind, into output: String, settings: RenditionSettings, seconds: Double, on offload: Offload,
        progress: @escaping @Sendable (Double) -> Void
    ) async throws(PreviewError) -> [VideoLadder.Rung] {
        let call = RenderCall(operation: .ladder, kind: kind, path: path, output: output, renditions: settings, seconds: seconds)
        let (reply, _) = try await self.call(call, on: offload, progress: progress)
        guard let rungs = reply.ladder else { throw PreviewError(.internal, "The renderer sent an incomplete answer.") }
        return rungs
    }

    /// Scrubbing thumbnails of the video at `path`, written into the folder `output` by a child.
    func sprites(_ path: String, kind: FileKind, into output: String, on offload: Offload) async throws(PreviewError) -> ScrubbingSprites.Files {
        let (reply, _) = try await call(RenderCall(operation: .sprites, kind: kind, path: path, output: output), on: offload)
        guard let sprites = reply.sprites else { throw PreviewError(.internal, "The renderer sent an incomplete answer.") }
        return sprites
    }

    /// The plays of the video at `path` (and its poster, scoring the `opening`'s frame beside
    /// theirs), found by a child within `seconds`.
    func plays(_ path: String, kind: FileKind, opening: Double?, seconds: Double, on offload: Offload) async throws(PreviewError)
        -> PlayIndexer.Index
    {
        let (reply, _) = try await call(RenderCall(operation: .plays, kind: kind, path: path, opening: opening, seconds: seconds), on: offload)
        guard let plays = reply.plays else { throw PreviewError(.internal, "The renderer sent an incomplete answer.") }
        return plays
    }

    /// The part `span` of the video at `path`, cut by a child into `output` within `seconds`.
    func clip(_ path: String, kind: FileKind, span: MediaSpan, into output: String, seconds: Double, on offload: Offload)
        async throws(PreviewError) -> VideoClipping.Clip
    {
        let call = RenderCall(operation: .clip, kind: kind, path: path, output: output, span: span, seconds: seconds)
        let (reply, _) = try await self.call(call, on: offload)
        guard let clip = reply.clip else { throw PreviewError(.internal, "The renderer sent an incomplete answer.") }
        return clip
    }

    /// The teaser of the video at `path` made of `spans`, written to `output` by a child.
    func teaser(_ path: String, kind: FileKind, spans: [MediaSpan], to output: String, on offload: Offload)
        async throws(PreviewError) -> VideoTeaser.Teaser
    {
        let (reply, _) = try await call(RenderCall(operation: .teaser, kind: kind, path: path, output: output, spans: spans), on: offload)
        guard let teaser = reply.teaser else { throw PreviewError(.internal, "The renderer sent an incomplete answer.") }
        return teaser
    }
}
