import Foundation
import PreviewCore
import PreviewDomain

/// A table of work that workers lease: jobs, link downloads, and the next queue. Its rows have a
/// key, a status, `attempts`, `available_at`, `lease_owner`, `lease_expires_at`, `error_code`,
/// `error_message` and `updated_at`; ``Leases`` is what a worker does with them, on either backend.
package struct LeaseTable: Sendable {
    /// The table's name.
    package var name: String
    /// The column that tells rows apart.
    package var key: String
    /// The statuses of rows waiting, leased, finished and failed for good.
    package var waiting: String
    package var running: String
    package var done: String
    package var failed: String
    /// Whose rows are leased fairly against each other's (the group with the fewest running
    /// first), for a row of the table under `alias`: a join it needs and the expression that names
    /// the group.
    package var group: @Sendable (_ alias: String) -> (join: String, expression: String)
    /// What a dead-lettered row's message calls the work (``RetryPolicy/gaveUp(_:after:)``).
    package var work: String
    /// Columns a new lease clears (a job's progress), as `column = NULL` assignments.
    package var clearedOnLease: [String]

    package init<Status: RawRepresentable>(
        name: String, key: String, waiting: Status, running: Status, done: Status, failed: Status,
        work: String, clearedOnLease: [String] = [],
        group: @escaping @Sendable (_ alias: String) -> (join: String, expression: String)
    )
    where Status.RawValue == String {
        self.name = name
        self.key = key
        (self.waiting, self.running, self.done, self.failed) = (waiting.rawValue, running.rawValue, done.rawValue, failed.rawValue)
        self.work = work
        self.clearedOnLease = clearedOnLease
        self.group = group
    }
}

/// Who holds a leased row: its key, the lease's owner and the attempt the lease counted. Every
/// lease takes a new attempt, so two slots of one worker (one owner name) differ here.
package struct LeaseHolder: Sendable, Equatable {
    package var key: SQLValue
    package var owner: String?
    package var attempts: Int

    package init(key: SQLValue, owner: String?, attempts: Int) {
        self.key = key
        self.owner = owner
        self.attempts = attempts
    }
}

/// A leased row, as its record.
package protocol Leased {
    var holder: LeaseHolder { get }
}

extension JobRecord: Leased {
    package var holder: LeaseHolder { LeaseHolder(key: id.map { .integer($0) } ?? .null, owner: leaseOwner, attempts: attempts) }
}

extension DownloadRecord: Leased {
    package var holder: LeaseHolder { LeaseHolder(key: seq.map { .integer($0) } ?? .null, owner: leaseOwner, attempts: attempts) }
}

extension LeaseTable {
    /// Jobs, fairly across the owners of their documents.
    package static let jobs = LeaseTable(
        name: "jobs", key: "id", waiting: JobRecord.Status.queued, running: .processing, done: .done, failed: .failed,
        work: "Processing", clearedOnLease: ["progress"]
    ) { alias in
        ("JOIN documents \(alias)_document ON \(alias)_document.id = \(alias).document_id", "\(alias)_document.owner")
    }

    /// Link downloads, fairly across the clients that sent them.
    package static let downloads = LeaseTable(
        name: "downloads", key: "seq", waiting: DownloadRecord.Status.queued, running: .downloading, done: .done, failed: .failed,
        work: "The download"
    ) { alias in ("", "\(alias).client_id") }
}

extension JobRecord.Status: SQLBindable {}
extension JobRecord.Kind: SQLBindable {}
extension DownloadRecord.Status: SQLBindable {}
extension PreviewError.Code: SQLBindable {}
