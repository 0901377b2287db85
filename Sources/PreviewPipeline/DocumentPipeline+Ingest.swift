import Foundation
import Logging
import PreviewCore
import PreviewDomain
import PreviewRenderers
import PreviewStore

/// A local file's door (`ingest`, `batch`): the file opened once, a cheap check of its first bytes,
/// a copy while hashing; then it arrives as every document does, settled now
/// (``DocumentPipeline/arrive(_:labels:)``).
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
        let verdict = try await offload.run(.writes) {
            validator.validate(ByteProbe(size: source.size, reader: source.read), fileName: labels.filename, declaredType: labels.type)
        }
        outcome.kind = verdict.kind.rawValue
        outcome.mime = verdict.kind.mime
        if let refusal = verdict.refusal { throw refusal }

        // Copy into the store's staging area while hashing: one read of the file, and what is
        // validated, probed and published is exactly what was hashed (the file may change in place
        // while copied). The staged copy of bytes already finished is dropped unflushed.
        let bytes = try await take(source)
        outcome.sha256 = bytes.hash
        logger[metadataKey: "preview.sha256"] = "\(bytes.hash)"
        let arrival = try await arrive(bytes, labels: labels)
        outcome.kind = arrival.kind.rawValue
        outcome.mime = arrival.kind.mime
        outcome.reused = arrival.reused
        logger[metadataKey: "preview.document"] = "\(arrival.document.id)"
        await fill(&outcome, from: arrival.document)
        if let failure = arrival.thumbnailFailure { throw failure }
        logger.debug("ingested", metadata: ["preview.status": "\(outcome.status.rawValue)"])
    }

    /// `source` copied into the store's staging area while hashing; or, when the disk has no room
    /// for a copy, the blob already stored with the same bytes.
    func take(_ source: SourceFile) async throws -> StagedBytes {
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
}
