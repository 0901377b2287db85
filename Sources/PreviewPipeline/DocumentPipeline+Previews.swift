import Foundation
import Logging
import PreviewCore
import PreviewDomain
import PreviewRenderers
import PreviewStore

/// Previews through the derivative cache: found, or rendered once, stored and recorded.
extension DocumentPipeline {
    /// The derivative for `request` of the original `source`: from the cache, or rendered now,
    /// stored and recorded. Never renders the same request twice, unless `repairing` says the stored
    /// one was found damaged: then it is rendered again and its blob rewritten (renders are
    /// reproducible, so the record stays right).
    /// - Parameter afterMiss: the caller has just looked in the cache (``cachedPreview(source:kind:request:)``)
    ///   and found nothing: it is not looked up again.
    package func preview(
        source: BlobHash, kind: FileKind, request: RenderRequest, repairing: Bool = false,
        afterMiss: Bool = false
    ) async throws(PreviewError) -> PreviewOutcome {
        let outcome = try await made(source: source, kind: kind, request: request, lookingUp: !repairing && !afterMiss)
        if let new = outcome.new { try await record(new) }
        return outcome
    }

    /// A preview the cache did not have (the caller just looked), rendered now and not yet stored:
    /// answer with its bytes (``PreviewOutcome/rendered``), then ``keep(_:)`` it. Until it is kept,
    /// nothing of it is on disk, so a crash in between costs only the cache entry.
    package func previewToKeep(source: BlobHash, kind: FileKind, request: RenderRequest) async throws(PreviewError) -> PreviewOutcome {
        try await made(source: source, kind: kind, request: request, lookingUp: false, storing: false)
    }

    /// Stores and records a preview ``previewToKeep(source:kind:request:)`` made (a cache entry:
    /// the blob first, then its row, so no row ever names a missing blob).
    package func keep(_ outcome: PreviewOutcome) async throws(PreviewError) {
        guard let new = outcome.new, let image = outcome.rendered else { return }
        do {
            try await store.blobs.put(bytes: image.bytes, as: .derivative)
        } catch {
            throw PreviewError.storing(error, "The preview could not be stored.")
        }
        try await record(new)
    }

    /// Records a derivative whose blob is stored; an on-demand one then shares the preview budget.
    private func record(_ new: NewDerivative) async throws(PreviewError) {
        do {
            try await store.index.recordDerivative(new.record, resultSize: new.size, resultMime: new.mime)
        } catch {
            throw PreviewError.storing(error, "The preview could not be stored.")
        }
        if new.record.onDemand { await keepWithinBudget(source: new.record.sourceSha256) }
    }

    /// ``preview(source:kind:request:repairing:afterMiss:)`` but for the row: a derivative made now
    /// is returned as ``PreviewOutcome/new``, stored unless not `storing` (its name is then the hash
    /// of its bytes, for ``keep(_:)`` to store), for the caller to record (a job records it with
    /// its outcome, in one transaction).
    /// - Parameter path: where the renderer reads `source`'s bytes, when not from the store (a file
    ///   being ingested, rendered before it is stored).
    func made(
        source: BlobHash, kind: FileKind, request: RenderRequest, lookingUp: Bool = true,
        storing: Bool = true, path: String? = nil
    ) async throws(PreviewError) -> PreviewOutcome {
        if Renderers.needsPivot(kind) {
            if lookingUp, let hit = try await firstPageThumbnail(source: source, kind: kind, request: request) {
                return PreviewOutcome(record: hit, cached: true)
            }
            return try await made(
                source: try pivot(of: source, kind: kind).record.resultSha256, kind: .pdf, request: request,
                lookingUp: lookingUp, storing: storing)
        }
        guard let renderer = renderers.renderer(for: kind, on: offload) else {
            throw PreviewError(.unsupportedType, "No preview is made for \(kind.label).")
        }
        let key = try derivativeKey(source: source, kind: kind, request: request, renderer: renderer)
        if lookingUp, let hit = try await cached(key: key.hash) { return PreviewOutcome(record: hit, cached: true) }
        let image = try await remembering(key: key.hash, source: source) { () async throws(PreviewError) in
            let file = if let path { path } else { try await localPath(of: source) }
            let request = normalized(request, kind)
            return try await renderer.render(file, request)
        }
        let result: BlobHash
        do {
            result = if storing { try await store.blobs.put(bytes: image.bytes, as: .derivative) } else { BlobHash.of(image.bytes) }
        } catch {
            throw PreviewError.storing(error, "The preview could not be stored.")
        }
        logger.debug("rendered", metadata: ["preview.sha256": "\(source)", "preview.derivative": "\(result)"])
        // Anything but the thumbnail was asked for by a client: it shares the preview budget.
        return rendered(
            image, as: result, key: key, source: source, renderer: renderer,
            onDemand: normalized(request, kind) != normalized(.thumbnail, kind))
    }

    /// A render made now, `image`, whose blob is (or will be) `result`: its row, not yet recorded.
    func rendered(
        _ image: RenderedImage, as result: BlobHash, key: (hash: String, parameters: String), source: BlobHash,
        renderer: any AsyncRenderer, onDemand: Bool
    ) -> PreviewOutcome {
        let record = DerivativeRecord(
            key: key.hash, sourceSha256: source, operation: .render, parameters: key.parameters,
            renderer: renderer.version, resultSha256: result, width: image.width, height: image.height,
            createdAt: Date(), onDemand: onDemand)
        return PreviewOutcome(
            record: record, cached: false, rendered: image,
            new: NewDerivative(record: record, size: image.bytes.count, mime: image.format.mime))
    }

    /// A derivative asked for, and whether it came from the cache; one made now comes with the
    /// image the renderer returned (its bytes and the facts learned while making it) and, until it
    /// is recorded, its row.
    package struct PreviewOutcome: Sendable {
        package var record: DerivativeRecord
        package var cached: Bool
        package var rendered: RenderedImage?
        package var new: NewDerivative?
    }

    /// The cached derivative, if its blob is present.
    package func cachedPreview(source: BlobHash, kind: FileKind, request: RenderRequest) async throws(PreviewError) -> DerivativeRecord? {
        if Renderers.needsPivot(kind) {
            if let hit = try await firstPageThumbnail(source: source, kind: kind, request: request) { return hit }
            guard let pivot = try await cached(key: pivotKey(source: source).hash) else { return nil }
            return try await cachedPreview(source: pivot.resultSha256, kind: .pdf, request: request)
        }
        guard let renderer = renderers.renderer(for: kind, on: offload) else { return nil }
        let hit = try await cached(key: try derivativeKey(source: source, kind: kind, request: request, renderer: renderer).hash)
        if let hit, hit.onDemand, previewUse.isStale(hit) {
            do {
                try await store.index.touchDerivatives([hit.key])
            } catch {
                logger.warning("could not mark a preview used", metadata: ["preview.error": "\(error)"])
            }
        }
        return hit
    }

    /// The thumbnail of an office document made from its first page ahead of its pivot, when
    /// `request` asks for its thumbnail and it was made so.
    private func firstPageThumbnail(source: BlobHash, kind: FileKind, request: RenderRequest) async throws(PreviewError) -> DerivativeRecord? {
        guard request.page == 1, normalized(request, kind) == normalized(.thumbnail, kind),
            let renderer = renderers.renderer(for: kind, on: offload)
        else { return nil }
        return try await cached(key: derivativeKey(source: source, kind: kind, request: request, renderer: renderer).hash)
    }

    /// Pages mean nothing outside PDFs: normalise them so equal requests share one key.
    func normalized(_ request: RenderRequest, _ kind: FileKind) -> RenderRequest {
        var request = request
        if kind.category != .pdf { request.page = 1 }
        if kind.category != .video { request.frameSeconds = nil }
        return request
    }

    /// The cache key of a render: the source, the request as its own `Codable` form writes it (so a
    /// field added to ``RenderRequest`` is in the key without anyone remembering it here), and the
    /// renderer's version.
    package func derivativeKey(source: BlobHash, kind: FileKind, request: RenderRequest, renderer: any AsyncRenderer)
        throws(PreviewError) -> (hash: String, parameters: String)
    {
        let parameters: String
        do {
            parameters = String(decoding: try StableJSON.encode(normalized(request, kind)), as: UTF8.self)
        } catch {
            throw PreviewError.storing(error, "The preview request could not be keyed.")
        }
        let material = "derivative/2\n\(source.hex)\nrender\n\(parameters)\n\(renderer.version)"
        return (BlobHash.of(Array(material.utf8)).hex, parameters)
    }
}
