import Foundation
import PreviewCore
import PreviewDomain

/// The derivative cache's rows and the remembered render failures, written once for both backends
/// over the portable layer (``PortableDatabase``).
extension DocumentIndex {
    /// The derivative recorded under `key` (the derivative cache's lookup), or nil.
    package func derivative(key: String) async throws -> DerivativeRecord? {
        try await readPlan { SQLPlan.rows("SELECT * FROM derivatives WHERE key = \(key)").map { try $0.first.map(DerivativeRecord.init(row:)) } }
    }

    /// The derivative rows made with `parameters` (every video's `playback.json`, for `verify`).
    package func derivatives(parameters: String) async throws -> [DerivativeRecord] {
        try await readPlan {
            SQLPlan.rows("SELECT * FROM derivatives WHERE parameters = \(parameters)").map { try $0.map(DerivativeRecord.init(row:)) }
        }
    }

    /// The size the index has for blob `hash`; nil when it has no row.
    package func blobSize(_ hash: BlobHash) async throws -> Int? {
        try await readPlan { SQLPlan.rows("SELECT size FROM blobs WHERE sha256 = \(hash.hex)").map { $0.first?.integer("size").map(Int.init) } }
    }

    /// Forgets on-demand derivatives (of `source`, or of any), least recently used first, until
    /// those left take at most `budget` bytes; counts them in the store's evictions.
    package func evictPreviews(source: BlobHash?, downTo budget: Int) async throws -> PreviewEviction {
        let ofSource: PortableSQL = source.map { "AND d.source_sha256 = \($0.hex)" } ?? ""
        return try await runPlan(serializing: nil) {
            // Newest first, with the running sum: the rows past the budget (the least recently used) go.
            .statement(
                """
                DELETE FROM derivatives WHERE key IN (
                    SELECT key FROM (
                        SELECT d.key, SUM(b.size) OVER (ORDER BY d.used_at DESC, d.key ROWS UNBOUNDED PRECEDING) AS running
                        FROM derivatives d JOIN blobs b ON b.sha256 = d.result_sha256 WHERE d.on_demand \(ofSource)
                    ) ranked WHERE running > \(budget))
                RETURNING result_sha256, (SELECT size FROM blobs WHERE blobs.sha256 = derivatives.result_sha256) AS size
                """
            ) { rows in
                var eviction = PreviewEviction()
                for row in rows {
                    guard let hash = row.hash("result_sha256"), let size = row.integer("size") else {
                        throw UnreadableRow(table: "derivatives")
                    }
                    eviction.derivatives += 1
                    eviction.bytes += Int(size)
                    eviction.results.append(hash)
                }
                guard eviction.derivatives > 0 else { return .done(eviction) }
                return .statement(
                    """
                    INSERT INTO counters (name, value) VALUES (\(IndexStatistics.evictedPreviews), \(eviction.derivatives))
                    ON CONFLICT (name) DO UPDATE SET value = counters.value + excluded.value
                    """
                ) { _ in .done(eviction) }
            }
        }
    }

    /// Records a derivative whose result blob is already durable (first writer wins).
    package func recordDerivative(_ derivative: DerivativeRecord, resultSize: Int, resultMime: String) async throws {
        try await runPlan(serializing: nil) {
            .each(IndexWrites.recordDerivative(derivative, resultSize: resultSize, resultMime: resultMime), then: ())
        }
    }

    /// Marks the on-demand derivatives `keys` as used now, for least-recently-used eviction.
    package func touchDerivatives(_ keys: [String]) async throws {
        guard !keys.isEmpty else { return }
        let listed = PortableSQL.list(keys)
        try await runPlan(serializing: nil) {
            .each(["UPDATE derivatives SET used_at = \(PortableSQL.now) WHERE on_demand AND key IN (\(listed))"], then: ())
        }
    }

    /// Bytes of on-demand derivatives: of `source`, or of the whole store.
    package func onDemandPreviewBytes(source: BlobHash?) async throws -> Int {
        let ofSource: PortableSQL = source.map { "AND d.source_sha256 = \($0.hex)" } ?? ""
        return try await readPlan {
            SQLPlan.rows(
                """
                SELECT CAST(COALESCE(SUM(b.size), 0) AS BIGINT) AS bytes FROM derivatives d JOIN blobs b ON b.sha256 = d.result_sha256
                WHERE d.on_demand \(ofSource)
                """
            ).map { Int($0.first?.integer("bytes") ?? 0) }
        }
    }

    /// The remembered failure of the render or conversion keyed `key` (a derivative key), if any.
    package func failure(key: String) async throws -> RenderFailure? {
        try await readPlan { SQLPlan.rows("SELECT * FROM render_failures WHERE key = \(key)").map { try $0.first.map(RenderFailure.init(row:)) } }
    }

    /// Remembers that the render or conversion keyed `failure.key` timed out or crashed its renderer.
    package func recordFailure(_ failure: RenderFailure) async throws {
        try await runPlan(serializing: nil) {
            .each(
                [
                    """
                    INSERT INTO render_failures (key, source_sha256, code, message, created_at)
                    VALUES (\(failure.key), \(failure.sourceSha256.hex), \(failure.code.rawValue), \(failure.message), \(failure.createdAt))
                    ON CONFLICT (key) DO UPDATE SET code = excluded.code, message = excluded.message, created_at = excluded.created_at
                    """
                ], then: ())
        }
    }

    /// Forgets the remembered failures of `source` and of what is derived from it (an office
    /// document's pivot), or every one when `source` is nil; returns how many.
    @discardableResult
    package func forgetFailures(source: BlobHash?) async throws -> Int {
        let ofSource: PortableSQL =
            source.map {
                "WHERE source_sha256 = \($0.hex) OR source_sha256 IN (SELECT result_sha256 FROM derivatives WHERE source_sha256 = \($0.hex))"
            } ?? ""
        return try await runPlan(serializing: nil) { .statement("DELETE FROM render_failures \(ofSource) RETURNING key") { .done($0.count) } }
    }
}

extension DerivativeRecord {
    /// A derivative as either backend returns its row.
    init(row: PortableRow) throws {
        guard let key = row.text("key"), let source = row.hash("source_sha256"),
            let operation = row.text("operation").flatMap(DerivativeOperation.init(rawValue:)), let parameters = row.text("parameters"),
            let renderer = row.text("renderer"), let result = row.hash("result_sha256"),
            let width = row.integer("width"), let height = row.integer("height"), let createdAt = row.date("created_at"),
            let onDemand = row.bool("on_demand")
        else { throw UnreadableRow(table: "derivatives") }
        self.init(
            key: key, sourceSha256: source, operation: operation, parameters: parameters, renderer: renderer, resultSha256: result,
            width: Int(width), height: Int(height), createdAt: createdAt, onDemand: onDemand, usedAt: row.date("used_at"))
    }
}

extension RenderFailure {
    /// A remembered failure as either backend returns its row.
    init(row: PortableRow) throws {
        guard let key = row.text("key"), let source = row.hash("source_sha256"),
            let code = row.text("code").flatMap(PreviewError.Code.init(rawValue:)), let message = row.text("message"),
            let createdAt = row.date("created_at")
        else { throw UnreadableRow(table: "render_failures") }
        self.init(key: key, sourceSha256: source, error: PreviewError(code, message), createdAt: createdAt)
    }
}
