import Foundation
import PreviewCore
import PreviewDomain

/// A school an owner's documents are for or shared with, and how many.
public struct School: Sendable, Equatable, Encodable {
    package var name: String
    /// Current documents for it.
    package var documents: Int
    /// Current documents with a live share made for it.
    package var sharedDocuments: Int

    package init(name: String, documents: Int, sharedDocuments: Int) {
        self.name = name
        self.documents = documents
        self.sharedDocuments = sharedDocuments
    }
}

/// Sharing a document with schools and reading an owner's schools, written once for both backends
/// as ``SQLPlan``s that each runs in its transaction.
package enum SchoolShares {
    /// ``DocumentIndex/shareWithSchools(document:schools:making:)``.
    package static func share(document id: String, schools: [String], making: @escaping @Sendable (String) -> ShareRecord)
        -> SQLPlan<PortableRow, [ShareRecord]>
    {
        .statement(
            """
            SELECT * FROM shares s WHERE s.document_id IN (\(IndexSQL.versionIDs(of: id))) AND s.school IS NOT NULL AND \(isLive("s"))
            ORDER BY s.created_at, s.id
            """
        ) { rows in
            let live = try rows.map(ShareRecord.init(row:))
            var kept: [String: ShareRecord] = [:]
            var revoked: [String] = []
            for share in live {
                if let school = share.school, schools.contains(school), kept[school] == nil {
                    kept[school] = share
                } else {
                    revoked.append(share.id)
                }
            }
            var statements: [PortableSQL] = []
            if !revoked.isEmpty {
                statements.append("UPDATE shares SET revoked_at = \(PortableSQL.now) WHERE id IN (\(PortableSQL.list(revoked)))")
            }
            var shares: [ShareRecord] = []
            for school in schools {
                if let share = kept[school] {
                    shares.append(share)
                } else {
                    let made = making(school)
                    shares.append(made)
                    statements.append(made.insertion)
                }
            }
            return .each(statements, then: shares)
        }
    }

    /// The share under `alias` still opens: not revoked, not past its expiry.
    private static func isLive(_ alias: String) -> PortableSQL {
        "\(raw: alias).revoked_at IS NULL AND (\(raw: alias).expires_at IS NULL OR \(raw: alias).expires_at > \(PortableSQL.now))"
    }

    /// ``DocumentIndex/schools(owner:)``: each read from an index of the owner's current documents
    /// (`documents_current_owner_school`) and their shares (`shares_document_school`).
    package static func schools(owner: String?) -> SQLPlan<PortableRow, [School]> {
        let mine: PortableSQL = owner.map { "AND d.owner = \($0)" } ?? ""
        // A document is its (owner, type, title), whichever of its versions a share names.
        let separator = "\u{1F}"
        return SQLPlan.rows(
            """
            SELECT d.school AS name, COUNT(*) AS n FROM documents d WHERE d.latest AND d.school IS NOT NULL \(mine) GROUP BY d.school
            """
        ).then { documents in
            SQLPlan.rows(
                """
                SELECT s.school AS name, COUNT(DISTINCT d.owner || \(separator) || d.type || \(separator) || d.title) AS n
                FROM shares s JOIN documents d ON d.id = s.document_id
                WHERE s.school IS NOT NULL AND \(isLive("s")) \(mine)
                GROUP BY s.school
                """
            ).map { sharedRows in
                let (documents, shared) = (try documents.map(SchoolCount.init(row:)), try sharedRows.map(SchoolCount.init(row:)))
                var schools: [String: School] = [:]
                for count in documents {
                    schools[count.name, default: School(name: count.name, documents: 0, sharedDocuments: 0)].documents = count.n
                }
                for count in shared {
                    schools[count.name, default: School(name: count.name, documents: 0, sharedDocuments: 0)].sharedDocuments = count.n
                }
                return schools.values.sorted { $0.name < $1.name }
            }
        }
    }
}

/// A row of a count by school: its `name` and `n`.
struct SchoolCount: Sendable {
    var name: String
    var n: Int

    init(row: PortableRow) throws {
        guard let name = row.text("name"), let n = row.integer("n") else { throw UnreadableRow(table: "a count by school") }
        (self.name, self.n) = (name, Int(n))
    }
}

extension ShareRecord {
    /// The statement that inserts this new share (its counts start at 0), returning it.
    package var insertion: PortableSQL {
        """
        INSERT INTO shares (id, token_sha256, document_id, version, label, school, password_hash, allow_download, created_at, expires_at,
                            highlight, link_token, watermark, redaction)
        VALUES (\(id), \(tokenSha256), \(documentID), \(version), \(label), \(school), \(passwordHash), \(allowDownload), \(createdAt),
                \(expiresAt), \(highlight), \(linkToken), \(watermark), \(redactionJSON))
        RETURNING *
        """
    }
}
