import Foundation
import PreviewCore
import PreviewDomain

/// Deleting and relabelling a document, written once for both backends over the portable layer
/// (``PortableDatabase``): each reads the document's versions first, locked on PostgreSQL
/// (``SQLDialect/lockingRows(of:)``; SQLite's writes are serialised), then changes them in the
/// same transaction.
extension DocumentIndex {
    /// Removes the document that `id` is a version of (every version, or only `version`) with its
    /// jobs, so that a running job's outcome is fenced off, in one transaction with its shares: a
    /// share of a removed version is revoked, a share of the latest version moves to the newest
    /// version that remains (revoked when none does). Blobs stay until `gc`.
    package func delete(documentID id: String, version: Int?) async throws -> Deletion {
        try await runPlan(serializing: nil) { [dialect] () -> SQLPlan<PortableRow, Deletion> in
            .statement(DocumentChanges.versions(of: id, in: dialect)) { rows in
                let all = try rows.map(Document.init(row:))
                let removed = all.filter { version == nil || $0.version == version }
                guard let first = removed.first else { return .done(Deletion(versions: [], cancelledJobs: 0)) }
                // The removed versions, by their name (any number of them) or their one id.
                let condition: PortableSQL =
                    version == nil
                    ? "owner = \(first.owner) AND type = \(first.typeColumn) AND title = \(first.title)" : "id = \(first.id)"
                let ids: PortableSQL = "SELECT id FROM documents WHERE \(condition)"
                let newest = all.first { kept in !removed.contains { $0.id == kept.id } }
                return .statement("DELETE FROM jobs WHERE document_id IN (\(ids)) RETURNING status") { jobs in
                    let cancelled = jobs.filter {
                        [JobRecord.Status.queued.rawValue, JobRecord.Status.processing.rawValue].contains($0.text("status"))
                    }
                    let moves: [PortableSQL] =
                        newest.map { ["UPDATE shares SET document_id = \($0.id) WHERE version IS NULL AND document_id IN (\(ids))"] } ?? []
                    return .each(
                        moves + [
                            "UPDATE shares SET revoked_at = \(PortableSQL.now) WHERE revoked_at IS NULL AND document_id IN (\(ids))",
                            "DELETE FROM documents WHERE \(condition)"
                        ], then: Deletion(versions: removed, cancelledJobs: cancelled.count))
                }
            }
        }
    }

    /// Gives the document that `id` is a version of new labels (``Relabelling``); returns version
    /// `id` as it now is, or nil when there is no such document. Throws ``LabelTaken`` when the owner has
    /// another document under the new (type, title).
    package func relabel(documentID id: String, to labels: Relabelling) async throws -> Document? {
        try await runPlan(serializing: nil) { [dialect] () -> SQLPlan<PortableRow, Document?> in
            .statement(DocumentChanges.versions(of: id, in: dialect)) { rows in
                let versions = try rows.map(Document.init(row:))
                guard let latest = versions.first else { return .done(nil) }
                let updates: [PortableSQL] = labels.applied(to: versions).map { version in
                    """
                    UPDATE documents SET title = \(version.title), title_key = \(version.titleKey), type = \(version.typeColumn),
                        description = \(version.description), school = \(version.school), search_key = \(version.searchKey)
                    WHERE id = \(version.id)
                    """
                }
                let relabelled = SQLPlan<PortableRow, Void>.each(updates, then: ()).then { _ in Document.read(id: id) }
                guard labels.renames(latest) else { return relabelled }
                // The lock that numbers versions: an upload under the new name waits for this rename.
                let lock = dialect.serialize(name: Document.nameKey(owner: latest.owner, type: labels.type, title: labels.title))
                let taken: PortableSQL = """
                    SELECT 1 FROM documents WHERE owner = \(latest.owner) AND type = \(Document.typeColumn(labels.type)) AND title = \(labels.title)
                    LIMIT 1
                    """
                return SQLPlan<PortableRow, Void>.each(lock.map { [$0] } ?? [], then: ()).then { _ in
                    .statement(taken) { found in
                        if !found.isEmpty { throw LabelTaken(type: labels.type, title: labels.title) }
                        return relabelled
                    }
                }
            }
        }
    }
}

/// The statements deletion and relabelling share.
enum DocumentChanges {
    /// Every version of the document that `id` is a version of, newest first, locked on PostgreSQL.
    static func versions(of id: String, in dialect: SQLDialect) -> PortableSQL {
        "\(raw: IndexSQL.versionsOfOne) WHERE v.id = \(id) ORDER BY d.version DESC\(raw: dialect.lockingRows(of: "d"))"
    }
}
