import Foundation
import PreviewCore
import PreviewDomain

/// A new version of a document, written once for both backends: run in the enqueue transaction of
/// either queue, or alone (``DocumentIndex/insertVersion(_:)``).
package enum VersionInsertion {
    /// `document` as the next version of its name (owner, type, title), under the name's lock
    /// (``SQLDialect/serialize(name:)``), its blob's row first; or the latest version, not
    /// inserted, when that one has the same bytes.
    package static func plan(_ document: Document, in dialect: SQLDialect) -> SQLPlan<PortableRow, (document: Document, inserted: Bool)> {
        let lock = dialect.serialize(name: document.nameKey).map { [$0] } ?? []
        let blob: PortableSQL = """
            INSERT INTO blobs (sha256, size, mime, created_at) VALUES (\(document.sha256.hex), \(document.size), \(document.mime), \
            \(PortableSQL.now))
            ON CONFLICT DO NOTHING
            """
        let latest: PortableSQL = """
            SELECT * FROM documents WHERE owner = \(document.owner) AND type = \(document.typeColumn) AND title = \(document.title)
            ORDER BY version DESC LIMIT 1
            """
        return SQLPlan.each(lock + [blob], then: ()).then { _ in
            .statement(latest) { rows in
                let latest = try rows.first.map(Document.init(row:))
                if let latest, latest.sha256 == document.sha256 { return .done((latest, false)) }
                let next = document.nextVersion(after: latest)
                return .statement(insertion(of: next)) { _ in .done((next, true)) }
            }
        }
    }

    /// The row of `document`; the columns the schema keeps itself (`latest`, `live_shares`, `job_status`) are left to it.
    private static func insertion(of document: Document) -> PortableSQL {
        let facts = document.facts
        return """
            INSERT INTO documents (id, owner, type, title, title_key, filename, description, school, search_key, sha256, kind, mime, size, pages,
                duration_s, width, height, codec, rotation, playback, frame_s, poster_score, poster_play, version, preview_status, error_code,
                error_message, created_at)
            VALUES (\(document.id), \(document.owner), \(document.typeColumn), \(document.title), \(document.titleKey), \(document.filename),
                \(document.description), \(document.school), \(document.searchKey), \(document.sha256.hex), \(document.kind.rawValue),
                \(document.mime), \(document.size), \(facts.pages), \(facts.durationSeconds), \(facts.width), \(facts.height),
                \(facts.codec), \(facts.rotation), \(facts.playback), \(facts.frameSeconds), \(facts.posterScore), \(facts.posterPlay),
                \(document.version), \(document.previewStatus), \(document.errorCode), \(document.errorMessage), \(document.createdAt))
            """
    }
}

extension DocumentIndex {
    /// Indexes `document` as the next version of (owner, type, title), its blob's row first; or,
    /// when the latest version has the same bytes, returns that one, not inserted.
    package func insertVersion(_ document: Document) async throws -> (document: Document, inserted: Bool) {
        try await runPlan(serializing: nil) { [dialect] in VersionInsertion.plan(document, in: dialect) }
    }
}

extension Document {
    /// The name a version is numbered under, as one text: owner, type and title (``SQLDialect/serialize(name:)``).
    package var nameKey: String { Self.nameKey(owner: owner, type: type, title: title) }

    package static func nameKey(owner: String, type: DocumentType.ID?, title: String) -> String {
        "\(owner)\u{1F}\(typeColumn(type))\u{1F}\(title)"
    }
}
