import Foundation
import PreviewCore
import PreviewDomain

/// The job queue's statements beside the lease contract (``Leases``), written once for both
/// backends: a document's first job, the reads, a running job's progress.
package enum JobStatements {
    /// Document `documentID`'s first job, of `status` (``JobRecord/Status/first(for:)``); a queued
    /// one is leased at once to `lease` when there is one. Returns the job's row.
    package static func first(documentID: String, status: JobRecord.Status, leasingTo lease: JobLease?) -> PortableSQL {
        let leasing = status == .queued ? lease : nil
        let expires: PortableSQL = leasing.map { PortableSQL.later($0.seconds) } ?? "NULL"
        return """
            INSERT INTO jobs (document_id, status, attempts, lease_owner, lease_expires_at, available_at, created_at, updated_at)
            VALUES (\(documentID), \(leasing == nil ? status : .processing), \(leasing == nil ? 0 : 1), \(leasing?.worker), \(expires), \
            \(PortableSQL.now), \(PortableSQL.now), \(PortableSQL.now))
            RETURNING *
            """
    }

    /// Job `id`.
    package static func job(id: Int64) -> PortableSQL {
        "SELECT * FROM jobs WHERE id = \(id)"
    }

    /// Document `documentID`'s latest job of `kind`.
    package static func latest(documentID: String, kind: JobRecord.Kind) -> PortableSQL {
        "SELECT * FROM jobs WHERE document_id = \(documentID) AND kind = \(kind) ORDER BY id DESC LIMIT 1"
    }

    /// The newest `limit` jobs, of `status` when given.
    package static func newest(status: JobRecord.Status?, limit: Int) -> PortableSQL {
        let filter: PortableSQL = status.map { "WHERE status = \($0)" } ?? ""
        return "SELECT * FROM jobs \(filter) ORDER BY id DESC LIMIT \(limit)"
    }

    /// Records how far running `job` has come, while its lease is still the one it holds.
    package static func progress(of job: JobRecord, fraction: Double) -> PortableSQL {
        """
        UPDATE jobs SET progress = \(fraction) WHERE id = \(job.id) AND status = \(JobRecord.Status.processing)
        AND lease_owner = \(job.leaseOwner) AND attempts = \(job.attempts)
        """
    }
}

extension JobRecord {
    /// A job as either backend returns its row.
    package init(row: PortableRow) throws {
        guard let id = row.integer("id"), let documentID = row.text("document_id"),
            let kind = row.text("kind").flatMap(Kind.init(rawValue:)), let status = row.text("status").flatMap(Status.init(rawValue:)),
            let attempts = row.integer("attempts"), let availableAt = row.date("available_at"), let createdAt = row.date("created_at"),
            let updatedAt = row.date("updated_at")
        else { throw UnreadableRow(table: "jobs") }
        let errorCode = try row.text("error_code").map { text in
            guard let code = PreviewError.Code(rawValue: text) else { throw UnreadableRow(table: "jobs (error_code: \(text))") }
            return code
        }
        self.init(
            id: id, documentID: documentID, kind: kind, status: status, attempts: Int(attempts), availableAt: availableAt,
            leaseOwner: row.text("lease_owner"), leaseExpiresAt: row.date("lease_expires_at"), errorCode: errorCode,
            errorMessage: row.text("error_message"), progress: row.real("progress"), createdAt: createdAt, updatedAt: updatedAt)
    }
}
