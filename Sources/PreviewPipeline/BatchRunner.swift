import Dispatch
import Foundation
import PreviewCore
import Synchronization

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

    public init(pipeline: DocumentPipeline, jobs: Int, owner: String = "", type: DocumentType? = nil) {
        self.pipeline = pipeline
        self.jobs = max(1, jobs)
        self.owner = owner
        self.type = type
    }

    public func run(_ folder: URL, progress: @escaping @Sendable (BatchProgress) -> Void = { _ in }) throws -> BatchReport {
        let started = ContinuousClock.now
        let (entries, skipped) = try DirectoryWalker.walk(folder)
        let state = Mutex<(next: Int, done: Int, outcomes: [IngestOutcome?])>((0, 0, Array(repeating: nil, count: entries.count)))
        // Threads of our own, not Dispatch's global queue: on Linux its pool is as wide as the cores
        // and counts a thread blocked in `wait()` (the caller's, when called from async code), which
        // left one worker for two jobs.
        let group = DispatchGroup()
        for _ in 0..<min(jobs, max(1, entries.count)) {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                while true {
                    let index = state.withLock { state -> Int? in
                        guard state.next < entries.count else { return nil }
                        defer { state.next += 1 }
                        return state.next
                    }
                    guard let index else { return }
                    let entry = entries[index]
                    let labels = DocumentLabels(owner: owner, type: type, title: entry.relativePath, filename: entry.url.lastPathComponent)
                    let outcome = pipeline.ingest(entry.source, labels: labels, reportedPath: entry.relativePath, walked: entry.file)
                    let done = state.withLock { state -> Int in
                        state.outcomes[index] = outcome
                        state.done += 1
                        return state.done
                    }
                    progress(BatchProgress(done: done, total: entries.count, elapsedSeconds: seconds(since: started)))
                }
            }
        }
        group.wait()
        let outcomes = state.withLock { $0.outcomes.compactMap { $0 } }
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
