import Foundation
import PostgresNIO
import PreviewCore
import PreviewQueue
import PreviewStore

/// Records from rows selected with `*` (column names as in the schema).
extension DocumentRecord {
    init(row: PostgresRandomAccessRow) throws {
        let facts = MediaFacts(width: try row["width"].decode(Int?.self), height: try row["height"].decode(Int?.self),
                               pages: try row["pages"].decode(Int?.self), durationSeconds: try row["duration_s"].decode(Double?.self),
                               codec: try row["codec"].decode(String?.self), rotation: try row["rotation"].decode(Int?.self))
        self.init(id: try row["id"].decode(String.self), owner: try row["owner"].decode(String.self),
                  type: try row["type"].decode(String.self), title: try row["title"].decode(String.self),
                  filename: try row["filename"].decode(String.self), sha256: try row.hash("sha256"),
                  kind: try row["kind"].decode(String.self), mime: try row["mime"].decode(String.self),
                  size: try row["size"].decode(Int.self), facts: facts, version: try row["version"].decode(Int.self),
                  previewStatus: try Self.previewStatus(try row["preview_status"].decode(String.self)),
                  createdAt: try row["created_at"].decode(Date.self))
        errorCode = try row["error_code"].decode(String?.self)
        errorMessage = try row["error_message"].decode(String?.self)
    }

    private static func previewStatus(_ text: String) throws -> PreviewStatus {
        guard let status = PreviewStatus(rawValue: text) else { throw PostgresDriverError("unknown preview status \(text)") }
        return status
    }
}

extension DerivativeRecord {
    init(row: PostgresRandomAccessRow) throws {
        self.init(key: try row["key"].decode(String.self), sourceSha256: try row.hash("source_sha256"),
                  operation: try row["operation"].decode(String.self), parameters: try row["parameters"].decode(String.self),
                  renderer: try row["renderer"].decode(String.self), resultSha256: try row.hash("result_sha256"),
                  width: try row["width"].decode(Int.self), height: try row["height"].decode(Int.self),
                  createdAt: try row["created_at"].decode(Date.self), onDemand: try row["on_demand"].decode(Bool.self),
                  usedAt: try row["used_at"].decode(Date?.self))
    }
}

extension RenderFailure {
    init(row: PostgresRandomAccessRow) throws {
        let code = try row["code"].decode(String.self)
        self.init(key: try row["key"].decode(String.self), sourceSha256: try row.hash("source_sha256"),
                  error: PreviewError(try PreviewError.Code(rawValue: code).orThrow("error code \(code)"), try row["message"].decode(String.self)),
                  createdAt: try row["created_at"].decode(Date.self))
    }
}

extension JobRecord {
    init(row: PostgresRandomAccessRow) throws {
        let status = try row["status"].decode(String.self)
        self.init(id: try row["id"].decode(Int64.self), documentID: try row["document_id"].decode(String.self),
                  status: try Status(rawValue: status).orThrow("job status \(status)"),
                  attempts: try row["attempts"].decode(Int.self), availableAt: try row["available_at"].decode(Date.self),
                  leaseOwner: try row["lease_owner"].decode(String?.self),
                  leaseExpiresAt: try row["lease_expires_at"].decode(Date?.self),
                  errorCode: try row["error_code"].decode(String?.self), errorMessage: try row["error_message"].decode(String?.self),
                  createdAt: try row["created_at"].decode(Date.self), updatedAt: try row["updated_at"].decode(Date.self))
    }
}

extension PostgresRandomAccessRow {
    func hash(_ column: String) throws -> BlobHash {
        let hex = try self[column].decode(String.self)
        return try BlobHash(hex: hex).orThrow("SHA-256 \(hex)")
    }
}

extension Optional {
    /// The value, or an error naming what the database held that this version cannot read.
    func orThrow(_ what: String) throws -> Wrapped {
        guard let self else { throw PostgresDriverError("Unreadable \(what) in the database.") }
        return self
    }
}
