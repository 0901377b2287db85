import Foundation
import PreviewCore
import PreviewDomain

/// What `gc`, `verify` and a document without a job read and write of the index, written once for
/// both backends over the portable layer (``PortableDatabase``).
extension DocumentIndex {
    /// Every blob a document refers to, and the derivatives of those (transitively): what `gc` keeps.
    package func referencedBlobs() async throws -> Set<BlobHash> {
        try await hashes("\(raw: IndexSQL.live) SELECT sha256 AS hash FROM live")
    }

    /// Every blob the index has a row for (referenced or not: a deleted document's blobs keep
    /// theirs until `gc`). A blob on disk without one is one the index lost track of.
    package func indexedBlobs() async throws -> Set<BlobHash> {
        try await hashes("SELECT sha256 AS hash FROM blobs")
    }

    /// The sources of every derivative row.
    package func derivativeSources() async throws -> Set<BlobHash> {
        try await hashes("SELECT DISTINCT source_sha256 AS hash FROM derivatives")
    }

    /// Forgets derivatives whose source no document (or a derivative of one) uses any more; returns how many.
    @discardableResult
    package func forgetDeadDerivatives() async throws -> Int {
        try await runPlan(serializing: nil) {
            .statement("\(raw: IndexSQL.live) DELETE FROM derivatives WHERE source_sha256 NOT IN (SELECT sha256 FROM live) RETURNING key") {
                .done($0.count)
            }
        }
    }

    /// Records what processing a document made (its derivatives, facts and preview status) in one
    /// transaction, for a document without a job (a job's outcome is recorded by its queue).
    package func record(_ outcome: JobOutcome, documentID: String) async throws {
        try await runPlan(serializing: nil) { .each(IndexWrites.record(outcome, documentID: documentID), then: ()) }
    }

    /// The hashes in column `hash` of what `query` selects; a value that is no hash is an unreadable row.
    private func hashes(_ query: PortableSQL) async throws -> Set<BlobHash> {
        try await readPlan {
            SQLPlan.rows(query).map { rows in
                Set(
                    try rows.map { row in
                        guard let hash = row.text("hash").flatMap(BlobHash.init(hex:)) else { throw UnreadableRow(table: "a list of hashes") }
                        return hash
                    })
            }
        }
    }
}
