import Foundation
import PreviewCore
import PreviewDomain
import PreviewStore

// The JSON views of documents that the API and the CLI print: built from the domain records, never from rows.

/// `GET /v1/documents/{id}`.
package struct DocumentView: Encodable, Sendable {
    package var documentID: String
    package var owner: String
    package var type: String?
    package var title: String
    package var filename: String
    /// "" when the owner said nothing.
    package var description: String
    package var school: String?
    package var sha256: String
    package var kind: FileKind
    package var mime: String
    package var size: Int
    package var version: Int
    package var status: DocumentStatus
    package var previewStatus: PreviewStatus
    package var error: ErrorEnvelope.Body?
    package var facts: MediaFacts
    package var createdAt: Date
    package var links: [String: String]
    /// For a video: its renditions and scrubbing thumbnails (``DocumentService/view(of:)``).
    package var playback: PlaybackView?
    /// The shared links it was downloaded from (``DocumentService/view(of:)``).
    package var sources: [Source] = []

    /// A link the document was downloaded from, and the device that sent it.
    package struct Source: Encodable, Sendable {
        package var downloadID: String
        package var url: String
        package var clientID: String
        package var receivedAt: Date

        package init(_ download: DownloadRecord) {
            downloadID = download.id
            url = download.url
            clientID = download.clientID
            receivedAt = download.createdAt
        }
    }

    package init(_ document: Document, playback: PlaybackView? = nil) {
        self.playback = playback
        documentID = document.id
        owner = document.owner
        type = document.type
        title = document.title
        filename = document.filename
        description = document.description
        school = document.school
        sha256 = document.sha256.hex
        kind = document.kind
        mime = document.mime
        size = document.size
        version = document.version
        status = document.status
        previewStatus = document.previewStatus
        error = document.error.map { ErrorEnvelope($0).error }
        facts = document.facts
        createdAt = document.createdAt
        var links = ["self": "/v1/documents/\(document.id)"]
        if document.previewStatus != PreviewStatus.noPreview {
            links["thumbnail"] = "/v1/documents/\(document.id)/preview"
            links["preview"] = "/v1/documents/\(document.id)/preview?width=2048&height=2048"
            if document.kind.isPaged { links["page"] = "/v1/documents/\(document.id)/preview?page={n}&width={w}" }
        }
        self.links = links
    }

    /// Whether nothing more will change by itself: it failed, or its job is done and a video's
    /// playable version is made or refused.
    package var isSettled: Bool {
        status == .failed || status == .done && playback?.renditions.allSatisfy { $0.status != .pending } != false
    }

    /// What a waiting reader compares to tell that the document moved on: its status, its preview
    /// and its playable versions' progress.
    package var progressMark: String {
        "\(status.rawValue) \(previewStatus.rawValue) " + (playback?.renditions.map { "\($0.status.rawValue)\($0.progress ?? -1)" }.joined() ?? "")
    }

    enum CodingKeys: CodingKey {
        case documentID, owner, type, title, filename, description, school, sha256, kind, mime, size, version, status, previewStatus, error,
            createdAt, links, sources
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(documentID, forKey: .documentID)
        try container.encode(owner, forKey: .owner)
        try container.encodeIfPresent(type, forKey: .type)
        try container.encode(title, forKey: .title)
        try container.encode(filename, forKey: .filename)
        try container.encode(description, forKey: .description)
        try container.encodeIfPresent(school, forKey: .school)
        try container.encode(sha256, forKey: .sha256)
        try container.encode(kind, forKey: .kind)
        try container.encode(mime, forKey: .mime)
        try container.encode(size, forKey: .size)
        try container.encode(version, forKey: .version)
        try container.encode(status, forKey: .status)
        try container.encode(previewStatus, forKey: .previewStatus)
        try container.encodeIfPresent(error, forKey: .error)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(links, forKey: .links)
        if !sources.isEmpty { try container.encode(sources, forKey: .sources) }
        try facts.encode(to: encoder)
        try playback?.encode(to: encoder)
    }
}

/// A video's playback in `GET /v1/documents/{id}`: `renditions` (each with its `status`: `ready`,
/// `pending` with its `progress` once its transcode runs, or `failed` with the reason), the WebVTT
/// `trickplay` track of its scrubbing thumbnails, and `hls`, the master playlist of its adaptive
/// ladder (a long or large video's, once made; null otherwise, with `hls_error` when it was refused);
/// once its plays are indexed, `plays` (each with its `start`, `end` and `poster` time) and their
/// WebVTT `chapters` track; once made, its `teaser` (a few silent seconds for a list's card).
/// `plays_error` and `teaser_error` say why a video has no plays or no teaser.
package struct PlaybackView: Encodable, Sendable {
    package struct Rendition: Encodable, Sendable {
        /// Where a rendition is: being made (or waiting to be), ready to play, or refused.
        package enum Status: String, Encodable, Sendable {
            case pending, ready, failed
        }

        package var name: String
        package var mime: String
        package var codecs: String?
        package var width: Int?
        package var height: Int?
        package var bitrate: Int?
        package var size: Int?
        package var url: String?
        package var status: Status
        /// While it is being made: percent done.
        package var progress: Int?
        package var error: ErrorEnvelope.Body?
    }

    package var renditions: [Rendition]
    package var trickplay: String?
    package var hls: String?
    package var hlsError: ErrorEnvelope.Body?
    package var plays: [Play]?
    package var chapters: String?
    package var playsError: ErrorEnvelope.Body?
    package var teaser: String?
    package var teaserError: ErrorEnvelope.Body?

    enum CodingKeys: CodingKey {
        case renditions, trickplay, hls, hlsError, plays, playsError, chapters, teaser, teaserError
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(renditions, forKey: .renditions)
        try container.encode(trickplay, forKey: .trickplay)
        try container.encode(hls, forKey: .hls)
        try container.encodeIfPresent(hlsError, forKey: .hlsError)
        try container.encodeIfPresent(plays, forKey: .plays)
        try container.encodeIfPresent(chapters, forKey: .chapters)
        try container.encodeIfPresent(playsError, forKey: .playsError)
        try container.encodeIfPresent(teaser, forKey: .teaser)
        try container.encodeIfPresent(teaserError, forKey: .teaserError)
    }
}

/// `GET /v1/documents`.
package struct DocumentList: Encodable, Sendable {
    package var documents: [DocumentView]
    package var nextCursor: String?

    package init(_ page: DocumentPage) {
        documents = page.documents.map { DocumentView($0) }
        nextCursor = page.next?.token
    }
}

/// `GET /v1/search` and `docpreview search --json`: a page of a store-wide search's ranking.
package struct StoreSearchView: Encodable, Sendable {
    /// A document found, with its best hit: the page that holds the text most often, where on it,
    /// and a snippet around it (none when only its labels hold the text).
    package struct Result: Encodable, Sendable {
        package var document: DocumentView
        package var inLabels: Bool
        package var occurrences: Int
        package var hit: TextHits.Hit?
    }

    package var query: String
    package var results: [Result]
    /// Whether every match was read (else these are ranked among the first the bounds allowed).
    package var complete: Bool
    package var nextCursor: String?

    package init(query: String, _ page: DocumentService.StoreSearchPage) {
        self.query = query
        results = page.hits.map { Result(document: DocumentView($0.document), inLabels: $0.inLabels, occurrences: $0.occurrences, hit: $0.hit) }
        complete = page.complete
        nextCursor = page.next.map(String.init)
    }
}

/// One entry of `GET /v1/documents/{id}/versions`.
package struct VersionView: Encodable, Sendable {
    package var documentID: String
    package var version: Int
    package var size: Int
    package var sha256: String
    package var filename: String
    package var uploadedAt: Date
    package var status: DocumentStatus
    package var previewStatus: PreviewStatus
    package var current: Bool

    package init(_ document: Document, current: Bool) {
        documentID = document.id
        version = document.version
        size = document.size
        sha256 = document.sha256.hex
        filename = document.filename
        uploadedAt = document.createdAt
        status = document.status
        previewStatus = document.previewStatus
        self.current = current
    }
}

package struct VersionList: Encodable, Sendable {
    package var versions: [VersionView]

    /// `versions`, newest first: the first is the current one.
    package init(_ versions: [Document]) {
        self.versions = versions.map { VersionView($0, current: $0.id == versions.first?.id) }
    }
}

/// `DELETE /v1/documents/{id}`.
package struct DeletionView: Encodable, Sendable {
    package var documentID: String
    package var deletedVersions: [Int]
    package var cancelledJobs: Int

    package init(_ deletion: Deletion, id: String) {
        documentID = id
        deletedVersions = deletion.versions.map(\.version).sorted()
        cancelledJobs = deletion.cancelledJobs
    }
}
