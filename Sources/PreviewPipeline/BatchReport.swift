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

    public init(done: Int, total: Int, elapsedSeconds: Double) {
        self.done = done
        self.total = total
        self.elapsedSeconds = elapsedSeconds
    }
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

        public init() {}

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

    public init(files: [IngestOutcome], skipped: [SkippedEntry], summary: Summary) {
        self.files = files
        self.skipped = skipped
        self.summary = summary
    }
}
