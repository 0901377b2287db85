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

    /// Of `hashes`, the blobs that no document or derivative refers to: their rows are removed and
    /// they are returned, for their files to be removed (under the exclusive reference lock).
    package func forgetBlobs(ifUnused hashes: [BlobHash]) async throws -> [BlobHash] {
        let chunks = Self.chunks(of: Set(hashes.map(\.hex)).sorted())
        guard !chunks.isEmpty else { return [] }
        return try await runPlan(serializing: nil) { Self.forgetting(chunks[...], forgotten: []) }
    }

    /// Records what processing a document made (its derivatives, facts and preview status) in one
    /// transaction, for a document without a job (a job's outcome is recorded by its queue).
    package func record(_ outcome: JobOutcome, documentID: String) async throws {
        try await runPlan(serializing: nil) { .each(IndexWrites.record(outcome, documentID: documentID), then: ()) }
    }

    /// The blobs of `chunks` that nothing refers to forgotten, a chunk a statement (each binds its
    /// hashes one by one, well below either backend's limit of parameters), after `forgotten`.
    private static func forgetting(_ chunks: ArraySlice<[String]>, forgotten: [BlobHash]) -> SQLPlan<PortableRow, [BlobHash]> {
        guard let chunk = chunks.first else { return .done(forgotten) }
        return .statement(
            """
            DELETE FROM blobs WHERE sha256 IN (\(PortableSQL.list(chunk)))
            AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.sha256 = blobs.sha256)
            AND NOT EXISTS (SELECT 1 FROM derivatives v WHERE v.source_sha256 = blobs.sha256)
            AND NOT EXISTS (SELECT 1 FROM derivatives v WHERE v.result_sha256 = blobs.sha256)
            RETURNING sha256
            """
        ) { rows in
            let hashes = try rows.map { row in
                guard let hash = row.hash("sha256") else { throw UnreadableRow(table: "blobs") }
                return hash
            }
            return forgetting(chunks.dropFirst(), forgotten: forgotten + hashes)
        }
    }

    /// `values` in runs of at most `size`.
    private static func chunks(of values: [String], size: Int = 1000) -> [[String]] {
        stride(from: 0, to: values.count, by: size).map { Array(values[$0..<min($0 + size, values.count)]) }
    }

    /// The hashes in column `hash` of what `query` selects; a value that is no hash is an unreadable row.
    private func hashes(_ query: PortableSQL) async throws -> Set<BlobHash> {
        try await readPlan {
            SQLPlan.rows(query).map { rows in
                Set(
                    try rows.map { row in
                        guard let hash = row.hash("hash") else { throw UnreadableRow(table: "a list of hashes") }
                        return hash
                    })
            }
        }
    }
}
