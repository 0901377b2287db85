import Foundation
import PreviewCore
import PreviewDomain

/// Reading documents and their versions, written once for both backends over the portable layer
/// (``PortableDatabase``).
extension DocumentIndex {
    /// Version `id`, or nil.
    package func document(id: String) async throws -> Document? {
        try await readPlan { Document.read(id: id) }
    }

    /// The documents of `ids` that exist, in one read (in no particular order).
    package func documents(ids: [String]) async throws -> [Document] {
        guard !ids.isEmpty else { return [] }
        return try await documents(where: "id IN (\(PortableSQL.list(ids)))")
    }

    /// The newest document whose original has this hash.
    package func latestDocument(sha256: BlobHash) async throws -> Document? {
        try await documents(where: "sha256 = \(sha256.hex) ORDER BY created_at DESC LIMIT 1").first
    }

    /// The highest version of (owner, type, title), if any.
    package func latestVersion(owner: String, type: DocumentType.ID?, title: String) async throws -> Document? {
        try await documents(where: "owner = \(owner) AND type = \(Document.typeColumn(type)) AND title = \(title) ORDER BY version DESC LIMIT 1")
            .first
    }

    /// Every version of the document that `id` is a version of, newest first; empty when there is none.
    package func versions(of id: String) async throws -> [Document] {
        try await readPlan {
            SQLPlan.rows("\(raw: IndexSQL.versionsOfOne) WHERE v.id = \(id) ORDER BY d.version DESC").map { try $0.map(Document.init(row:)) }
        }
    }

    /// Version `number` of the document that `id` is a version of (its newest when nil), or nil:
    /// one row read, however many versions there are.
    package func version(_ number: Int?, of id: String) async throws -> Document? {
        let numbered: PortableSQL = number.map { " AND d.version = \($0)" } ?? ""
        return try await readPlan {
            SQLPlan.rows("\(raw: IndexSQL.versionsOfOne) WHERE v.id = \(id)\(numbered) ORDER BY d.version DESC LIMIT 1")
                .map { try $0.first.map(Document.init(row:)) }
        }
    }

    /// The least id among the versions of the document that `id` is a version of, or nil: a name
    /// its versions share, read without reading them.
    package func leastVersionID(of id: String) async throws -> String? {
        try await readPlan {
            SQLPlan.rows("SELECT min(id) AS id FROM documents WHERE id IN (\(IndexSQL.versionIDs(of: id)))").map { $0.first?.text("id") }
        }
    }

    /// The documents rows `condition` (and what follows it: an order, a limit) selects.
    private func documents(where condition: PortableSQL) async throws -> [Document] {
        try await readPlan { SQLPlan.rows("SELECT * FROM documents WHERE \(condition)").map { try $0.map(Document.init(row:)) } }
    }
}

extension Document {
    /// The plan that reads version `id` (nil when there is none), for a transaction that reads it
    /// among its own statements: a leased job's document, a relabelled one.
    package static func read(id: String) -> SQLPlan<PortableRow, Document?> {
        .statement("SELECT * FROM documents WHERE id = \(id)") { .done(try $0.first.map(Document.init(row:))) }
    }

    /// A document as either backend returns its row (the `live_shares` column when the query has it).
    package init(row: PortableRow) throws {
        func value<T>(_ column: String, _ read: (String) -> T?) throws -> T {
            guard let value = read(column) else { throw UnreadableRow(table: "documents (\(column))") }
            return value
        }
        func optional<T>(_ column: String, _ parse: (String) -> T?) throws -> T? {
            guard let text = row.text(column) else { return nil }
            guard let value = parse(text) else { throw UnreadableRow(table: "documents (\(column): \(text))") }
            return value
        }
        var facts = MediaFacts(
            width: row.integer("width").map(Int.init), height: row.integer("height").map(Int.init), pages: row.integer("pages").map(Int.init),
            durationSeconds: row.real("duration_s"), codec: row.text("codec"), rotation: row.integer("rotation").map(Int.init))
        facts.playback = try optional("playback", Playback.init(rawValue:))
        (facts.frameSeconds, facts.posterScore) = (row.real("frame_s"), row.real("poster_score"))
        facts.posterPlay = row.integer("poster_play").map(Int.init)
        self.init(
            id: try value("id", row.text), owner: try value("owner", row.text), type: try value("type", row.text),
            title: try value("title", row.text), filename: try value("filename", row.text), description: try value("description", row.text),
            school: row.text("school"), sha256: try value("sha256", row.hash),
            kind: try value("kind") { row.text($0).flatMap(FileKind.init(rawValue:)) }, mime: try value("mime", row.text),
            size: Int(try value("size", row.integer)), facts: facts, version: Int(try value("version", row.integer)),
            previewStatus: try value("preview_status") { row.text($0).flatMap(PreviewStatus.init(rawValue:)) },
            createdAt: try value("created_at", row.date))
        errorCode = try optional("error_code", PreviewError.Code.init(rawValue:))
        errorMessage = row.text("error_message")
        jobStatus = try optional("job_status", JobRecord.Status.init(rawValue:))
        liveShares = row.integer("live_shares").map(Int.init) ?? 0
    }
}
