import Foundation
import PreviewCore
import PreviewDomain

/// A document's share links and their visits, written once for both backends over the portable
/// layer (``PortableDatabase``): each backend runs the same statements.
extension DocumentIndex {
    /// Records a new share link.
    package func insertShare(_ share: ShareRecord) async throws {
        try await runPlan(serializing: nil) { .each([share.insertion], then: ()) }
    }

    /// Share `id`, or nil.
    package func share(id: String) async throws -> ShareRecord? {
        try await shares(where: "id = \(id)").first
    }

    /// The share whose token hashes to `tokenSha256`, or nil.
    package func share(tokenSha256: String) async throws -> ShareRecord? {
        try await shares(where: "token_sha256 = \(tokenSha256)").first
    }

    /// The shares of every version of the document that `id` is a version of, newest first.
    package func shares(ofDocument id: String) async throws -> [ShareRecord] {
        try await shares(where: "document_id IN (\(IndexSQL.versionIDs(of: id)))")
    }

    /// Makes the live school shares of the document that `document` is a version of exactly one
    /// per school of `schools`, in one transaction: revokes those of other schools and inserts
    /// `making(school)` for each school without one. Returns them in the order of `schools`. Two
    /// changes of one document's schools take turns (`turn` names the document, the same for
    /// each of them).
    package func shareWithSchools(
        document: String, turn: String, schools: [String], making: @escaping @Sendable (String) -> ShareRecord
    ) async throws -> [ShareRecord] {
        try await runPlan(serializing: "schools:" + turn) { SchoolShares.share(document: document, schools: schools, making: making) }
    }

    /// The schools of `owner`'s current documents and of their live shares (everyone's when nil), by name.
    package func schools(owner: String?) async throws -> [School] {
        try await readPlan { SchoolShares.schools(owner: owner) }
    }

    /// Revokes a share now; false when there is no such share or it was revoked already.
    package func revokeShare(id: String) async throws -> Bool {
        try await runPlan(serializing: nil) {
            .statement("UPDATE shares SET revoked_at = \(PortableSQL.now) WHERE id = \(id) AND revoked_at IS NULL RETURNING id") {
                .done(!$0.isEmpty)
            }
        }
    }

    /// Records an opening of a share's page, or a download of its original: its counts, and the
    /// visit with its time (the newest ``ShareVisit/kept`` are kept), in one transaction. A share's
    /// first opening is also an ``OwnerEvent``; openings take turns, so events are kept (and
    /// numbered) in the order they are committed, and a reader past one never misses an earlier.
    package func recordShareVisit(id: String, _ kind: ShareVisit.Kind) async throws {
        let count: PortableSQL =
            kind == .downloaded
            ? "UPDATE shares SET download_count = download_count + 1 WHERE id = \(id)"
            : "UPDATE shares SET opened_count = opened_count + 1, last_opened_at = \(PortableSQL.now) WHERE id = \(id)"
        var statements: [PortableSQL] = [
            count,
            "INSERT INTO share_visits (share_id, kind, at) VALUES (\(id), \(kind.rawValue), \(PortableSQL.now))",
            """
            DELETE FROM share_visits WHERE share_id = \(id) AND id <= (SELECT id FROM share_visits WHERE share_id = \(id)
            ORDER BY id DESC LIMIT 1 OFFSET \(ShareVisit.kept))
            """
        ]
        if kind == .opened {
            statements.append(
                """
                INSERT INTO owner_events (kind, owner, document_id, share_id, school, label, at)
                SELECT \(OwnerEvent.firstOpened), d.owner, s.document_id, s.id, s.school, s.label, \(PortableSQL.now)
                FROM shares AS s JOIN documents AS d ON d.id = s.document_id WHERE s.id = \(id) AND s.opened_count = 1
                """)
        }
        try await runPlan(serializing: kind == .opened ? "owner-events" : nil) { [statements] in .each(statements, then: ()) }
    }

    /// How far the webhook at `target` has delivered events: the last one it acknowledged. A target
    /// seen for the first time starts at the newest event kept then (no backlog).
    package func webhookCursor(target: String) async throws -> Int64 {
        try await runPlan(serializing: "webhook:" + target) {
            .statement(
                """
                INSERT INTO webhook_cursors (target, delivered_through) SELECT \(target), coalesce(max(seq), 0) FROM owner_events WHERE true
                ON CONFLICT (target) DO NOTHING
                """
            ) { _ in
                .statement("SELECT delivered_through FROM webhook_cursors WHERE target = \(target)") { rows in
                    guard let through = rows.first?.integer("delivered_through") else { throw UnreadableRow(table: "webhook_cursors") }
                    return .done(through)
                }
            }
        }
    }

    /// Records that the webhook at `target` was answered for every event up to `sequence`.
    package func advanceWebhookCursor(target: String, to sequence: Int64) async throws {
        try await runPlan(serializing: nil) {
            .each(
                ["UPDATE webhook_cursors SET delivered_through = \(sequence) WHERE target = \(target) AND delivered_through < \(sequence)"], then: ())
        }
    }

    /// The events kept after `sequence` (of `owner`'s documents only, when given), oldest first, at most `limit`.
    package func ownerEvents(after sequence: Int64, owner: String?, limit: Int) async throws -> [OwnerEvent] {
        let ofOwner: PortableSQL = owner.map { owner -> PortableSQL in "AND owner = \(owner)" } ?? ""
        return try await readPlan {
            SQLPlan.rows("SELECT * FROM owner_events WHERE seq > \(sequence) \(ofOwner) ORDER BY seq LIMIT \(limit)").map { rows in
                try rows.map { row in
                    guard let sequence = row.integer("seq"), let kind = row.text("kind"), let at = row.date("at"), let owner = row.text("owner"),
                        let document = row.text("document_id"), let share = row.text("share_id"), let label = row.text("label")
                    else { throw UnreadableRow(table: "owner_events") }
                    return OwnerEvent(
                        sequence: sequence, kind: kind, at: at, owner: owner, documentID: document, shareID: share, school: row.text("school"),
                        label: label)
                }
            }
        }
    }

    /// Share `id`'s kept visits, newest first.
    package func shareVisits(id: String) async throws -> [ShareVisit] {
        try await readPlan {
            SQLPlan.rows("SELECT kind, at FROM share_visits WHERE share_id = \(id) ORDER BY id DESC").map { rows in
                try rows.map { row in
                    guard let at = row.date("at") else { throw UnreadableRow(table: "share_visits") }
                    return ShareVisit(kind: row.text("kind").flatMap(ShareVisit.Kind.init(rawValue:)) ?? .opened, at: at)
                }
            }
        }
    }

    private func shares(where condition: PortableSQL) async throws -> [ShareRecord] {
        try await readPlan {
            SQLPlan.rows("SELECT * FROM shares WHERE \(condition) ORDER BY created_at DESC, id").map { try $0.map(ShareRecord.init(row:)) }
        }
    }
}

extension ShareRecord {
    /// A share as either backend returns its row.
    init(row: PortableRow) throws {
        guard let id = row.text("id"), let tokenSha256 = row.text("token_sha256"), let documentID = row.text("document_id"),
            let label = row.text("label"), let allowDownload = row.bool("allow_download"), let createdAt = row.date("created_at"),
            let openedCount = row.integer("opened_count"), let downloadCount = row.integer("download_count")
        else { throw UnreadableRow(table: "shares") }
        self.init(
            id: id, tokenSha256: tokenSha256, documentID: documentID, version: row.integer("version").map(Int.init), label: label,
            school: row.text("school"), passwordHash: row.text("password_hash"), allowDownload: allowDownload, createdAt: createdAt,
            expiresAt: row.date("expires_at"), highlight: row.text("highlight"), linkToken: row.text("link_token"))
        revokedAt = row.date("revoked_at")
        self.openedCount = Int(openedCount)
        lastOpenedAt = row.date("last_opened_at")
        self.downloadCount = Int(downloadCount)
        watermark = row.text("watermark")
        redaction = row.text("redaction").flatMap { try? JSONDecoder().decode(Redaction.self, from: Data($0.utf8)) }
    }

    /// ``redaction`` as its column keeps it: JSON, or nil for none.
    package var redactionJSON: String? {
        redaction.flatMap { try? JSONEncoder().encode($0) }.map { String(decoding: $0, as: UTF8.self) }
    }
}

/// A row of the index that does not read as what its table holds.
struct UnreadableRow: Error, CustomStringConvertible {
    var table: String
    var description: String { "an unreadable row of \(table) in the index" }
}
