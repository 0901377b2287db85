import Foundation
import PreviewCore
import PreviewDomain
import PreviewStore

/// Schools: the names under an owner that documents are for and shared with. Sharing a document
/// with schools keeps one live share link per school (``shareWithSchools(_:_:)``).
extension DocumentService {
    /// What sharing with schools asks (`PUT /v1/documents/{id}/schools`): the schools it is shared
    /// with from now on, and how a new school's link works.
    package struct SchoolSharing: Sendable, Decodable {
        package var schools: [String]
        package var link: LinkOptions

        enum CodingKeys: CodingKey {
            case schools
        }

        package init(from decoder: any Decoder) throws {
            schools = try decoder.container(keyedBy: CodingKeys.self).decode([String].self, forKey: .schools)
            link = try LinkOptions(from: decoder)
        }
    }

    /// The most schools one document is shared with.
    package static let maxSchoolsPerDocument = 100

    /// Shares document `id` with exactly the schools asked: a live link per school (the one it has,
    /// or a new one made as asked), the links of schools no longer listed revoked, in one
    /// transaction. Each school's share in the order asked, with the token of a new one (shown
    /// once). `bad_request` for a school's name that breaks the label rules.
    package func shareWithSchools(_ id: String, _ request: SchoolSharing) async throws -> [(share: ShareRecord, token: String?)] {
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
        try request.link.check(now: now)
        let newest = try await newest(of: id)
        // One hash for every new link: they share the password, and each hash takes a quarter of a second.
        let passwordHash = try await hashed(request.link.password)
        let tokens = Locked<[String: String]>([:])
        // The document's turn is named by the least id of its versions: a rename changes no id.
        let turn = try await store.index.leastVersionID(of: id) ?? id
        let shares = try await store.index.shareWithSchools(document: newest.id, turn: turn, schools: schools) { school in
            let made = Self.newLink(
                to: newest.id, version: nil, label: school, school: school, options: request.link,
                passwordHash: passwordHash, now: now)
            tokens.withLock { $0[made.share.id] = made.token }
            return made.share
        }
        let made = tokens.withLock { $0 }
        if shares.contains(where: { made[$0.id] != nil && $0.watermark != nil }) { try await queueMarkedFilms(of: newest) }
        return shares.map { ($0, made[$0.id]) }
    }

    /// The schools of `owner`'s documents and shares (everyone's when nil), by name.
    package func schools(owner: String?) async throws -> [School] {
        try await store.index.schools(owner: owner)
    }
}
