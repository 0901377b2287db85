import Foundation
import GRDB
import PreviewCore

/// A document as the SQLite index's `documents` rows hold it: the one place that knows their columns
/// (PostgreSQL's are read in `PreviewPostgres`). The columns the schema maintains itself (`latest`,
/// `live_shares`) are never written from here.
struct DocumentRow: FetchableRecord, PersistableRecord {
    static let databaseTableName = "documents"

    /// The columns a query filters or orders by.
    enum Columns {
        static let owner = Column("owner"), type = Column("type"), title = Column("title")
        static let sha256 = Column("sha256"), version = Column("version"), createdAt = Column("created_at")
    }

    var document: Document

    init(_ document: Document) {
        self.document = document
    }

    init(row: Row) throws {
        var facts = MediaFacts(
            width: try row.decode(forColumn: "width"), height: try row.decode(forColumn: "height"),
            pages: try row.decode(forColumn: "pages"), durationSeconds: try row.decode(forColumn: "duration_s"),
            codec: try row.decode(forColumn: "codec"), rotation: try row.decode(forColumn: "rotation"))
        facts.playback = try (row.decode(String?.self, forColumn: "playback")).map { text in
            guard let playback = Playback(rawValue: text) else { throw DatabaseRowError("playback", text) }
            return playback
        }
        let hex: String = try row.decode(forColumn: "sha256")
        guard let sha256 = BlobHash(hex: hex) else { throw DatabaseRowError("sha256", hex) }
        document = Document(
            id: try row.decode(forColumn: "id"), owner: try row.decode(forColumn: "owner"), type: try row.decode(forColumn: "type"),
            title: try row.decode(forColumn: "title"), filename: try row.decode(forColumn: "filename"),
            description: try row.decode(forColumn: "description"), school: try row.decode(forColumn: "school"), sha256: sha256,
            kind: try row.decode(forColumn: "kind"), mime: try row.decode(forColumn: "mime"), size: try row.decode(forColumn: "size"),
            facts: facts, version: try row.decode(forColumn: "version"), previewStatus: try row.decode(forColumn: "preview_status"),
            createdAt: try row.decode(forColumn: "created_at"))
        document.errorCode = try row.decode(forColumn: "error_code")
        document.errorMessage = try row.decode(forColumn: "error_message")
        document.jobStatus = try row.decode(forColumn: "job_status")
        document.liveShares = (row["live_shares"] as Int?) ?? 0
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = document.id
        container["owner"] = document.owner
        container["type"] = document.typeColumn
        container["title"] = document.title
        container["title_key"] = document.titleKey
        container["filename"] = document.filename
        container["description"] = document.description
        container["school"] = document.school
        container["search_key"] = document.searchKey
        container["sha256"] = document.sha256.hex
        container["kind"] = document.kind
        container["mime"] = document.mime
        container["size"] = document.size
        container["pages"] = document.pages
        container["duration_s"] = document.durationSeconds
        container["width"] = document.width
        container["height"] = document.height
        container["codec"] = document.codec
        container["rotation"] = document.rotation
        container["playback"] = document.playback?.rawValue
        container["version"] = document.version
        container["preview_status"] = document.previewStatus
        container["error_code"] = document.errorCode
        container["error_message"] = document.errorMessage
        container["job_status"] = document.jobStatus
        container["created_at"] = document.createdAt
    }
}

/// A row whose column holds what its type cannot be.
struct DatabaseRowError: Error, CustomStringConvertible {
    var column: String
    var value: String

    init(_ column: String, _ value: String) {
        self.column = column
        self.value = value
    }

    var description: String { "The index's \(column) column holds \(value), which is not one." }
}
