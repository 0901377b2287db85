import Foundation
import GRDB
import PreviewCore
import PreviewDomain

/// A document as the SQLite driver's GRDB record: read by key and written back whole (a relabel).
/// It is read as both backends' rows are (``Document/init(row:)``) and inserted as on PostgreSQL
/// (``VersionInsertion``). The columns the schema maintains itself (`latest`, `live_shares`) are
/// never written from here.
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

    /// Read as either backend's rows are (``Document/init(row:)`` over a ``PortableRow``).
    init(row: Row) throws {
        document = try Document(row: PortableRow(row: row))
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
        container["preview_status"] = document.previewStatus.rawValue
        container["error_code"] = document.errorCode
        container["error_message"] = document.errorMessage
        container["job_status"] = document.jobStatus?.rawValue
        container["created_at"] = document.createdAt
    }
}
