import Foundation
import Logging
import PreviewCore
import PreviewDomain
import PreviewRenderers
import PreviewStore

/// A local file into the store (`ingest`, `batch`): detect, validate, copy while hashing, probe,
/// publish, index, and the thumbnail made now.
extension DocumentPipeline {
    /// Ingests the file at `url` under `labels`. Never throws: every failure is an outcome.
    /// - Parameters:
    ///   - walked: the file a folder walk found at `url`; the file is then opened without following
    ///     a symlink and must still be that one. Nil (a path a person named) follows symlinks.
    package func ingest(_ url: URL, labels: DocumentLabels, reportedPath: String? = nil, walked: FileIdentity? = nil) async -> IngestOutcome {
        let started = ContinuousClock.now
        var outcome = IngestOutcome(path: reportedPath ?? url.path, status: .failed, ms: 0)
        var logger = logger
        logger[metadataKey: "preview.file"] = "\(outcome.path)"
        do {
            try await ingestSteps(url, walked: walked, labels: labels, into: &outcome, logger: &logger)
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

    func ingestSteps(
        _ url: URL, walked: FileIdentity?, labels: DocumentLabels, into outcome: inout IngestOutcome,
        logger: inout Logger
    ) async throws {
        // The labels' rules are every entry point's (a folder walk's names come with their controls replaced).
        try labels.check()
        // Open once: every check and the copy read this descriptor, never the path again.
        let source = try await offload.run(.writes) { try open(url, walked: walked) }
        let validator = Validator(configuration: configuration)
        // Validate: kind from the bytes, the declared type's rules, limits — a cheap refusal before any copy.
        var verdict = try await offload.run(.writes) {
            validator.validate(ByteProbe(size: source.size, reader: source.read), fileName: labels.filename, declaredType: labels.type)
        }
        outcome.kind = verdict.kind.rawValue
        outcome.mime = verdict.kind.mime
        if let refusal = verdict.refusal { throw refusal }

        // Copy into the store's staging area while hashing: one read of the file, and what is
        // probed and published is exactly what was hashed. A document already stored with these
        // bytes and a finished preview is done (the staged copy is dropped unflushed).
        let intake = try await take(source)
        // The verdict that counts is the one on the bytes stored: the file may have changed in place while copied.
        verdict = try await offload.run(.writes) { [url = intake.url] in
            validator.validate(try ByteProbe(contentsOf: url), fileName: labels.filename, declaredType: labels.type)
        }
        outcome.kind = verdict.kind.rawValue
        outcome.mime = verdict.kind.mime
        if let refusal = verdict.refusal { throw refusal }
        let (hash, size) = (intake.hash, intake.size)
        outcome.sha256 = hash
        logger[metadataKey: "preview.sha256"] = "\(hash)"
        if let done = try await finishedDocument(hash, labels: labels) {
            await fill(&outcome, from: done)
            outcome.reused = true
            return
        }

        // Facts: corrupt/encrypted/no-video files stop here, before storing. An office file is
        // converted to its PDF pivot here; the pivot is recorded once the original is. Any other
        // file's thumbnail is made here, bringing its facts (one renderer call).
        let renderer = renderers.renderer(for: verdict.kind, on: offload)
        var facts = MediaFacts()
        var pivot: Pivot?
        var thumbnail: Result<PreviewOutcome, PreviewError>?
        if Renderers.needsPivot(verdict.kind) {
            let made = try await makePivot(of: intake.url.path, source: hash, kind: verdict.kind)
            facts = try await pivotFacts(made.record, adding: made.facts)
            pivot = made
        } else if let renderer {
            (facts, thumbnail) = try await factsWithThumbnail(of: intake.url.path, source: hash, kind: verdict.kind, renderer: renderer)
        }

        // Store the original, then index this version (the blob is durable before any row names it;
        // `gc` cannot remove a stored blob between the check and the row).
        let record = Document(labels: labels, sha256: hash, kind: verdict.kind, size: size, facts: facts, hasRenderer: renderer != nil)
        // Published even when stored already: a damaged copy is replaced by these bytes.
        var document = try await store.storeOriginal(intake.writer) {
            let document = try await store.index.insertVersion(record).document
            if let pivot { try await store.index.recordDerivative(pivot.record, resultSize: pivot.size, resultMime: FileKind.pdf.mime) }
            return document
        }
        logger[metadataKey: "preview.document"] = "\(document.id)"

        // Thumbnail through the derivative cache (made already, or failed, with the facts).
        if renderer != nil, document.previewStatus != PreviewStatus.ready {
            do {
                try await makeThumbnail(document, made: thumbnail)
            } catch {
                await fill(&outcome, from: document)
                throw error
            }
            document.previewStatus = PreviewStatus.ready
        }
        await fill(&outcome, from: document)
        logger.debug("ingested", metadata: ["preview.status": "\(outcome.status.rawValue)"])
    }

    /// A file's bytes in the store: a staged copy, or, when the disk has no room for one, the blob
    /// already stored with the same bytes.
    enum Intake {
        case staged(BlobWriter, hash: BlobHash)
        case stored(hash: BlobHash, size: Int, url: URL)

        /// The staged copy to publish; nil when the blob is stored already.
        var writer: BlobWriter? {
            if case let .staged(writer, _) = self { writer } else { nil }
        }

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

    func take(_ source: SourceFile) async throws -> Intake {
        do {
            let (blobs, limit) = (store.blobs, configuration.limits.maxFileBytes)
            let writer = try await offload.run(.writes) { try blobs.stage(source, limit: limit) }
            return .staged(writer, hash: try writer.finish())
        } catch is SourceFile.TooLarge {
            throw configuration.fileTooLarge
        } catch  where StoreFault(error) == .storageFull {
            // No room for a copy: bytes stored already need none.
            let hash = try await offload.run(.writes) { try source.contentHash() }
            guard await store.blobs.contains(hash), try await store.blobs.verify(hash) else { throw error }
            return .stored(hash: hash, size: source.size, url: try await store.blobs.localFile(for: hash))
        }
    }

    func open(_ url: URL, walked: FileIdentity?) throws(PreviewError) -> SourceFile {
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

    /// The latest version of (owner, type, title) when it has these bytes and its preview is settled.
    func finishedDocument(_ hash: BlobHash, labels: DocumentLabels) async throws -> Document? {
        guard let latest = try await store.index.latestVersion(owner: labels.owner, type: labels.type?.id, title: labels.title),
            latest.sha256 == hash, latest.previewStatus == PreviewStatus.ready || latest.previewStatus == PreviewStatus.noPreview
        else { return nil }
        return latest
    }

    func fill(_ outcome: inout IngestOutcome, from document: Document) async {
        outcome.documentID = document.id
        outcome.pages = document.pages
        outcome.durationSeconds = document.durationSeconds
        switch document.previewStatus {
        case PreviewStatus.noPreview: outcome.status = .noPreview
        case PreviewStatus.ready:
            outcome.status = .ok
            if let thumbnail = try? await cachedPreview(source: document.sha256, kind: document.kind, request: .thumbnail),
                let file = try? await store.blobs.localFile(for: thumbnail.resultSha256)
            {
                outcome.preview = .init(
                    path: file.path,
                    width: thumbnail.width, height: thumbnail.height)
            }
        default: break
        }
    }

    /// The facts of the file at `path` (bytes `source`), and its thumbnail: the cached one (then a
    /// probe is the one renderer call), or made from it, bringing the facts. When the thumbnail fails, the
    /// probe decides: a file it refuses is not ingested (its error is thrown); one it accepts is
    /// stored, with the thumbnail's failure.
    func factsWithThumbnail(of path: String, source: BlobHash, kind: FileKind, renderer: any AsyncRenderer)
        async
        throws(PreviewError) -> (MediaFacts, Result<PreviewOutcome, PreviewError>?)
    {
        if let hit = try await cachedPreview(source: source, kind: kind, request: .thumbnail) {
            return (try await renderer.probe(path), .success(PreviewOutcome(record: hit, cached: true)))
        }
        do throws(PreviewError) {
            let thumbnail = try await made(source: source, kind: kind, request: .thumbnail, lookingUp: false, path: path)
            return (thumbnail.rendered?.facts ?? MediaFacts(), .success(thumbnail))
        } catch {
            return (try await renderer.probe(path), .failure(error))
        }
    }

    /// Renders (or finds) the thumbnail, unless it was `made` already, and records it with the
    /// document's preview status, either way, in one transaction.
    func makeThumbnail(_ document: Document, made early: Result<PreviewOutcome, PreviewError>?) async throws(PreviewError) {
        let outcome: JobOutcome
        do throws(PreviewError) {
            let thumbnail =
                if let early { try early.get() } else { try await made(source: document.sha256, kind: document.kind, request: .thumbnail) }
            outcome = JobOutcome(previewStatus: .ready, derivatives: thumbnail.new.map { [$0] } ?? [])
        } catch {
            outcome = .failed(error)
        }
        try await settle(document, with: outcome)
    }
}
