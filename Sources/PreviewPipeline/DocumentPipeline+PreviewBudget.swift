import Foundation
import PreviewCore
import PreviewDomain
import PreviewStore

/// The preview budget (``Limits/previewCacheBytes``, ``Limits/previewCacheBytesPerDocument``):
/// on-demand previews beyond it are evicted, least recently used first.
extension DocumentPipeline {
    /// Evicts on-demand previews of `source` beyond the per-document budget at once, and of the whole
    /// store beyond the store's budget when that was last checked a while ago (a sum over every
    /// on-demand preview is not made for each render). A failure is logged: a cache over its budget
    /// for a while costs disk, not documents.
    func keepWithinBudget(source: BlobHash) async {
        let limits = configuration.limits
        do {
            if try await store.index.onDemandPreviewBytes(source: source) > limits.previewCacheBytesPerDocument {
                await report(try store.evictPreviews(source: source, downTo: limits.previewCacheBytesPerDocument))
            }
            if previewUse.isBudgetCheckDue(), try await store.index.onDemandPreviewBytes(source: nil) > limits.previewCacheBytes {
                await report(try store.evictPreviews(downTo: limits.previewCacheBytes))
            }
        } catch {
            logger.error("could not keep previews within their budget", metadata: ["preview.error": "\(error)"])
        }
    }

    func report(_ eviction: PreviewEviction) {
        guard eviction.derivatives > 0 else { return }
        ServiceMetrics.previewsEvicted(by: eviction.derivatives)
        logger.info(
            "evicted previews over the budget",
            metadata: [
                "preview.evicted": "\(eviction.derivatives)",
                "preview.bytes": "\(eviction.bytes)"
            ])
    }
}

/// What keeps the preview budget cheap to follow: a served on-demand preview is marked used in the
/// index at most once an hour (eviction order needs no finer clock), and the store-wide sum is
/// checked at most every 10 seconds.
final class PreviewUse: Sendable {
    static let touchInterval: TimeInterval = 3600
    static let budgetInterval: Duration = .seconds(10)
    private static let remembered = 100_000

    private let touched = Locked<[String: Date]>([:])
    private let lastBudgetCheck = Locked<ContinuousClock.Instant?>(nil)
    private let clock: any ServiceClock

    init(clock: any ServiceClock) {
        self.clock = clock
    }

    /// True (and remembered) when `derivative` was last marked used over an hour ago.
    func isStale(_ derivative: DerivativeRecord) -> Bool {
        let now = clock.now
        guard now.timeIntervalSince(derivative.usedAt) > Self.touchInterval else { return false }
        return touched.withLock { touched in
            if let last = touched[derivative.key], now.timeIntervalSince(last) < Self.touchInterval { return false }
            if touched.count >= Self.remembered { touched.removeAll() }
            touched[derivative.key] = now
            return true
        }
    }

    func isBudgetCheckDue() -> Bool {
        let now = clock.instant
        return lastBudgetCheck.withLock { last in
            if let last, last.duration(to: now) < Self.budgetInterval { return false }
            last = now
            return true
        }
    }
}
