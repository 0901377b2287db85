import Foundation
import PreviewCore

/// A school an owner's documents are for or shared with, and how many.
public struct School: Sendable, Equatable, Codable {
    public var name: String
    /// Current documents for it.
    public var documents: Int
    /// Current documents with a live share made for it.
    public var sharedDocuments: Int

    public init(name: String, documents: Int, sharedDocuments: Int) {
        self.name = name
        self.documents = documents
        self.sharedDocuments = sharedDocuments
    }

    enum CodingKeys: String, CodingKey {
        case name, documents
        case sharedDocuments = "shared_documents"
    }
}

/// Sharing a document with schools and reading an owner's schools, written once for both backends:
/// every statement runs through the backend's `shares` and `counts` (inside its transaction).
public struct SchoolShares {
    let shares: (PortableSQL) throws -> [ShareRecord]
    /// Runs a statement whose rows are (`name`, `n`).
    let counts: (PortableSQL) throws -> [(name: String, n: Int)]

    public init(shares: @escaping (PortableSQL) throws -> [ShareRecord], counts: @escaping (PortableSQL) throws -> [(name: String, n: Int)]) {
        self.shares = shares
        self.counts = counts
    }

    /// ``DocumentIndex/shareWithSchools(documentIDs:schools:making:)``.
    public func share(documentIDs: [String], schools: [String], making: (String) -> ShareRecord) throws -> [ShareRecord] {
        let versions = PortableSQL.joined(documentIDs.map { "\($0)" }, separator: ", ")
        let live = try shares("""
            SELECT * FROM shares WHERE document_id IN (\(versions)) AND school IS NOT NULL AND revoked_at IS NULL
                AND (expires_at IS NULL OR expires_at > \(PortableSQL.now)) ORDER BY created_at, id
            """)
        var kept: [String: ShareRecord] = [:]
        for share in live {
            guard let school = share.school, schools.contains(school), kept[school] == nil else {
                _ = try shares("UPDATE shares SET revoked_at = \(PortableSQL.now) WHERE id = \(share.id) RETURNING *")
                continue
            }
            kept[school] = share
        }
        return try schools.map { school in
            if let share = kept[school] { return share }
            let made = making(school)
            _ = try shares("""
                INSERT INTO shares (id, token_sha256, document_id, version, label, school, password_hash, allow_download, created_at, expires_at)
                VALUES (\(made.id), \(made.tokenSha256), \(made.documentID), \(made.version), \(made.label), \(made.school), \(made.passwordHash),
                        \(made.allowDownload), \(made.createdAt), \(made.expiresAt))
                RETURNING *
                """)
            return made
        }
    }

    /// ``DocumentIndex/schools(owner:)``: each read from an index of the owner's current documents
    /// (`documents_current_owner_school`) and their shares (`shares_document_school`).
    public func schools(owner: String?) throws -> [School] {
        let mine: PortableSQL = owner.map { "AND d.owner = \($0)" } ?? ""
        let documents = try counts("""
            SELECT d.school AS name, COUNT(*) AS n FROM documents d WHERE d.latest AND d.school IS NOT NULL \(mine) GROUP BY d.school
            """)
        // A document is its (owner, type, title), whichever of its versions a share names.
        let separator = "\u{1F}"
        let shared = try counts("""
            SELECT s.school AS name, COUNT(DISTINCT d.owner || \(separator) || d.type || \(separator) || d.title) AS n
            FROM shares s JOIN documents d ON d.id = s.document_id
            WHERE s.school IS NOT NULL AND s.revoked_at IS NULL AND (s.expires_at IS NULL OR s.expires_at > \(PortableSQL.now)) \(mine)
            GROUP BY s.school
            """)
        var schools: [String: School] = [:]
        for (name, n) in documents { schools[name, default: School(name: name, documents: 0, sharedDocuments: 0)].documents = n }
        for (name, n) in shared { schools[name, default: School(name: name, documents: 0, sharedDocuments: 0)].sharedDocuments = n }
        return schools.values.sorted { $0.name < $1.name }
    }
}
