import Foundation
import Logging
import PreviewCore
import PreviewDomain
import PreviewRenderers
import PreviewStore

/// bytes → detect → validate → hash → (already done? stop) → probe → store original → index
/// version → thumbnail through the derivative cache → index. Each step is small and named.
///
/// Thread-safe: the store serialises its own writes; renderers share only bounded, locked caches.
public struct DocumentPipeline: Sendable {
    package let store: Store
    package let configuration: Configuration
    package let renderers: Renderers
    package let logger: Logger
    /// Where the blocking work runs: renders and probes on its renders lane (a C library, or a
    /// renderer child up to its deadline), copies into the store on its writes lane.
    package let offload: Offload
    /// The time of this service: expiries, windows, back-off and the preview budget read it.
    package let clock: any ServiceClock
    /// When on-demand previews were last marked used and the store's preview budget last checked.
    let previewUse: PreviewUse

    /// - Parameter openDocuments: PDFs kept open between renders; long-running processes set it so the
    ///   next page of a document skips parsing.
    /// - Parameter isolation: child processes to render in (see ``RendererPool``); nil renders in this process.
    public init(
        store: Store, configuration: Configuration = Configuration(), openDocuments: Int = 0,
        isolation: RendererPool? = nil, offload: Offload, clock: any ServiceClock = SystemClock(), logger: Logger
    ) {
        self.clock = clock
        self.offload = offload
        previewUse = PreviewUse(clock: clock)
        self.store = store
        self.configuration = configuration
        self.renderers = Renderers(
            limits: configuration.limits, renditions: configuration.renditions,
            openDocuments: isolation == nil ? openDocuments : 0, isolation: isolation)
        self.logger = logger
    }

    // MARK: Jobs

    /// Makes the facts and thumbnail of a document already in the store and records them on it, in
    /// one transaction (the CLI's and the tests' way; the queue worker records the ``outcome(of:)``
    /// with its job instead). Idempotent: a second run finds the thumbnail in the derivative cache.
    /// Throws the failure, which is also recorded on the document.
    package func process(_ document: Document) async throws(PreviewError) {
        try await settle(document, with: outcome(of: document))
    }

    /// Records `outcome` on `document` in one transaction, under the reference lock (gc cannot take
    /// a new thumbnail before its row is written), and throws its failure, if any.
    func settle(_ document: Document, with outcome: JobOutcome) async throws(PreviewError) {
        try await record {
            try await store.blobs.whileReferencing(exclusive: false) { try await store.index.record(outcome, documentID: document.id) }
        }
        if let error = outcome.error { throw error }
    }

    /// What processing `document` comes to: its facts, its thumbnail (found in the cache, or made
    /// now and stored, its row left to the caller's transaction) and its preview status, or the
    /// failure. A video or image takes one renderer call: the thumbnail brings the facts with it.
    /// Writes nothing to the index but an office document's PDF pivot and remembered failures.
    /// - Parameter early: for an office document, takes an outcome ahead of this one, to record at
    ///   once: its thumbnail, made from its first page while the rest of its pivot is (see
    ///   ``officeOutcome(of:renderer:early:)``).
    package func outcome(of document: Document, early: (@Sendable (JobOutcome) async -> Void)? = nil) async -> JobOutcome {
        let kind = document.kind
        guard let renderer = renderers.renderer(for: kind, on: offload) else { return JobOutcome(previewStatus: .noPreview) }
        do throws(PreviewError) {
            let facts: MediaFacts
            let thumbnail: PreviewOutcome
            if Renderers.needsPivot(kind) {
                (facts, thumbnail) = try await officeOutcome(of: document, renderer: renderer, early: early)
            } else {
                thumbnail = try await made(source: document.sha256, kind: kind, request: .thumbnail)
                if let rendered = thumbnail.rendered {
                    facts = rendered.facts
                } else {
                    // A thumbnail made before leaves only the probe to do.
                    let path = try await localPath(of: document.sha256)
                    facts = try await renderer.probe(path)
                }
            }
            return JobOutcome(facts: facts, previewStatus: .ready, derivatives: thumbnail.new.map { [$0] } ?? [])
        } catch {
            return .failed(error)
        }
    }

    /// Runs an index write, reporting a failure as an internal error.
    func record(_ write: () async throws -> Void) async throws(PreviewError) {
        do {
            try await write()
        } catch {
            throw PreviewError.storing(error, "The index could not be updated.")
        }
    }

    /// A path the renderers can open for blob `hash`.
    func localPath(of hash: BlobHash) async throws(PreviewError) -> String {
        do {
            return try await store.blobs.localFile(for: hash).path
        } catch {
            throw PreviewError.storing(error, "The stored original could not be read.")
        }
    }

    func cached(key: String) async throws(PreviewError) -> DerivativeRecord? {
        do {
            guard let hit = try await store.index.derivative(key: key), await store.blobs.contains(hit.resultSha256) else { return nil }
            return hit
        } catch {
            throw PreviewError.storing(error, "The preview index could not be read.")
        }
    }
}

func milliseconds(since start: ContinuousClock.Instant) -> Double {
    start.duration(to: .now).roundedMilliseconds
}
