import Foundation
import PreviewCore
import PreviewDomain

/// A link's card as the index keeps it, by its normalised link: the card (JSON, as the fetcher made
/// it) with the blob of its picture's thumbnail, or the failure that link gave; and when.
package struct LinkCardRecord: Sendable {
    package var url: String
    /// The card's JSON, nil for a failure.
    package var card: String?
    /// The stored thumbnail of the card's picture (a blob of the store), its size and type.
    package var picture: BlobHash?
    package var pictureSize: Int?
    package var pictureMime: String?
    /// Why the card has no picture although its page names one.
    package var pictureError: PreviewError?
    /// Why the link gave no card.
    package var error: PreviewError?
    package var fetchedAt: Date

    package init(
        url: String, card: String?, picture: BlobHash? = nil, pictureSize: Int? = nil, pictureMime: String? = nil,
        pictureError: PreviewError? = nil, error: PreviewError? = nil, fetchedAt: Date
    ) {
        (self.url, self.card, self.picture, self.pictureSize, self.pictureMime) = (url, card, picture, pictureSize, pictureMime)
        (self.pictureError, self.error, self.fetchedAt) = (pictureError, error, fetchedAt)
    }
}

/// Links' cards, written once for both backends over the portable layer. A card's picture is
/// kept by `gc` while its row names it (``IndexSQL/live``).
extension DocumentIndex {
    /// Keeps `record` in place of what its link had (its picture's blob row first, as a derivative's).
    package func recordLinkCard(_ record: LinkCardRecord) async throws {
        var statements: [PortableSQL] = []
        if let picture = record.picture {
            statements.append(
                """
                INSERT INTO blobs (sha256, size, mime, created_at) VALUES (\(picture.hex), \(record.pictureSize ?? 0), \(record.pictureMime), \
                \(PortableSQL.now))
                ON CONFLICT DO NOTHING
                """)
        }
        statements.append(
            """
            INSERT INTO link_cards (url, card, picture_sha256, picture_error_code, picture_error_message, error_code, error_message, fetched_at)
            VALUES (\(record.url), \(record.card), \(record.picture?.hex), \(record.pictureError?.code), \(record.pictureError?.message),
                    \(record.error?.code), \(record.error?.message), \(record.fetchedAt))
            ON CONFLICT (url) DO UPDATE SET card = excluded.card, picture_sha256 = excluded.picture_sha256,
                picture_error_code = excluded.picture_error_code, picture_error_message = excluded.picture_error_message,
                error_code = excluded.error_code, error_message = excluded.error_message, fetched_at = excluded.fetched_at
            """)
        try await runPlan(serializing: nil) { [statements] in .each(statements, then: ()) }
    }

    /// The card kept for normalised link `url`, if any.
    package func linkCard(url: String) async throws -> LinkCardRecord? {
        try await readPlan {
            SQLPlan.rows(
                """
                SELECT c.*, b.size AS picture_size, b.mime AS picture_mime FROM link_cards c
                LEFT JOIN blobs b ON b.sha256 = c.picture_sha256 WHERE c.url = \(url)
                """
            ).map { rows in try rows.first.map(LinkCardRecord.init(row:)) }
        }
    }

    /// Whether some card's picture is blob `hash`, with its type: what the picture route may serve.
    package func linkPicture(_ hash: BlobHash) async throws -> String? {
        try await readPlan {
            SQLPlan.rows(
                """
                SELECT b.mime FROM link_cards c JOIN blobs b ON b.sha256 = c.picture_sha256 WHERE c.picture_sha256 = \(hash.hex) LIMIT 1
                """
            ).map { rows in rows.first.map { $0.text("mime") ?? "application/octet-stream" } }
        }
    }
}

extension LinkCardRecord {
    init(row: PortableRow) throws {
        guard let url = row.text("url"), let fetchedAt = row.date("fetched_at") else { throw UnreadableRow(table: "link_cards") }
        let error = { (code: String, message: String) in
            row.text(code).map { PreviewError(PreviewError.Code(rawValue: $0) ?? .internal, row.text(message) ?? "") }
        }
        self.init(
            url: url, card: row.text("card"), picture: row.text("picture_sha256").flatMap(BlobHash.init(hex:)),
            pictureSize: row.integer("picture_size").map { Int($0) }, pictureMime: row.text("picture_mime"),
            pictureError: error("picture_error_code", "picture_error_message"), error: error("error_code", "error_message"),
            fetchedAt: fetchedAt)
    }
}
