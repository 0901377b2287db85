import Foundation
import PreviewCore

/// A school an owner's documents are for or shared with, and how many.
public struct School: Sendable, Equatable, Encodable {
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
            SELECT * FROM shares s WHERE s.document_id IN (\(versions)) AND s.school IS NOT NULL AND \(Self.isLive("s")) ORDER BY s.created_at, s.id
            """)
        var kept: [String: ShareRecord] = [:]
        var revoked: [PortableSQL] = []
        for share in live {
            if let school = share.school, schools.contains(school), kept[school] == nil {
                kept[school] = share
            } else {
                revoked.append("\(share.id)")
            }
        }
        if !revoked.isEmpty {
            _ = try shares("UPDATE shares SET revoked_at = \(PortableSQL.now) WHERE id IN (\(PortableSQL.joined(revoked, separator: ", "))) RETURNING *")
        }
        return try schools.map { school in
            if let share = kept[school] { return share }
            let made = making(school)
            _ = try shares(made.insertion)
            return made
        }
    }

    /// The share under `alias` still opens: not revoked, not past its expiry.
    private static func isLive(_ alias: String) -> PortableSQL {
        "\(raw: alias).revoked_at IS NULL AND (\(raw: alias).expires_at IS NULL OR \(raw: alias).expires_at > \(PortableSQL.now))"
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
            WHERE s.school IS NOT NULL AND \(Self.isLive("s")) \(mine)
            GROUP BY s.school
            """)
        var schools: [String: School] = [:]
        for (name, n) in documents { schools[name, default: School(name: name, documents: 0, sharedDocuments: 0)].documents = n }
        for (name, n) in shared { schools[name, default: School(name: name, documents: 0, sharedDocuments: 0)].sharedDocuments = n }
        return schools.values.sorted { $0.name < $1.name }
    }
}

extension ShareRecord {
    /// The statement that inserts this new share (its counts start at 0), returning it.
    public var insertion: PortableSQL {
        """
        INSERT INTO shares (id, token_sha256, document_id, version, label, school, password_hash, allow_download, created_at, expires_at)
        VALUES (\(id), \(tokenSha256), \(documentID), \(version), \(label), \(school), \(passwordHash), \(allowDownload), \(createdAt),
                \(expiresAt))
        RETURNING *
        """
    }
}
