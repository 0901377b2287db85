import Foundation
import PreviewCore
import PreviewDomain
import PreviewPipeline
import PreviewStore

/// The one owner of a document's life (DESIGN §2): it accepts a document (an upload's staged bytes
/// or a local file), relabels, deletes and restores it, lists it and its versions, and runs its
/// job. The HTTP server and the CLI are adapters over it; the rules about labels are the core's
/// (``DocumentLabels``), so every entry point holds documents to the same ones.
///
/// Its calls block (files, the index, the renderers): callers off Swift's cooperative pool run
/// them on an ``Offload`` lane.
public struct DocumentService: Sendable {
    let pipeline: DocumentPipeline
    let queue: any JobQueue
    /// Told of every job enqueued here, so this process's idle workers take it at once.
    package let arrivals: JobArrivals?
    /// Shared links and device tokens; nil where the backend keeps none (then the download routes
    /// answer `unavailable`).
    package let downloads: (any LinkDownloads)?
    /// Wakes the requests that wait for a document this process's workers changed.
    package let changes = DocumentChanges()
    /// Resumable uploads' sessions and staged parts; nil where the backend keeps none.
    let resumable: ResumableUploads?

    /// Only for the composition root (`DocumentService(backend:…)` in PreviewComposition), which
    /// every process and the tests build a service with.
    package init(
        pipeline: DocumentPipeline, queue: any JobQueue, arrivals: JobArrivals? = nil, downloads: (any LinkDownloads)? = nil,
        uploads: ResumableUploads? = nil
    ) {
        self.pipeline = pipeline
        self.queue = queue
        self.arrivals = arrivals
        self.downloads = downloads
        resumable = uploads
    }

    var store: Store { pipeline.store }
    /// The time this service reads (``DocumentPipeline/clock``).
    package var clock: any ServiceClock { pipeline.clock }
    /// Where its blocking work runs.
    package var offload: Offload { pipeline.offload }
    package var rules: DocumentRules { pipeline.configuration.rules }

    // MARK: Accepting

    /// What a document may cost: its size, pages, pixels, time.
    package var limits: Limits { pipeline.configuration.limits }

    /// How many jobs wait to be leased.
    package func queuedJobs() async throws -> Int { try await jobCounts()[.queued, default: 0] }

    /// The jobs of each status.
    package func jobCounts() async throws -> [JobRecord.Status: Int] { try await queue.counts() }

    /// A writer that stages an upload's bytes in the store while they arrive, for ``accept(_:labels:)``.
    package func receiving() throws -> BlobWriter { try BlobWriter(storage: store.blobs) }

    /// Accepts bytes received into `writer` (an upload, a link) under `labels`: they arrive as every
    /// document does (``DocumentPipeline/arrive(_:labels:queuingWith:)``), queued: validated,
    /// published, and indexed with its job in one transaction. Only then is it accepted. Throws the
    /// refusal (a ``PreviewError``) or the store's failure.
    package func accept(_ writer: BlobWriter, labels: DocumentLabels) async throws -> (document: Document, job: JobRecord) {
        try await accept(writer, labels: labels, completing: nil)
    }

    /// ``accept(_:labels:)``, marking resumable upload `upload` complete in the same transaction.
    func accept(_ writer: BlobWriter, labels: DocumentLabels, completing upload: String?) async throws -> (document: Document, job: JobRecord) {
        try labels.check()
        return try await pipeline.arrive(.received(writer), labels: labels) { record, staged in
            try await enqueue(record, publishing: staged, completing: upload)
        }
    }

    /// Ingests the local file at `url` under `labels` (`ingest`, `batch`): stored and its thumbnail
    /// made now, not queued. Never throws: every failure is an outcome.
    /// With `renditions`, a video's playback files are made too (`--renditions`); `walked` is the
    /// file a folder walk found at `url` (``BatchRunner``): it must still be that one.
    public func ingest(
        _ url: URL, labels: DocumentLabels, reportedPath: String? = nil, walked: FileIdentity? = nil,
        renditions: Bool = false
    ) async -> IngestOutcome {
        let outcome = await pipeline.ingest(url, labels: labels, reportedPath: reportedPath, walked: walked)
        return renditions ? await pipeline.addingPlayback(to: outcome) : outcome
    }

    /// Indexes `record` with its job, `writer`'s staged bytes published first when given, under the
    /// reference lock (`gc` cannot remove the blob, new or stored long ago, before the row names
    /// it). A new job goes to an idle worker of this process, leased to it in the same transaction
    /// (``JobArrivals/reserve()``); else a job that waits is announced to this process's workers.
    /// Either way the job is returned as accepted: queued (DESIGN §8's answer to an upload).
    func enqueue(_ record: Document, publishing writer: BlobWriter? = nil, completing upload: String? = nil) async throws
        -> (document: Document, job: JobRecord)
    {
        var taker: JobArrivals.Reservation?
        let stored: (document: Document, job: JobRecord, leased: Bool)
        do {
            stored = try await store.storeOriginal(writer) {
                // Reserved last: the worker waits only for the transaction.
                taker = arrivals?.reserve()
                return try await queue.enqueue(record, leasingTo: taker?.lease, completing: upload)
            }
        } catch {
            taker?.decline()
            throw error
        }
        guard stored.leased, let taker else {
            taker?.decline()
            if stored.job.status == .queued { arrivals?.announce() }
            return (stored.document, stored.job)
        }
        taker.hand((stored.job, stored.document))
        var accepted = (document: stored.document, job: stored.job)
        (accepted.job.status, accepted.job.attempts, accepted.job.leaseOwner, accepted.job.leaseExpiresAt) = (.queued, 0, nil, nil)
        accepted.document.jobStatus = .queued
        return accepted
    }

    // MARK: Reading

    /// Document `id`; `not_found` when there is none.
    public func document(id: String) async throws -> Document {
        guard let document = try await store.index.document(id: id) else { throw PreviewError(.notFound, "No document \(id).") }
        return document
    }

    /// One page of the latest versions that match `query`.
    package func list(_ query: DocumentQuery) async throws -> DocumentPage {
        try await store.index.list(query)
    }

    /// Every version of the document that `id` is a version of, newest first; `not_found` when there is none.
    package func versions(of id: String) async throws -> [Document] {
        let versions = try await store.index.versions(of: id)
        guard !versions.isEmpty else { throw PreviewError(.notFound, "No document \(id).") }
        return versions
    }

    /// The newest version of document `id`; `not_found` when there is none.
    package func newest(of id: String) async throws -> Document {
        guard let newest = try await store.index.version(nil, of: id) else { throw PreviewError(.notFound, "No document \(id).") }
        return newest
    }

    /// Version `number` of document `id`; `not_found` when there is none.
    package func version(_ number: Int, of id: String) async throws -> Document {
        guard let version = try await store.index.version(number, of: id) else {
            throw PreviewError(.notFound, "No version \(number) of document \(id).")
        }
        return version
    }

    /// Checks the store (``DocumentPipeline/verify(rehash:)``): every blob re-hashed when `deep` or
    /// when the blobs are in a folder (an object store's are otherwise only checked to exist).
    /// The staged parts of open resumable uploads are checked against their hashes too.
    package func verify(deep: Bool) async throws -> VerifyReport {
        var report = try await pipeline.verify(rehash: deep || !store.blobs.isRemote)
        report.uploadProblems = try await checkUploadParts(repair: false)
        return report
    }

    /// The storage figures of `owner`, or of the whole store.
    package func statistics(owner: String?) async throws -> StorageStatistics {
        var statistics = try await store.index.statistics(owner: owner)
        if owner == nil, resumable != nil {
            (statistics.openUploads, statistics.stagedUploadBytes) = try await uploadFigures()
        }
        return statistics
    }
}
