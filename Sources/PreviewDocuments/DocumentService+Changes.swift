import Foundation
import PreviewCore
import PreviewDomain
import PreviewStore

/// What happens to a stored document: a new label, deletion, an earlier version made current.
extension DocumentService {
    /// Gives document `id` the labels given (nil keeps one): every version the title (trimmed) and type (an
    /// empty type id is none), the latest version the description and school (an empty school is
    /// none), held to the same rules as an upload's: labels without control characters, a known
    /// type that allows the stored file's extension. `conflict` when the owner has another document
    /// under that (type, title); `not_found` when there is no such document.
    package func relabel(
        id: String, title: String? = nil, typeID: String? = nil, description: String? = nil,
        school: String? = nil
    ) async throws -> Document {
        let title = title.map(DocumentLabels.title)
        if let title { try DocumentLabels.checkTitle(title) }
        let description = description.map(DocumentLabels.description)
        if let description { try DocumentLabels.checkDescription(description) }
        let school = school.map(DocumentLabels.school)
        if let school = school ?? nil { try DocumentLabels.checkSchool(school) }
        let type = try typeID.map { id throws(PreviewError) in try DocumentLabels.type(id, in: rules) }
        let document = try await newest(of: id)
        if let type = type ?? nil, !type.admits(fileName: document.filename, kind: document.kind) {
            throw PreviewError(.extensionNotAllowed, type.refusalMessage)
        }
        let labels = Relabelling(
            title: title ?? document.title, type: type.map { $0?.id } ?? document.type,
            description: description ?? document.description, school: school ?? document.school)
        do {
            guard let relabelled = try await store.index.relabel(documentID: id, to: labels) else {
                throw PreviewError(.notFound, "No document \(id).")
            }
            return relabelled
        } catch let taken as LabelTaken {
            throw PreviewError(.conflict, "The owner already has a document titled \(taken.title) of that type.")
        }
    }

    /// Removes document `id` (every version, or only `version`) and cancels its jobs; its blobs stay
    /// until `gc`. `not_found` when nothing matched.
    package func delete(id: String, version: Int?) async throws -> Deletion {
        let deletion = try await store.index.delete(documentID: id, version: version)
        guard !deletion.versions.isEmpty else {
            throw PreviewError(.notFound, version.map { "No version \($0) of document \(id)." } ?? "No document \(id).")
        }
        ServiceMetrics.deletions()
        pipeline.logger.info(
            "document deleted",
            metadata: [
                "preview.document": "\(id)", "preview.versions": "\(deletion.versions.count)",
                "preview.cancelled_jobs": "\(deletion.cancelledJobs)"
            ])
        return deletion
    }

    /// Makes version `number` of the document that `id` is a version of its current one again: a
    /// new version naming the same blob (no bytes copied) with the earlier version's facts, so its
    /// previews come from the derivative cache, and its job. Restoring what is already current
    /// changes nothing. `not_found` when there is no such version.
    package func restore(version number: Int, of id: String) async throws -> (document: Document, job: JobRecord) {
        var restored = try await version(number, of: id)
        restored.id = UUID().uuidString.lowercased()
        restored.createdAt = Date()
        restored.jobStatus = nil
        if restored.previewStatus == .failed {
            restored.previewStatus = .pending
            restored.error = nil
        }
        return try await enqueue(restored)
    }
}
