import Foundation
import PreviewCore
import PreviewDomain

/// What an owner's app waits for (``OwnerEvent``), read in the order kept.
extension DocumentService {
    /// The events kept after `since` (of `owner`'s documents when given), oldest first, at most
    /// `limit`; when there is none yet and `wait` is given, the first kept within it (long polling).
    package func events(since: Int64, owner: String?, limit: Int, wait: Duration?) async throws -> [OwnerEvent] {
        let read = { [store] in try await store.index.ownerEvents(after: since, owner: owner, limit: limit) }
        let found = try await read()
        guard let wait else { return found }
        return try await changes.poll(DocumentChanges.events, from: found, until: clock.instant + wait, clock: clock, while: \.isEmpty, read: read)
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
