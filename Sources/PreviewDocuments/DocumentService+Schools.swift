import Foundation
import PreviewCore
import PreviewStore

/// Schools: the names under an owner that documents are for and shared with. Sharing a document
/// with schools keeps one live share link per school (``shareWithSchools(_:_:)``).
extension DocumentService {
    /// What sharing with schools asks (`PUT /v1/documents/{id}/schools`): the schools it is shared
    /// with from now on, and how a new school's link works.
    public struct SchoolSharing: Sendable, Decodable {
        public var schools: [String]
        public var expiresAt: Date?
        public var password: String?
        public var allowDownload: Bool

        public init(schools: [String], expiresAt: Date? = nil, password: String? = nil, allowDownload: Bool = false) {
            self.schools = schools
            self.expiresAt = expiresAt
            self.password = password
            self.allowDownload = allowDownload
        }

        enum CodingKeys: String, CodingKey {
            case schools, password
            case expiresAt = "expires_at"
            case allowDownload = "allow_download"
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            schools = try container.decode([String].self, forKey: .schools)
            expiresAt = try container.decodeIfPresent(Date.self, forKey: .expiresAt)
            password = try container.decodeIfPresent(String.self, forKey: .password)
            allowDownload = try container.decodeIfPresent(Bool.self, forKey: .allowDownload) ?? false
        }
    }

    /// The most schools one document is shared with.
    public static let maxSchoolsPerDocument = 100

    /// Shares document `id` with exactly the schools asked: a live link per school (the one it has,
    /// or a new one made as asked), the links of schools no longer listed revoked, in one
    /// transaction. Each school's share in the order asked, with the token of a new one (shown
    /// once). `bad_request` for a school's name that breaks the label rules.
    public func shareWithSchools(_ id: String, _ request: SchoolSharing) throws -> [(share: ShareRecord, token: String?)] {
        var schools: [String] = []
        for asked in request.schools {
            guard let school = DocumentLabels.school(asked) else { throw PreviewError(.badRequest, "a school's name must not be empty") }
            try DocumentLabels.checkSchool(school)
            if !schools.contains(school) { schools.append(school) }
        }
        guard schools.count <= Self.maxSchoolsPerDocument else {
            throw PreviewError(.badRequest, "a document is shared with at most \(Self.maxSchoolsPerDocument) schools")
        }
        let now = clock.now
        try Self.checkLink(expiresAt: request.expiresAt, password: request.password, now: now)
        let versions = try versions(of: id)
        // One hash for every new link: they share the password, and each hash takes a quarter of a second.
        let passwordHash = try request.password.map(SharePassword.hash)
        var tokens: [String: String] = [:]
        let shares = try store.index.shareWithSchools(documentIDs: versions.map(\.id), schools: schools) { school in
            let token = Base64URL.randomToken(bytes: 16)
            let share = ShareRecord(id: UUID().uuidString.lowercased(), tokenSha256: Self.tokenHash(token), documentID: versions[0].id,
                                    version: nil, label: school, school: school, passwordHash: passwordHash,
                                    allowDownload: request.allowDownload, createdAt: now, expiresAt: request.expiresAt)
            tokens[share.id] = token
            return share
        }
        return shares.map { ($0, tokens[$0.id]) }
    }

    /// The schools of `owner`'s documents and shares (everyone's when nil), by name.
    public func schools(owner: String?) throws -> [School] {
        try store.index.schools(owner: owner)
    }
}
