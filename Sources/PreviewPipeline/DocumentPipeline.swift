import Foundation
import Logging
import PreviewCore
import PreviewRenderers
import PreviewStore

/// bytes → detect → validate → hash → (already done? stop) → probe → store original → index
/// version → thumbnail through the derivative cache → index. Each step is small and named.
///
/// Thread-safe: the store serialises its own writes; renderers share only bounded, locked caches.
public struct DocumentPipeline: Sendable {
    public let store: Store
    public let configuration: Configuration
    public let renderers: Renderers
    let logger: Logger
    /// When on-demand previews were last marked used and the store's preview budget last checked.
    let previewUse = PreviewUse()

    /// - Parameter openDocuments: PDFs kept open between renders; long-running processes set it so the
    ///   next page of a document skips parsing.
    /// - Parameter isolation: child processes to render in (see ``RendererPool``); nil renders in this process.
    public init(store: Store, configuration: Configuration = Configuration(), openDocuments: Int = 0,
                isolation: RendererPool? = nil, logger: Logger) {
        self.store = store
        self.configuration = configuration
        self.renderers = Renderers(limits: configuration.limits, openDocuments: isolation == nil ? openDocuments : 0,
                                   isolation: isolation)
        self.logger = logger
    }

    /// Ingests the file at `url` under `labels`. Never throws: every failure is an outcome.
    /// - Parameters:
    ///   - walked: the file a folder walk found at `url`; the file is then opened without following
    ///     a symlink and must still be that one. Nil (a path a person named) follows symlinks.
    public func ingest(_ url: URL, labels: DocumentLabels, reportedPath: String? = nil, walked: FileIdentity? = nil) -> IngestOutcome {
        let started = ContinuousClock.now
        var outcome = IngestOutcome(path: reportedPath ?? url.path, status: .failed, ms: 0)
        var logger = logger
        logger[metadataKey: "preview.file"] = "\(outcome.path)"
        do {
            try ingestSteps(url, walked: walked, labels: labels, into: &outcome, logger: &logger)
        } catch let error as PreviewError {
            outcome.status = IngestOutcome.status(for: error)
            outcome.error = ErrorEnvelope(error).error
            logger.info("not ingested", metadata: ["preview.code": "\(error.code)", "preview.detail": "\(error.detail ?? "")"])
        } catch {
            outcome.status = .failed
            outcome.error = ErrorEnvelope(PreviewError.storing(error, "The file could not be stored.")).error
            logger.error("ingest failed", metadata: ["preview.error": "\(error)"])
        }
        outcome.ms = milliseconds(since: started)
        return outcome
    }

    private func ingestSteps(_ url: URL, walked: FileIdentity?, labels: DocumentLabels, into outcome: inout IngestOutcome,
                             logger: inout Logger) throws {
        // Open once: every check and the copy read this descriptor, never the path again.
        let source = try open(url, walked: walked)
        let validator = Validator(configuration: configuration)
        // Validate: kind from the bytes, the declared type's rules, limits — a cheap refusal before any copy.
        var verdict = validator.validate(ByteProbe(size: source.size, reader: source.read), fileName: labels.filename,
                                         declaredType: labels.type)
        outcome.kind = verdict.kind.rawValue
        outcome.mime = verdict.kind.mime
        if let refusal = verdict.refusal { throw refusal }

        // Copy into the store's staging area while hashing: one read of the file, and what is
        // probed and published is exactly what was hashed. A document already stored with these
        // bytes and a finished preview is done (the staged copy is dropped unflushed).
        let intake = try take(source)
        // The verdict that counts is the one on the bytes stored: the file may have changed in place while copied.
        verdict = validator.validate(try ByteProbe(contentsOf: intake.url), fileName: labels.filename, declaredType: labels.type)
        outcome.kind = verdict.kind.rawValue
        outcome.mime = verdict.kind.mime
        if let refusal = verdict.refusal { throw refusal }
        let (hash, size) = (intake.hash, intake.size)
        outcome.sha256 = hash
        logger[metadataKey: "preview.sha256"] = "\(hash)"
        if let done = try finishedDocument(hash, labels: labels) {
            fill(&outcome, from: done)
            outcome.reused = true
            return
        }

        // Probe: media facts, and corrupt/encrypted/no-video files stop here, before storing. An
        // office file is converted to its PDF pivot here; the pivot is recorded once the original is.
        let renderer = renderers.renderer(for: verdict.kind)
        var facts = MediaFacts()
        var pivot: Pivot?
        if Renderers.needsPivot(verdict.kind) {
            let made = try makePivot(of: intake.url.path, source: hash, kind: verdict.kind)
            facts = try pivotFacts(made.record, adding: made.facts)
            pivot = made
        } else if let renderer {
            facts = try renderer.probe(intake.url.path)
        }

        // Store the original, then index this version (the blob is durable before any row names it;
        // `gc` cannot remove a stored blob between the check and the row).
        let record = DocumentRecord(
            id: UUID().uuidString.lowercased(), owner: labels.owner, type: labels.type?.id ?? "", title: labels.title,
            filename: labels.filename, sha256: hash, kind: verdict.kind, mime: verdict.kind.mime, size: size,
            facts: facts, version: 0, previewStatus: renderer == nil ? PreviewStatus.noPreview : PreviewStatus.pending,
            createdAt: Date())
        var document = try store.blobs.whileReferencing(exclusive: false) {
            // Published even when stored already: a damaged copy is replaced by these bytes.
            if case let .staged(writer, _) = intake { _ = try writer.publish(as: .original) }
            let document = try store.index.insertVersion(record).document
            if let pivot { try store.index.recordDerivative(pivot.record, resultSize: pivot.size, resultMime: FileKind.pdf.mime) }
            return document
        }
        logger[metadataKey: "preview.document"] = "\(document.id)"

        // Thumbnail through the derivative cache.
        if renderer != nil, document.previewStatus != PreviewStatus.ready {
            do {
                try makeThumbnail(document)
            } catch {
                fill(&outcome, from: document)
                throw error
            }
            document.previewStatus = PreviewStatus.ready
        }
        fill(&outcome, from: document)
        logger.debug("ingested", metadata: ["preview.status": "\(outcome.status.rawValue)"])
    }

    /// A file's bytes in the store: a staged copy, or, when the disk has no room for one, the blob
    /// already stored with the same bytes.
    private enum Intake {
        case staged(BlobWriter, hash: BlobHash)
        case stored(hash: BlobHash, size: Int, url: URL)

        var url: URL {
            switch self {
            case let .staged(writer, _): writer.stagedURL
            case let .stored(_, _, url): url
            }
        }

        var hash: BlobHash {
            switch self {
            case let .staged(_, hash), let .stored(hash, _, _): hash
            }
        }

        var size: Int {
            switch self {
            case let .staged(writer, _): writer.size
            case let .stored(_, size, _): size
            }
        }
    }

    private func take(_ source: SourceFile) throws -> Intake {
        do {
            let writer = try store.blobs.stage(source, limit: configuration.limits.maxFileBytes)
            return .staged(writer, hash: try writer.finish())
        } catch is SourceFile.TooLarge {
            throw configuration.fileTooLarge
        } catch where StoreFault(error) == .storageFull {
            // No room for a copy: bytes stored already need none.
            let hash = try source.contentHash()
            guard store.blobs.contains(hash), try store.blobs.verify(hash) else { throw error }
            return .stored(hash: hash, size: source.size, url: try store.blobs.localFile(for: hash))
        }
    }

    private func open(_ url: URL, walked: FileIdentity?) throws(PreviewError) -> SourceFile {
        do {
            return try SourceFile(url, followLinks: walked == nil, expected: walked)
        } catch {
            switch error {
            case .unreadable(let code):
                throw PreviewError(.notFound, "The file could not be opened.", detail: String(cString: strerror(code)))
            case .notRegular:
                throw PreviewError(.unsupportedType, "This is not a regular file (a folder, pipe, socket or device).")
            case .link, .replaced:
                throw PreviewError(.notFound, "The file was replaced while the folder was being read; it was not ingested.")
            }
        }
    }

    /// Makes the facts and thumbnail of a document already in the store (the queue worker's job).
    /// Idempotent: a second run finds the thumbnail in the derivative cache. Throws the failure,
    /// which is also recorded on the document.
    public func process(_ document: DocumentRecord) throws(PreviewError) {
        let kind = document.kind
        guard let renderer = renderers.renderer(for: kind) else {
            try record { try store.index.setPreviewStatus(documentID: document.id, status: PreviewStatus.noPreview, error: nil) }
            return
        }
        guard !Renderers.needsPivot(kind) else {
            do {
                let facts = try facts(of: document.sha256, kind: kind, renderer: renderer)
                try record { try store.index.setFacts(documentID: document.id, facts: facts) }
            } catch {
                try record { try store.index.setPreviewStatus(documentID: document.id, status: PreviewStatus.failed, error: error) }
                throw error
            }
            return try makeThumbnail(document)
        }
        // One call to the renderer: a thumbnail made now brings the facts with it; one made before
        // leaves only the probe to do.
        do throws(PreviewError) {
            let thumbnail = try preview(source: document.sha256, kind: kind, request: .thumbnail)
            let facts: MediaFacts
            if let rendered = thumbnail.rendered {
                facts = rendered.facts
            } else {
                facts = try renderer.probe(try localPath(of: document.sha256))
            }
            try record { try store.index.setFacts(documentID: document.id, facts: facts) }
        } catch {
            try record { try store.index.setPreviewStatus(documentID: document.id, status: PreviewStatus.failed, error: error) }
            throw error
        }
        try record { try store.index.setPreviewStatus(documentID: document.id, status: PreviewStatus.ready, error: nil) }
    }

    /// Renders (or finds) the thumbnail and records the document's preview status either way.
    private func makeThumbnail(_ document: DocumentRecord) throws(PreviewError) {
        do {
            _ = try preview(source: document.sha256, kind: document.kind, request: .thumbnail)
        } catch {
            try record { try store.index.setPreviewStatus(documentID: document.id, status: PreviewStatus.failed, error: error) }
            throw error
        }
        try record { try store.index.setPreviewStatus(documentID: document.id, status: PreviewStatus.ready, error: nil) }
    }

    /// Runs an index write, reporting a failure as an internal error.
    private func record(_ write: () throws -> Void) throws(PreviewError) {
        do {
            try write()
        } catch {
            throw PreviewError.storing(error, "The index could not be updated.")
        }
    }

    /// The latest version of (owner, type, title) when it has these bytes and its preview is settled.
    private func finishedDocument(_ hash: BlobHash, labels: DocumentLabels) throws -> DocumentRecord? {
        guard let latest = try store.index.latestVersion(owner: labels.owner, type: labels.type?.id ?? "", title: labels.title),
              latest.sha256 == hash, latest.previewStatus == PreviewStatus.ready || latest.previewStatus == PreviewStatus.noPreview
        else { return nil }
        return latest
    }

    private func fill(_ outcome: inout IngestOutcome, from document: DocumentRecord) {
        outcome.documentID = document.id
        outcome.pages = document.pages
        outcome.durationSeconds = document.durationSeconds
        switch document.previewStatus {
        case PreviewStatus.noPreview: outcome.status = .noPreview
        case PreviewStatus.ready:
            outcome.status = .ok
            if let thumbnail = try? cachedPreview(source: document.sha256, kind: document.kind, request: .thumbnail),
               let file = try? store.blobs.localFile(for: thumbnail.resultSha256) {
                outcome.preview = .init(path: file.path,
                                        width: thumbnail.width, height: thumbnail.height)
            }
        default: break
        }
    }

    // MARK: Previews

    /// The derivative for `request` of the original `source`: from the cache, or rendered now,
    /// stored and recorded. Never renders the same request twice, unless `repairing` says the stored
    /// one was found damaged: then it is rendered again and its blob rewritten (renders are
    /// reproducible, so the record stays right).
    public func preview(source: BlobHash, kind: FileKind, request: RenderRequest,
                        repairing: Bool = false) throws(PreviewError) -> PreviewOutcome {
        if Renderers.needsPivot(kind) {
            return try preview(source: try pivot(of: source, kind: kind).record.resultSha256, kind: .pdf, request: request, repairing: repairing)
        }
        guard let renderer = renderers.renderer(for: kind) else {
            throw PreviewError(.unsupportedType, "No preview is made for \(kind.label).")
        }
        let key = try derivativeKey(source: source, kind: kind, request: request, renderer: renderer)
        if !repairing, let hit = try cached(key: key.hash) { return PreviewOutcome(record: hit, cached: true, rendered: nil) }
        let image = try remembering(key: key.hash, source: source) { () throws(PreviewError) in
            try renderer.render(try localPath(of: source), normalized(request, kind))
        }
        // Anything but the thumbnail was asked for by a client: it shares the preview budget.
        let onDemand = normalized(request, kind) != normalized(.thumbnail, kind)
        let record: DerivativeRecord
        do {
            record = try store.blobs.whileReferencing(exclusive: false) {
                let result = try store.blobs.put(bytes: image.bytes, as: .derivative)
                let record = DerivativeRecord(key: key.hash, sourceSha256: source, operation: "render", parameters: key.parameters,
                                              renderer: renderer.version, resultSha256: result, width: image.width,
                                              height: image.height, createdAt: Date(), onDemand: onDemand)
                try store.index.recordDerivative(record, resultSize: image.bytes.count, resultMime: image.format.mime)
                return record
            }
            logger.debug("rendered", metadata: ["preview.sha256": "\(source)", "preview.derivative": "\(record.resultSha256)"])
        } catch {
            throw PreviewError.storing(error, "The preview could not be stored.")
        }
        if onDemand { keepWithinBudget(source: source) }
        return PreviewOutcome(record: record, cached: false, rendered: image)
    }

    /// A derivative asked for, and whether it came from the cache; one made now comes with the
    /// image the renderer returned (its bytes and the facts learned while making it).
    public struct PreviewOutcome: Sendable {
        public var record: DerivativeRecord
        public var cached: Bool
        public var rendered: RenderedImage?
    }

    /// The cached derivative, if its blob is present.
    public func cachedPreview(source: BlobHash, kind: FileKind, request: RenderRequest) throws(PreviewError) -> DerivativeRecord? {
        if Renderers.needsPivot(kind) {
            guard let pivot = try cached(key: pivotKey(source: source).hash) else { return nil }
            return try cachedPreview(source: pivot.resultSha256, kind: .pdf, request: request)
        }
        guard let renderer = renderers.renderer(for: kind) else { return nil }
        let hit = try cached(key: try derivativeKey(source: source, kind: kind, request: request, renderer: renderer).hash)
        if let hit, hit.onDemand, previewUse.isStale(hit) {
            do {
                try store.index.touchDerivatives([hit.key])
            } catch {
                logger.warning("could not mark a preview used", metadata: ["preview.error": "\(error)"])
            }
        }
        return hit
    }

    // MARK: PDF pivots

    /// The PDF an office document, text or CSV file was converted to, with the document's own facts
    /// (sheets, slides) and the blob's size: stored, not yet recorded.
    private struct Pivot {
        var record: DerivativeRecord
        var size: Int
        var facts: MediaFacts
    }

    /// The facts of the stored original `source`: for office kinds, those of its pivot.
    private func facts(of source: BlobHash, kind: FileKind, renderer: any Renderer) throws(PreviewError) -> MediaFacts {
        guard Renderers.needsPivot(kind) else { return try renderer.probe(try localPath(of: source)) }
        let (pivot, documentFacts) = try pivot(of: source, kind: kind)
        return try pivotFacts(pivot, adding: documentFacts ?? MediaFacts())
    }

    /// The pivot's pages and page size, with the office document's own facts (sheets, slides).
    private func pivotFacts(_ pivot: DerivativeRecord, adding documentFacts: MediaFacts) throws(PreviewError) -> MediaFacts {
        documentFacts.adding(try renderers.pdfRenderer.probe(try localPath(of: pivot.resultSha256)))
    }

    /// The recorded pivot of the stored original `source`, made now (once) when there is none; the
    /// document's own facts come with it only when it was made now (a recorded pivot does not keep them).
    private func pivot(of source: BlobHash, kind: FileKind) throws(PreviewError) -> (record: DerivativeRecord, documentFacts: MediaFacts?) {
        let key = try pivotKey(source: source).hash
        if let hit = try cached(key: key) { return (hit, nil) }
        let made = try remembering(key: key, source: source) { () throws(PreviewError) in
            try makePivot(of: try localPath(of: source), source: source, kind: kind)
        }
        try record { try store.index.recordDerivative(made.record, resultSize: made.size, resultMime: FileKind.pdf.mime) }
        return (made.record, made.facts)
    }

    /// Converts the file at `path` (whose hash is `source`) in an office child and stores the PDF.
    private func makePivot(of path: String, source: BlobHash, kind: FileKind) throws(PreviewError) -> Pivot {
        let (pdf, facts) = try renderers.office.convert(path, kind: kind)
        let key = try pivotKey(source: source)
        do {
            let result = try store.blobs.put(bytes: pdf, as: .derivative)
            logger.debug("converted", metadata: ["preview.sha256": "\(source)", "preview.pivot": "\(result)"])
            return Pivot(record: DerivativeRecord(key: key.hash, sourceSha256: source, operation: "convert", parameters: key.parameters,
                                                  renderer: Renderers.officeVersion, resultSha256: result, width: 0, height: 0,
                                                  createdAt: Date()),
                         size: pdf.count, facts: facts)
        } catch {
            throw PreviewError.storing(error, "The converted document could not be stored.")
        }
    }

    /// The cache key of a pivot: the source, the conversion with its page cap, the office installation.
    func pivotKey(source: BlobHash) throws(PreviewError) -> (hash: String, parameters: String) {
        struct Conversion: Encodable {
            var format = "pdf"
            var maxPages: Int
            enum CodingKeys: String, CodingKey { case format, maxPages = "max_pages" }
        }
        let parameters: String
        do {
            parameters = String(decoding: try StableJSON.encode(Conversion(maxPages: configuration.limits.maxOfficePages)), as: UTF8.self)
        } catch {
            throw PreviewError.storing(error, "The conversion could not be keyed.")
        }
        let material = "derivative/2\n\(source.hex)\nconvert\n\(parameters)\n\(Renderers.officeVersion)"
        return (BlobHash.of(Array(material.utf8)).hex, parameters)
    }

    /// A path the renderers can open for blob `hash`.
    private func localPath(of hash: BlobHash) throws(PreviewError) -> String {
        do {
            return try store.blobs.localFile(for: hash).path
        } catch {
            throw PreviewError.storing(error, "The stored original could not be read.")
        }
    }

    private func cached(key: String) throws(PreviewError) -> DerivativeRecord? {
        do {
            guard let hit = try store.index.derivative(key: key), store.blobs.contains(hit.resultSha256) else { return nil }
            return hit
        } catch {
            throw PreviewError.storing(error, "The preview index could not be read.")
        }
    }

    /// Pages mean nothing outside PDFs: normalise them so equal requests share one key.
    private func normalized(_ request: RenderRequest, _ kind: FileKind) -> RenderRequest {
        var request = request
        if kind.category != .pdf { request.page = 1 }
        return request
    }

    /// The cache key of a render: the source, the request as its own `Codable` form writes it (so a
    /// field added to ``RenderRequest`` is in the key without anyone remembering it here), and the
    /// renderer's version.
    public func derivativeKey(source: BlobHash, kind: FileKind, request: RenderRequest, renderer: any Renderer)
        throws(PreviewError) -> (hash: String, parameters: String) {
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

func milliseconds(since start: ContinuousClock.Instant) -> Double {
    start.duration(to: .now).roundedMilliseconds
}
