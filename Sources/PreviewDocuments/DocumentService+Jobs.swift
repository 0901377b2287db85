import Foundation
import PreviewCore
import PreviewDomain
import PreviewPipeline
import PreviewStore

/// How a job's run ended, as the queue recorded it.
package enum JobRun: Sendable {
    case done
    /// Failed with `code`: queued again later when `retrying`, else failed for good.
    case failed(PreviewError.Code, retrying: Bool)
    /// The store refused (a full disk, an unreachable database), not the file: the job was given
    /// back untouched, its attempt uncounted.
    case released(PreviewError)
    /// Its lease ran out and another worker took it over: that worker's outcome stands.
    case leaseLost
}

extension DocumentService {
    /// `document` as `GET /v1/documents/{id}` shows it: with its playback when it is a video (as
    /// `share` serves it, when there is one: ``playbackManifest(of:through:)``).
    package func view(of document: Document, through share: ShareRecord? = nil) async throws -> DocumentView {
        var view = DocumentView(document, playback: try await playback(of: document, through: share))
        view.sources = try await sources(ofDocument: document.id).map(DocumentView.Source.init)
        return view
    }

    /// The files a video's playback job has made so far (rendition, ladder, thumbnails track); nil
    /// for other documents and before it has made any.
    package func playbackManifest(of document: Document) async throws -> PlaybackManifest? {
        try await pipeline.playbackManifest(of: document)
    }

    /// A video's renditions and thumbnails as far as its playback job has gone; nil for other documents.
    func playback(of document: Document, through share: ShareRecord? = nil) async throws -> PlaybackView? {
        guard document.playback != nil else { return nil }
        let manifest = try await playbackManifest(of: document, through: share)
        let base = "/v1/documents/\(document.id)"
        var entry = PlaybackView.Rendition(name: DocumentPipeline.renditionName, mime: "video/mp4", status: .pending)
        if let made = manifest?.rendition {
            entry = .init(
                name: made.name, mime: made.mime, codecs: made.codecs, width: made.width, height: made.height, bitrate: made.bitrate,
                size: made.size, url: "\(base)/renditions/\(made.name)", status: .ready)
        } else if let refused = manifest?.renditionError {
            (entry.status, entry.error) = (.failed, refused)
        } else if let job = try await queue.latestJob(documentID: document.id, kind: .playback) {
            if job.status == .failed {
                (entry.status, entry.error) = (.failed, job.errorCode.map { ErrorEnvelope.Body(code: $0.rawValue, message: job.errorMessage ?? "") })
            } else if job.status == .processing {
                entry.progress = job.progress.map { Int(($0 * 100).rounded(.down)) }
            }
        }
        let trickplay = manifest?.trickplay.map { _ in "\(base)/trickplay/\(PlaybackManifest.Trickplay.trackName)" }
        let hls = manifest?.ladder.map { _ in "\(base)/hls/\(PlaybackManifest.Ladder.masterName)" }
        let chapters = manifest?.plays.map { _ in "\(base)/trickplay/\(PlaybackManifest.Plays.chaptersName)" }
        let teaser = manifest?.teaser.map { _ in "\(base)/trickplay/\(PlaybackManifest.Teaser.fileName)" }
        return PlaybackView(
            renditions: [entry], trickplay: trickplay, hls: hls, hlsError: manifest?.ladderError, plays: manifest?.plays?.plays,
            chapters: chapters, playsError: manifest?.playsError, teaser: teaser, teaserError: manifest?.teaserError)
    }
}

/// A job's run: what it makes (the renderers' work, for the renders lane), then one transaction
/// that records it with the job's end (for the writes lane).
extension DocumentService {
    /// What `job` makes of `document`: for a preview job its facts and thumbnail, or its failure
    /// (``DocumentPipeline/outcome(of:early:)``), with a playback job to follow for a video and a
    /// text job for a paged document; for a playback job its rendition and scrubbing thumbnails, and
    /// a film for each watermark its shares carry (``DocumentPipeline/playbackOutcome(of:watermarks:progress:)``); for a text job its pages' text
    /// (``DocumentPipeline/textOutcome(of:)``).
    /// An office document's thumbnail is recorded, and the document ready, as soon as its first
    /// page is made; the job's end records the rest. A playback job's transcode reports its
    /// progress on the job's row now and then (every 5 %).
    package func outcome(of job: JobRecord, _ document: Document) async -> JobOutcome {
        switch job.kind {
        case .preview:
            var outcome = await pipeline.outcome(of: document) { early in await recordAhead(early, documentID: document.id) }
            if outcome.error == nil, outcome.facts?.playback != nil { outcome.followUp = .playback }
            if outcome.error == nil, pipeline.readsText(document.kind) { outcome.followUp = .text }
            return outcome
        case .text:
            return await pipeline.textOutcome(of: document)
        case .playback:
            // The encoder tells its progress on its thread; a task of the job's writes it, in order,
            // the newest only when the writes fall behind.
            let (fractions, reports) = AsyncStream.makeStream(of: Double.self, bufferingPolicy: .bufferingNewest(1))
            let reporter = Task { for await fraction in fractions { await report(fraction, of: job) } }
            let reported = Locked(0.0)
            let watermarks: [Watermark]
            do {
                watermarks = try await filmedWatermarks(of: document)
            } catch {
                return JobOutcome(previewStatus: nil, error: PreviewError.storing(error, "The video's shares could not be read."))
            }
            let outcome = await pipeline.playbackOutcome(of: document, watermarks: watermarks) { fraction in
                let due = reported.withLock { reported in
                    guard fraction - reported >= 0.05 || fraction == 1 else { return false }
                    reported = fraction
                    return true
                }
                if due { reports.yield(fraction) }
            }
            reports.finish()
            await reporter.value
            return outcome
        }
    }

    /// Records the progress of a playback job's transcode on its row.
    private func report(_ fraction: Double, of job: JobRecord) async {
        ServiceMetrics.playbackProgressRatio(fraction)
        do {
            try await queue.reportProgress(job, fraction: fraction)
            changes.changed(job.documentID)
        } catch {
            pipeline.logger.warning("could not record a transcode's progress", metadata: ["preview.error": "\(error)"])
        }
    }

    /// Records what a job made ahead of its end (an office document's thumbnail, and the document
    /// ready), under the reference lock like the job's end. A failure is logged: the job's end
    /// records it again with the rest.
    package func recordAhead(_ early: JobOutcome, documentID: String) async {
        do {
            try await store.blobs.whileReferencing(exclusive: false) { try await store.index.record(early, documentID: documentID) }
        } catch {
            pipeline.logger.warning("could not record a thumbnail ahead of its job", metadata: ["preview.error": "\(error)"])
        }
    }

    /// Ends `job` with `outcome`: the document's facts, thumbnail and status are written with the
    /// job's completion or failure in one transaction (input errors are not retried; ours are, per
    /// the queue's policy). A failure of the store itself gives the job back instead. Throws when
    /// the store cannot record even that.
    package func finish(_ job: JobRecord, with outcome: JobOutcome) async throws -> JobRun {
        if let error = outcome.error, StoreFault(error) != nil {
            try await queue.release(job)
            return .released(error)
        }
        defer { changes.changed(job.documentID) }
        // Under the reference lock, like an upload: gc cannot take a new thumbnail before its row is written.
        return try await store.blobs.whileReferencing(exclusive: false) { () throws -> JobRun in
            guard let error = outcome.error else { return try await queue.complete(job, recording: outcome) ? .done : .leaseLost }
            let recorded = try await queue.fail(job, error: error, retryable: error.code.disposition == .internal, recording: outcome)
            return recorded.status == .processing ? .leaseLost : .failed(error.code, retrying: recorded.status == .queued)
        }
    }

    /// ``outcome(of:)`` then ``finish(_:with:)``, in the caller's thread.
    package func run(_ job: JobRecord, of document: Document) async throws -> JobRun {
        try await finish(job, with: outcome(of: job, document))
    }
}

/// Documents stored without what their follow-up jobs make: videos without their playback
/// derivatives (stored before schema v9, with no playback decision, or by `ingest`/`batch` without
/// `--renditions`), paged documents without their text (stored before text jobs, or by `ingest`/`batch`).
extension DocumentService {
    /// What ``backfill()`` queued.
    package struct Backfill: Sendable, Encodable, Equatable {
        /// Videos with no playback decision: their preview job again, which probes it and is followed by their playback job.
        package var probes = 0
        /// Videos with a decision and no playback manifest: their playback job.
        package var playback = 0
        /// Paged documents whose text was never read: their text job.
        package var text = 0
    }

    /// Queues failed job `id` again. A retry is deliberate: the remembered timeouts and crashes of its
    /// document's file are forgotten first, so its renders are tried again instead of failing at
    /// once. False when there is no failed job `id`.
    package func retryJob(id: Int64) async throws -> Bool {
        if let job = try await queue.job(id: id), job.status == .failed, let document = try await store.index.document(id: job.documentID) {
            try await store.index.forgetFailures(source: document.sha256)
        }
        return try await queue.retry(id: id)
    }

    /// Queues every failed job again, every remembered failure forgotten first (``retryJob(id:)``).
    /// Returns how many were queued.
    package func retryFailedJobs() async throws -> Int {
        try await store.index.forgetFailures(source: nil)
        return try await queue.retryFailed()
    }

    /// Queues the jobs that give the latest version of every stored video its playback derivatives,
    /// and of every paged document its text, for a worker to run; a document whose job already
    /// waits or runs is left alone, so running it twice queues nothing more.
    package func backfill() async throws -> Backfill {
        var queued = Backfill()
        var query = DocumentQuery(sort: .oldest, limit: 500)
        while true {
            let page = try await list(query)
            for document in page.documents where document.kind.category == .video && document.previewStatus != .failed {
                if document.playback == nil {
                    if try await queue.queueUnlessWaiting(documentID: document.id, kind: .preview) { queued.probes += 1 }
                } else if try await pipeline.playbackManifest(of: document) == nil,
                    try await queue.queueUnlessWaiting(documentID: document.id, kind: .playback)
                {
                    queued.playback += 1
                }
            }
            for document in page.documents where document.previewStatus == .ready && pipeline.readsText(document.kind) {
                if try await !pipeline.hasText(document), try await queue.queueUnlessWaiting(documentID: document.id, kind: .text) {
                    queued.text += 1
                }
            }
            guard let next = page.next else { break }
            query.after = next
        }
        if queued.probes + queued.playback + queued.text > 0 { arrivals?.announce() }
        return queued
    }
}
