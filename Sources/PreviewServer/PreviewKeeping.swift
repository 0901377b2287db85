import Logging
import PreviewCore
import PreviewDocuments

/// Answer first, persist right after: a preview rendered for a request is stored once its answer
/// has gone (``DocumentService/keep(_:)``), so the client never waits on the
/// cache write's fsyncs and rows. A write that fails, or one that a crash or a shutdown cuts short,
/// costs that cache entry only: the next request renders the preview again. A shutdown waits a
/// little for the writes pending (``settle(within:)``).
///
/// Bounded: past ``maxPending`` writes waiting (a disk or database that stalls while renders go
/// on), a new preview is not kept, rather than held in memory.
final class PreviewKeeping: Sendable {
    static let maxPending = 64

    private let documents: DocumentService
    /// How long each write waits before it starts (test hooks only: a window to crash in).
    private let delay: Duration?
    private let logger: Logger
    private let pending = Locked(0)

    init(documents: DocumentService, delay: Duration?, logger: Logger) {
        self.documents = documents
        self.delay = delay
        self.logger = logger
    }

    /// Returns once no write is pending, or after `limit`: a shutdown waits this long for them.
    func settle(within limit: Duration) async {
        let deadline = ContinuousClock.now + limit
        while pending.withLock({ $0 }) > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Stores `outcome`'s new preview in the background; returns at once.
    func keep(_ outcome: DocumentService.RenderedPreview) {
        guard outcome.new != nil else { return }
        guard pending.increment(below: Self.maxPending) else {
            ServiceMetrics.previewsNotKept(reason: "backlog")
            return
        }
        let (documents, delay, logger, pending) = (documents, delay, logger, pending)
        Task {
            defer { pending.withLock { $0 -= 1 } }
            if let delay { try? await Task.sleep(for: delay) }
            do {
                try await documents.keep(outcome)
            } catch {
                ServiceMetrics.previewsNotKept(reason: "failed")
                logger.error(
                    "a rendered preview could not be kept; it is rendered again when asked for",
                    metadata: ["preview.derivative": "\(outcome.record.resultSha256)", "preview.error": "\(error)"])
            }
        }
    }
}
