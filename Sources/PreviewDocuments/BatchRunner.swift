import Foundation
import PreviewCore
import PreviewPipeline

/// Ingests every regular file under a folder with bounded parallelism across files (the
/// libraries' own threading stays low). Re-running over the same folder reuses what the store
/// already holds.
public struct BatchRunner: Sendable {
    package var documents: DocumentService
    package var jobs: Int
    package var owner: String
    package var type: DocumentType?
    /// Videos also get their playback derivatives (rendition, scrubbing thumbnails), as a queue
    /// worker's playback job makes them, in the same slot right after their thumbnail.
    package var renditions: Bool

    public init(documents: DocumentService, jobs: Int, owner: String = "", type: DocumentType? = nil, renditions: Bool = false) {
        self.documents = documents
        self.jobs = max(1, jobs)
        self.owner = owner
        self.type = type
        self.renditions = renditions
    }

    /// Files in flight at once. Rendering in children, four times `jobs`: the children (`jobs` of
    /// them) bound the C work, and while they render, the other files are copied, hashed and
    /// flushed to the store. Copying and flushing a video takes longer than rendering its frame, so
    /// with twice `jobs` the children still waited for files (the mixed samples' videos and PDFs:
    /// 5–8 % slower than with four times; photos alike either way). Rendering in this process, `jobs`.
    var filesInFlight: Int { Self.filesInFlight(jobs: jobs, isolated: documents.pipeline.renderers.isolation != nil) }

    /// ``filesInFlight`` of a batch of `jobs`, rendering in children when `isolated`.
    package static func filesInFlight(jobs: Int, isolated: Bool) -> Int { isolated ? 4 * jobs : jobs }

    /// Ingests the files under `folder`, ``filesInFlight`` at a time (their blocking work on the
    /// service's ``Offload`` lanes), telling `progress` after each.
    public func run(_ folder: URL, progress: @escaping @Sendable (BatchProgress) -> Void = { _ in }) async throws -> BatchReport {
        let started = ContinuousClock.now
        let (entries, skipped) = try await documents.offload.run(.reads) { try DirectoryWalker.walk(folder) }
        let inFlight = filesInFlight
        let (documents, owner, type, renditions) = (documents, owner, type, renditions)
        var found = [IngestOutcome?](repeating: nil, count: entries.count)
        try await withThrowingTaskGroup(of: (Int, IngestOutcome).self) { group in
            // A window of files in flight, the next one added as one finishes.
            var next = 0
            func ingest(_ index: Int) -> @Sendable () async throws -> (Int, IngestOutcome) {
                let entry = entries[index]
                return {
                    let labels = DocumentLabels(owner: owner, type: type, foundAt: entry.relativePath, filename: entry.url.lastPathComponent)
                    return (
                        index,
                        await documents.ingest(
                            entry.source, labels: labels, reportedPath: entry.relativePath, walked: entry.file,
                            renditions: renditions)
                    )
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

private func seconds(since start: ContinuousClock.Instant) -> Double {
    start.duration(to: .now).roundedMilliseconds / 1000
}
