import Foundation
import PreviewCore
import PreviewDomain

/// Which documents a listing wants: the latest version of each (owner, type, title), filtered,
/// sorted, one page at a time.
public struct DocumentQuery: Sendable, Equatable {
    public enum Sort: String, Sendable, CaseIterable, Codable {
        case newest, oldest, title, type
        /// Most live shares first.
        case mostShared = "most_shared"
    }

    public var owner: String?
    /// A declared document type id ("" for documents uploaded without one).
    package var type: String?
    /// A detected kind (`pdf`, `mp4`, …).
    package var kind: String?
    /// Only documents for this school.
    package var school: String?
    /// Text in the title, the description or the file name, matched without regard to case.
    package var containing: String?
    package var status: PreviewStatus?
    /// Only documents with a live share (true), or with none (false).
    package var shared: Bool?
    package var sort: Sort
    package var limit: Int
    /// Where the previous page ended; nil for the first page.
    public var after: DocumentCursor?

    /// The largest page a listing returns.
    package static let maxLimit = 200

    public init(
        owner: String? = nil, type: String? = nil, kind: String? = nil, school: String? = nil, containing: String? = nil,
        status: PreviewStatus? = nil, shared: Bool? = nil, sort: Sort = .newest, limit: Int = 50, after: DocumentCursor? = nil
    ) {
        self.owner = owner
        self.type = type
        self.kind = kind
        self.school = school
        self.containing = containing
        self.status = status
        self.shared = shared
        self.sort = sort
        self.limit = min(max(limit, 1), Self.maxLimit)
        self.after = after
    }
}

/// One page of a listing and where the next one starts.
public struct DocumentPage: Sendable {
    package var documents: [Document]
    /// Nil on the last page.
    public var next: DocumentCursor?

    package init(documents: [Document], next: DocumentCursor?) {
        self.documents = documents
        self.next = next
    }
}

/// The keyset position after a listed document: its sort key as the index wrote it, ending with
/// its id. Opaque to clients (base64url JSON); it stays valid while documents are added or removed,
/// and a page never repeats or skips a document that was there throughout.
public struct DocumentCursor: Sendable, Equatable, Codable {
    package var sort: DocumentQuery.Sort
    package var keys: [String]

    package init(sort: DocumentQuery.Sort, keys: [String]) {
        self.sort = sort
        self.keys = keys
    }

    /// The cursor as it goes into a URL.
    package var token: String {
        Base64URL.encode((try? JSONEncoder().encode(self)) ?? Data())
    }

    /// Reads a ``token``; nil when it is not one, or was made for another sort order.
    package init?(token: String, sort: DocumentQuery.Sort) {
        guard token.count <= 4096, let data = Base64URL.decode(token),
            let cursor = try? JSONDecoder().decode(DocumentCursor.self, from: data),
            cursor.sort == sort, cursor.keys.count == cursor.sort.keyCount
        else { return nil }
        self = cursor
    }
}

extension DocumentQuery.Sort {
    /// Key columns: the order's own, then the id that breaks ties.
    package var keyCount: Int {
        switch self {
        case .newest, .oldest, .title, .mostShared: 2
        case .type: 3
        }
    }
}

/// What a delete removed.
public struct Deletion: Sendable, Equatable {
    /// The versions removed.
    package var versions: [Document]
    /// Jobs of theirs that were waiting or running, now cancelled.
    package var cancelledJobs: Int

    package init(versions: [Document], cancelledJobs: Int) {
        self.versions = versions
        self.cancelledJobs = cancelledJobs
    }
}
