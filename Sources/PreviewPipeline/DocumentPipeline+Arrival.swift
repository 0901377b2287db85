import Foundation
import PreviewCore
import PreviewDomain
import PreviewRenderers
import PreviewStore

/// How a document arrives: one ordered list of steps for every door (upload, resumable upload,
/// link, local file, batch).
///
/// 1. The door checks the labels (``DocumentLabels/check()``) and stages the bytes its own way: an
///    upload's or a link's as they arrive; a local file copied while hashing, after a cheap check of
///    its first bytes (``DocumentPipeline/ingest(_:labels:reportedPath:walked:)``).
/// 2. What was staged is validated: its kind from the bytes, the declared type's rules, the limits.
/// 3. It is settled now, or queued. Now (`ingest`, `batch`): the same bytes finished under the same
///    labels are reused; else its facts, pivot and thumbnail are made before it is stored, and a
///    file its renderer refuses stops here. Queued (the network doors): a worker's job makes them.
/// 4. The original is published and the version indexed, with its job when queued, under the
///    reference lock: the blob is durable before any row names it.
/// 5. Settled now: the thumbnail is recorded with the document's preview status.
///
/// `recover` is not a door: it indexes again, queued, originals that were accepted once and whose
/// rows were lost, without holding them to today's rules (a smaller limit would lose them for good).
extension DocumentPipeline {
    /// A document settled now.
    package struct Arrival: Sendable {
        /// The kind its stored bytes were found to be.
        package var kind: FileKind
        package var document: Document
        /// Whether the same bytes were finished already under the same labels (nothing was stored).
        package var reused = false
        /// Why its thumbnail failed: the document is stored, with that failure as its preview's.
        package var thumbnailFailure: PreviewError?
    }

    /// The bytes a door staged (step 1): a copy in the store's staging area, or, when the disk had
    /// no room for one, the blob already stored with the same bytes.
    package enum StagedBytes: Sendable {
        case staged(BlobWriter, hash: BlobHash)
        case stored(hash: BlobHash, size: Int, url: URL)

        /// Bytes received into `writer` (an upload, a link).
        package static func received(_ writer: BlobWriter) throws -> StagedBytes {
            .staged(writer, hash: try writer.finish())
        }

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

    /// Steps 2 to 4 for `bytes`, staged under `labels` (checked) by a network door, queued:
    /// `enqueue` publishes and indexes the version with its job (the document service's, which may
    /// hand the job to an idle worker of its process). Throws the refusal (a ``PreviewError``) or the
    /// store's failure; nothing is indexed then.
    package func arrive(
        _ bytes: StagedBytes, labels: DocumentLabels,
        queuingWith enqueue: (Document, BlobWriter?) async throws -> (document: Document, job: JobRecord)
    ) async throws -> (document: Document, job: JobRecord) {
        let (kind, renderer) = try await validated(bytes, labels: labels)
        let record = Document(labels: labels, sha256: bytes.hash, kind: kind, size: bytes.size, hasRenderer: renderer != nil)
        return try await enqueue(record, bytes.writer)
    }

    /// Steps 2 to 5 for `bytes`, staged under `labels` (checked) by a local door, settled now.
    /// Throws the refusal (a ``PreviewError``) or the store's failure; nothing is indexed then.
    package func arrive(_ bytes: StagedBytes, labels: DocumentLabels) async throws -> Arrival {
        let (kind, renderer) = try await validated(bytes, labels: labels)
        if let done = try await finishedDocument(bytes.hash, labels: labels) {
            return Arrival(kind: kind, document: done, reused: true)
        }
        var facts = MediaFacts()
        var pivot: Pivot?
        var thumbnail: Result<PreviewOutcome, PreviewError>?
        if Renderers.needsPivot(kind) {
            let made = try await makePivot(of: bytes.url.path, source: bytes.hash, kind: kind)
            facts = try await pivotFacts(made.record, adding: made.facts)
            pivot = made
        } else if let renderer {
            (facts, thumbnail) = try await factsWithThumbnail(of: bytes.url.path, source: bytes.hash, kind: kind, renderer: renderer)
        }
        let record = Document(labels: labels, sha256: bytes.hash, kind: kind, size: bytes.size, facts: facts, hasRenderer: renderer != nil)
        // Published even when stored already: a damaged copy is replaced by these bytes.
        var arrival = Arrival(
            kind: kind,
            document: try await store.storeOriginal(bytes.writer) {
                let document = try await store.index.insertVersion(record).document
                if let pivot { try await store.index.recordDerivative(pivot.record, resultSize: pivot.size, resultMime: FileKind.pdf.mime) }
                return document
            })
        // The thumbnail through the derivative cache (made already, or failed, with the facts).
        if renderer != nil, arrival.document.previewStatus != .ready {
            do throws(PreviewError) {
                try await makeThumbnail(arrival.document, made: thumbnail)
                arrival.document.previewStatus = .ready
            } catch {
                arrival.thumbnailFailure = error
            }
        }
        return arrival
    }

    /// Step 2: the kind of the staged bytes, valid for `labels`, and its renderer (nil: none).
    private func validated(_ bytes: StagedBytes, labels: DocumentLabels) async throws -> (FileKind, (any AsyncRenderer)?) {
        let validator = Validator(configuration: configuration)
        let verdict = try await offload.run(.writes) { [url = bytes.url] in
            validator.validate(try ByteProbe(contentsOf: url), fileName: labels.filename, declaredType: labels.type)
        }
        if let refusal = verdict.refusal { throw refusal }
        return (verdict.kind, renderers.renderer(for: verdict.kind, on: offload))
    }

    /// The latest version of (owner, type, title) when it has these bytes and its preview is settled.
    func finishedDocument(_ hash: BlobHash, labels: DocumentLabels) async throws -> Document? {
        guard let latest = try await store.index.latestVersion(owner: labels.owner, type: labels.type?.id, title: labels.title),
            latest.sha256 == hash, latest.previewStatus == PreviewStatus.ready || latest.previewStatus == PreviewStatus.noPreview
        else { return nil }
        return latest
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
