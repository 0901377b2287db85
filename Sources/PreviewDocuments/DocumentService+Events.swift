import Foundation
import PreviewCore
import PreviewDomain

/// What an owner's app waits for (``OwnerEvent``), read in the order kept.
extension DocumentService {
    /// The events kept after `since` (of `owner`'s documents when given), oldest first, at most
    /// `limit`; when there is none yet and `wait` is given, the first kept within it (long polling).
    package func events(since: Int64, owner: String?, limit: Int, wait: Duration?) async throws -> [OwnerEvent] {
        var found = try await store.index.ownerEvents(after: since, owner: owner, limit: limit)
        guard found.isEmpty, let wait else { return found }
        let deadline = clock.instant + wait
        while found.isEmpty && clock.instant < deadline && !changes.waitsEnded && !Task.isCancelled {
            await changes.next(of: DocumentChanges.events, until: min(deadline, clock.instant + DocumentChanges.recheck), clock: clock)
            found = try await store.index.ownerEvents(after: since, owner: owner, limit: limit)
        }
        return found
    }
}

extension DocumentService {
    /// How far the webhook at `target` has delivered events (``DocumentIndex/webhookCursor(target:)``).
    package func webhookCursor(target: String) async throws -> Int64 {
        try await store.index.webhookCursor(target: target)
    }

    /// Records that the webhook at `target` was answered for every event up to `sequence`.
    package func webhookDelivered(target: String, through sequence: Int64) async throws {
        try await store.index.advanceWebhookCursor(target: target, to: sequence)
    }
}
