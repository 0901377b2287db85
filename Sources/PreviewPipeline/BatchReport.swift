import Foundation
import PreviewCore

/// Progress of a running batch, for a progress bar.
public struct BatchProgress: Sendable {
    package var done: Int
    package var total: Int
    package var elapsedSeconds: Double
    package var filesPerSecond: Double { elapsedSeconds > 0 ? Double(done) / elapsedSeconds : 0 }
    /// Seconds left at the current rate; nil before the first file finishes.
    package var etaSeconds: Double? { done > 0 ? Double(total - done) / filesPerSecond : nil }

    package init(done: Int, total: Int, elapsedSeconds: Double) {
        self.done = done
        self.total = total
        self.elapsedSeconds = elapsedSeconds
    }
}

/// The `batch --report` document (DESIGN §7), plus the entries that were skipped.
public struct BatchReport: Sendable, Encodable {
    package struct Summary: Sendable, Encodable {
        package var ok = 0
        package var rejected = 0
        package var failed = 0
        package var noPreview = 0
        package var skipped = 0
        package var elapsedSeconds = 0.0
        package var filesPerSecond = 0.0

        package init() {}

        enum CodingKeys: String, CodingKey {
            case ok, rejected, failed, skipped
            case noPreview = "no_preview"
            case elapsedSeconds = "elapsed_s"
            case filesPerSecond = "files_per_s"
        }
    }

    package var files: [IngestOutcome]
    package var skipped: [SkippedEntry]
    package var summary: Summary

    package init(files: [IngestOutcome], skipped: [SkippedEntry], summary: Summary) {
        self.files = files
        self.skipped = skipped
        self.summary = summary
    }
}
