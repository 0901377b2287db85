import PreviewCore
import PreviewDomain

/// The row writes that a document's processing comes to, the same statements on both backends,
/// run inside one transaction of either (alone, or as steps of an ``SQLPlan``).
package enum IndexWrites {
    /// Records a derivative whose result blob is already durable, with the blob's row (first writer wins).
    package static func recordDerivative(_ derivative: DerivativeRecord, resultSize: Int, resultMime: String) -> [PortableSQL] {
        [
            """
            INSERT INTO blobs (sha256, size, mime, created_at) VALUES (\(derivative.resultSha256.hex), \(resultSize), \(resultMime), \
            \(PortableSQL.now))
            ON CONFLICT DO NOTHING
            """,
            """
            INSERT INTO derivatives (key, source_sha256, operation, parameters, renderer, result_sha256, width, height, created_at, on_demand, \
            used_at)
            VALUES (\(derivative.key), \(derivative.sourceSha256.hex), \(derivative.operation), \(derivative.parameters), \(derivative.renderer),
                \(derivative.resultSha256.hex), \(derivative.width), \(derivative.height), \(derivative.createdAt), \(derivative.onDemand), \
                \(derivative.usedAt))
            ON CONFLICT DO NOTHING
            """
        ]
    }

    package static func setFacts(documentID: String, facts: MediaFacts) -> PortableSQL {
        """
        UPDATE documents SET pages = \(facts.pages), duration_s = \(facts.durationSeconds), width = \(facts.width), height = \(facts.height),
            codec = \(facts.codec), rotation = \(facts.rotation), playback = \(facts.playback), frame_s = \(facts.frameSeconds),
            poster_score = \(facts.posterScore), poster_play = \(facts.posterPlay) WHERE id = \(documentID)
        """
    }

    package static func setPreviewStatus(documentID: String, status: PreviewStatus, error: PreviewError?) -> PortableSQL {
        "UPDATE documents SET preview_status = \(status), error_code = \(error?.code), error_message = \(error?.message) WHERE id = \(documentID)"
    }

    /// Queues a new job of `kind` for the document, ready now.
    package static func enqueueJob(documentID: String, kind: JobRecord.Kind) -> PortableSQL {
        """
        INSERT INTO jobs (document_id, kind, status, attempts, available_at, created_at, updated_at)
        VALUES (\(documentID), \(kind), \(JobRecord.Status.queued), 0, \(PortableSQL.now), \(PortableSQL.now), \(PortableSQL.now))
        """
    }

    /// `outcome`'s derivatives and, when `onDocument`, its facts and status on document `documentID`
    /// (a job whose lease was lost keeps only the derivatives, right whoever made them).
    package static func record(_ outcome: JobOutcome, documentID: String, onDocument: Bool = true) -> [PortableSQL] {
        var statements = outcome.derivatives.flatMap {
            recordDerivative($0.record, resultSize: $0.size, resultMime: $0.mime) + PageTexts.insert($0.pages, of: $0.record.key)
        }
        guard onDocument else { return statements }
        if let facts = outcome.facts { statements.append(setFacts(documentID: documentID, facts: facts)) }
        if let status = outcome.previewStatus { statements.append(setPreviewStatus(documentID: documentID, status: status, error: outcome.error)) }
        if let kind = outcome.followUp { statements.append(enqueueJob(documentID: documentID, kind: kind)) }
        return statements
    }
}

extension DerivativeOperation: SQLBindable {}
extension PreviewStatus: SQLBindable {}
extension Playback: SQLBindable {}
