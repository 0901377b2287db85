import Foundation
import PreviewCore
import PreviewStore

extension JobQueue {
    /// Makes version `number` of the document that `id` is a version of its current one again: a
    /// new version naming the same blob (no bytes copied) with the earlier version's facts, so its
    /// previews come from the derivative cache. Restoring what is already current changes nothing.
    /// Nil when there is no such version.
    public func restore(version number: Int, of id: String, in store: Store) throws -> (document: DocumentRecord, job: JobRecord)? {
        guard let earlier = try store.index.versions(of: id).first(where: { $0.version == number }) else { return nil }
        var restored = earlier
        restored.id = UUID().uuidString.lowercased()
        restored.createdAt = Date()
        if restored.previewStatus == .failed {
            restored.previewStatus = .pending
            restored.errorCode = nil
            restored.errorMessage = nil
        }
        // Under the reference lock, like an upload: gc cannot take the blob between the read and the row.
        return try store.blobs.whileReferencing(exclusive: false) { try enqueue(restored) }
    }
}
