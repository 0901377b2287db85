import Foundation
import PreviewCore

/// Progress of a running batch, for a progress bar.
public struct BatchProgress: Sendable {
    public var done: Int
    public var total: Int
    public var elapsedSeconds: Double
    public var filesPerSecond: Double { elapsedSeconds > 0 ? Double(done) / elapsedSeconds : 0 }
    /// Seconds left at the current rate; nil before the first file finishes.
    public var etaSeconds: Double? { done > 0 ? Double(total - done) / filesPerSecond : nil }
}

/// The `batch --report` document (DESIGN §7), plus the entries that were skipped.
public struct BatchReport: Sendable, Encodable {
    public struct Summary: Sendable, Encodable {
        public var ok = 0
        public var rejected = 0
        public var failed = 0
        public var noPreview = 0
        public var skipped = 0
        public var elapsedSeconds = 0.0
        public var filesPerSecond = 0.0

        enum CodingKeys: String, CodingKey {
            case ok, rejected, failed, skipped
            case noPreview = "no_preview"
            case elapsedSeconds = "elapsed_s"
            case filesPerSecond = "files_per_s"
        }
    }

    public var files: [IngestOutcome]
    public var skipped: [SkippedEntry]
    public var summary: Summary
}

/// Ingests every regular file under a folder with bounded parallelism across files (the
/// libraries' own threading stays low). Re-running over the same folder reuses what the store
/// already holds.
public struct BatchRunner: Sendable {
    public var pipeline: DocumentPipeline
    public var jobs: Int
    public var owner: String
    public var type: DocumentType?
    /// Videos also get their playback derivatives (rendition, scrubbing thumbnails), as a queue
    /// worker's playback job makes them, in the same slot right after their thumbnail.
    public var renditions: Bool

    public init(pipeline: DocumentPipeline, jobs: Int, owner: String = "", type: DocumentType? = nil, renditions: Bool = false) {
        self.pipeline = pipeline
        self.jobs = max(1, jobs)
        self.owner = owner
        self.type = type
        self.renditions = renditions
    }

    /// Files in flight at once. Rendering in children, twice `jobs`: the children (`jobs` of them)
    /// bound the C work, and while they render, the other files are copied, hashed and flushed to
    /// the store (a batch of the mixed samples waited on fsync for a fifth of its time with `jobs`
    /// files in flight). Rendering in this process, `jobs`.
    var filesInFlight: Int { pipeline.renderers.isolation == nil ? jobs : 2 * jobs }

    /// Ingests the files under `folder`, ``filesInFlight`` at a time on the renders lane of an
    /// ``Offload`` of its own (the files' C work never runs on the cooperative pool), telling
    /// `progress` after each.
    public func run(_ folder: URL, progress: @escaping @Sendable (BatchProgress) -> Void = { _ in }) async throws -> BatchReport {
        let started = ContinuousClock.now
        let (entries, skipped) = try DirectoryWalker.walk(folder)
        let inFlight = filesInFlight
        let offload = Offload(reads: 1, writes: 1, renders: inFlight)
        let (pipeline, owner, type, renditions) = (pipeline, owner, type, renditions)
        var found = [IngestOutcome?](repeating: nil, count: entries.count)
        try await withThrowingTaskGroup(of: (Int, IngestOutcome).self) { group in
            // A window of files in flight, the next one added as one finishes.
            var next = 0
            func ingest(_ index: Int) -> @Sendable () async throws -> (Int, IngestOutcome) {
                let entry = entries[index]
                return {
                    let labels = DocumentLabels(owner: owner, type: type, foundAt: entry.relativePath, filename: entry.url.lastPathComponent)
                    return (index, try await offload.run(.renders) {
                        let outcome = pipeline.ingest(entry.source, labels: labels, reportedPath: entry.relativePath, walked: entry.file)
                        return renditions ? pipeline.addingPlayback(to: outcome) : outcome
                    })
                }
            }
            while next < min(inFlight, entries.count) {
                group.addTask(operation: ingest(next))
                next += 1
            }
            var done = 0
            while let (index, outcome) = try await group.next() {
                found[index] = outcome
                done += 1
                progress(BatchProgress(done: done, total: entries.count, elapsedSeconds: seconds(since: started)))
                if next < entries.count {
                    group.addTask(operation: ingest(next))
                    next += 1
                }
            }
        }
        let outcomes = found.compactMap { $0 }
        var summary = BatchReport.Summary()
        for outcome in outcomes {
            switch outcome.status {
            case .ok: summary.ok += 1
            case .rejected: summary.rejected += 1
            case .failed: summary.failed += 1
            case .noPreview: summary.noPreview += 1
            }
        }
        summary.skipped = skipped.count
        summary.elapsedSeconds = (seconds(since: started) * 1000).rounded() / 1000
        summary.filesPerSecond = summary.elapsedSeconds > 0 ? (Double(outcomes.count) / summary.elapsedSeconds * 10).rounded() / 10 : 0
        return BatchReport(files: outcomes, skipped: skipped, summary: summary)
    }
}

func seconds(since start: ContinuousClock.Instant) -> Double {
    milliseconds(since: start) / 1000
}
