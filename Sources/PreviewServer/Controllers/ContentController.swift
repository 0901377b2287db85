import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import PreviewCore
import PreviewDocuments
import PreviewDomain
import PreviewStore

/// `GET|HEAD /v1/documents/{id}/content`: a document's original, streamed from its blob, with
/// byte ranges, checked as it goes. `…/renditions/{name}`, `…/hls/{file}` and `…/trickplay/{file}`:
/// a video's rendition, its HLS ladder (master and rung playlists, rung media files read by byte
/// range) and the player's tracks (scrubbing thumbnails' sheets and WebVTT track, the plays'
/// chapters track), served the same way. A playlist or
/// thumbnails track fetched by a signed URL names its files by signed URLs too.
struct ContentController {
    let documents: DocumentService
    let offload: Offload
    let signed: SignedURLs
    /// Bounds the files being sent, overall and per connection.
    let streams: StreamSlots
    /// Bounds the renders a marked download makes (one admission for all its pages).
    let renders: RenderGate
    let logger: Logger

    func register(on routes: RouteTable) {
        for method in [HTTPRequest.Method.get, .head] {
            routes.add(method, "/v1/documents/:id/content") { request, context in
                try await content(context.parameters.require("id"), request: request, context: context)
            }
            routes.add(method, "/v1/documents/:id/renditions/:name") { request, context in
                try await playbackFile(context.parameters.require("id"), request: request, context: context) { manifest, _ in
                    guard let rendition = manifest.rendition, rendition.name == context.parameters.get("name") else { return nil }
                    return (rendition.sha256, rendition.mime, rendition.size)
                }
            }
            routes.add(method, "/v1/documents/:id/hls/:file") { request, context in
                try await playbackFile(context.parameters.require("id"), request: request, context: context) { manifest, _ in
                    guard let file = context.parameters.get("file"), let hash = manifest.ladder?.files[file] else { return nil }
                    return (hash, file.hasSuffix(".m3u8") ? DocumentService.playlistMime : "video/mp4", nil)
                }
            }
            routes.add(method, "/v1/documents/:id/trickplay/:file") { request, context in
                try await playbackFile(context.parameters.require("id"), request: request, context: context) { manifest, _ in
                    guard let trickplay = manifest.trickplay, let file = context.parameters.get("file") else { return nil }
                    if file == DocumentService.Playback.Trickplay.trackName { return (trickplay.track, "text/vtt; charset=utf-8", nil) }
                    if file == DocumentService.Playback.Plays.chaptersName {
                        return manifest.plays.map { ($0.chapters, "text/vtt; charset=utf-8", nil) }
                    }
                    if file == DocumentService.Playback.Teaser.fileName {
                        return manifest.teaser.map { ($0.file, "video/mp4", $0.made.size) }
                    }
                    return trickplay.sheets[file].map { ($0, "image/jpeg", nil) }
                }
            }
        }
    }

    /// The stored bytes, streamed from the blob (a local file, or the object store by range), with
    /// single byte ranges for players that seek.
    func content(_ id: String, request: Request, context: ServerContext) async throws -> Response {
        let documents = documents
        let document = try await documents.document(id: id)
        if let share = context.signedGrant?.marked, documents.marksContent(of: document, for: share) {
            if document.kind.category == .video { return try await markedFilm(document, share: share, request: request, context: context) }
            return try await markedContent(document, share: share, request: request, context: context)
        }
        let channel = context.channel
        let source = try await documents.blobs.servingSource(for: document.sha256, size: document.size)
        return try await serve(
            source, hash: document.sha256, size: document.size, mime: document.mime, request: request, channel: channel,
            disposition: ContentDisposition.value(
                inline: request.queryFields.get("download") == nil
                    && Self.showsInline(document.kind), fileName: document.filename))
    }

    /// The download of a share that marks what it serves: never the original, but the document
    /// rebuilt with its marks (``DocumentService/markedDownload(of:share:)``), made within the render
    /// gate, whole (no ranges), never kept by a cache.
    func markedContent(_ document: Document, share: ShareRecord, request: Request, context: ServerContext) async throws -> Response {
        let documents = documents
        let made: DocumentService.MarkedDownload
        do {
            made = try await renders.admitting(document, context: context) { try await documents.markedDownload(of: document, share: share) }
        } catch let error as PreviewError where error.code == .unavailable {
            throw APIError(error, headers: [.retryAfter: "2"])
        }
        ServiceMetrics.contentResponses(status: "200")
        var headers: HTTPFields = [
            .contentType: made.mime, .contentLength: "\(made.bytes.count)", .cacheControl: "private, no-store",
            .contentDisposition: ContentDisposition.value(inline: request.queryFields.get("download") == nil, fileName: made.fileName)
        ]
        headers.append(contentsOf: Self.inert)
        if request.method == .head { return Response(status: .ok, headers: headers) }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: made.bytes)))
    }

    /// The download of a watermarked share's video: its marked film
    /// (``DocumentService/playbackManifest(of:through:)``), by byte range; `202` until it is made.
    func markedFilm(_ document: Document, share: ShareRecord, request: Request, context: ServerContext) async throws -> Response {
        guard let film = try await documents.playbackManifest(of: document, through: share)?.rendition else {
            return try JSON.response(TextController.NotYet(documentID: document.id), status: .accepted, headers: [.retryAfter: "30"])
        }
        let source = try await documents.blobs.servingSource(for: film.sha256, size: film.size)
        return try await serve(
            source, hash: film.sha256, size: film.size, mime: film.mime, request: request, channel: context.channel,
            disposition: ContentDisposition.value(
                inline: request.queryFields.get("download") == nil,
                fileName: (document.filename as NSString).deletingPathExtension + ".mp4"))
    }

    /// A file of the playback manifest a request may have (the video's own, or a watermarked share's
    /// marked film: ``DocumentService/playbackManifest(of:through:)``) that `pick` names (its blob,
    /// type and size when the manifest says), or `not_found`.
    func playbackFile(
        _ id: String, request: Request, context: ServerContext,
        pick: @escaping @Sendable (DocumentService.Playback, Document) -> (BlobHash, String, Int?)?
    ) async throws -> Response {
        let documents = documents
        let document = try await documents.document(id: id)
        guard let manifest = try await documents.playbackManifest(of: document, through: context.signedGrant?.marked),
            let (hash, mime, knownSize) = pick(manifest, document)
        else {
            throw APIError(.notFound, "The document has no such playback file (yet).")
        }
        let source = try await documents.blobs.servingSource(for: hash, size: knownSize)
        if let grant = context.signedGrant, let references = Reference(mime: mime) {
            let text = String(decoding: try await documents.blobs.read(hash), as: UTF8.self)
            let folder = String(request.uri.path[...request.uri.path.lastIndex(of: "/")!])
            return Response(
                status: .ok, headers: [.contentType: mime, .cacheControl: "private, no-cache", .contentTypeOptions: "nosniff"],
                body: request.method == .head
                    ? ResponseBody()
                    : ResponseBody(
                        byteBuffer: ByteBuffer(
                            string:
                                references.signing(text, folder: folder, signed: signed, grant: grant))))
        }
        let size: Int
        switch source {
        case let .file(url):
            var file = stat()
            guard stat(url.path, &file) == 0 else { throw APIError(.internal, "The stored file is missing; it cannot be served.") }
            size = Int(file.st_size)
        case let .remote(_, remoteSize):
            size = remoteSize
        }
        return try await serve(source, hash: hash, size: size, mime: mime, request: request, channel: context.channel, disposition: "inline")
    }

    /// The files a text file of a video's names beside itself: an HLS playlist's URI lines and its
    /// tags' `URI` attributes (`EXT-X-MAP`, `EXT-X-I-FRAME-STREAM-INF`), a thumbnails track's sprite
    /// sheets (`sprite-0.jpg#xywh=…`).
    enum Reference {
        case playlist, track

        init?(mime: String) {
            if mime == DocumentService.playlistMime { self = .playlist } else if mime.hasPrefix("text/vtt") { self = .track } else { return nil }
        }

        /// `text` with each of its references to a file in `folder` replaced by a URL signed as `grant`
        /// was: until its expiry, for its share.
        func signing(_ text: String, folder: String, signed: SignedURLs, grant: SignedURLs.Grant) -> String {
            func sign(_ reference: Substring) -> String {
                let (name, fragment) = reference.firstIndex(of: "#").map { (reference[..<$0], String(reference[$0...])) } ?? (reference, "")
                guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }) else {
                    return String(reference)
                }
                return signed.sign(folder + name, query: grant.share.map { [("share", $0)] } ?? [], expires: grant.expires) + fragment
            }
            return text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
                switch self {
                case .playlist:
                    if !line.isEmpty && !line.hasPrefix("#") { return sign(line) }
                    guard line.hasPrefix("#EXT-X-"), let start = line.range(of: "URI=\""),
                        let end = line[start.upperBound...].firstIndex(of: "\"")
                    else { return String(line) }
                    return line[..<start.upperBound] + sign(line[start.upperBound..<end]) + line[end...]
                case .track:
                    return line.contains("#xywh=") ? sign(line) : String(line)
                }
            }.joined(separator: "\n")
        }
    }

    /// Whatever a file's bytes are, they never run as this site's page: no sniffing, no scripts.
    private static let inert: HTTPFields = [
        .contentTypeOptions: "nosniff",
        .contentSecurityPolicy: "sandbox; default-src 'none'; style-src 'unsafe-inline'"
    ]

    /// Blob `hash` from `source` (`size` bytes, as its row says): whole, or one byte range; `ETag` its
    /// hash, immutable, never sniffed, never a page of this site. No damaged byte is served: what can
    /// be checked before the status is (``checkedBody(_:hash:size:bytes:whole:channel:)``), and a
    /// missing or damaged blob is an error object before any header.
    private func serve(
        _ source: BlobServingSource, hash: BlobHash, size: Int, mime: String, request: Request, channel: (any Channel)?,
        disposition: String
    ) async throws -> Response {
        // A missing or shortened file is an error before any header goes out, not a 200 cut short.
        guard CheckedBlobBytes.isPresent(source, size: size) else { throw damaged(hash, missing: true) }
        let etag = "\"\(hash.hex)\""
        var headers: HTTPFields = [
            .eTag: etag, .acceptRanges: "bytes", .contentType: mime,
            .cacheControl: "private, max-age=31536000, immutable",
            .contentDisposition: disposition
        ]
        headers.append(contentsOf: Self.inert)
        if request.headers[.ifNoneMatch] == etag { return Response(status: .notModified, headers: headers) }
        var range = ByteRange(header: request.headers[.range], size: size)
        if let ifRange = request.headers[.ifRange], ifRange != etag { range = .whole }
        let status: HTTPResponse.Status
        let bytes: ClosedRange<Int>
        switch range {
        case .whole:
            (status, bytes) = (.ok, 0...(size - 1))
        case let .part(part):
            (status, bytes) = (.partialContent, part)
            headers[.contentRange] = "bytes \(part.lowerBound)-\(part.upperBound)/\(size)"
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(size)"
            ServiceMetrics.contentResponses(status: "416")
            throw APIError(.rangeNotSatisfiable, "The range is outside the \(size) bytes.", headers: headers)
        }
        ServiceMetrics.contentResponses(status: "\(status.code)")
        headers[.contentLength] = "\(bytes.count)"
        if request.method == .head { return Response(status: status, headers: headers) }
        let body = try await checkedBody(source, hash: hash, size: size, bytes: bytes, whole: range == .whole, channel: channel)
        return Response(status: status, headers: headers, body: body)
    }

    /// The body of bytes `bytes` of blob `hash`: the store's checked stream
    /// (``CheckedBlobBytes/open(_:blobs:hash:size:range:whole:offload:)``), written in a slot of
    /// ``streams``. A blob found missing or damaged before the status is an error object.
    private func checkedBody(
        _ source: BlobServingSource, hash: BlobHash, size: Int, bytes: ClosedRange<Int>, whole: Bool,
        channel: (any Channel)?
    ) async throws -> ResponseBody {
        let stream: BlobByteStream
        do {
            stream = try await CheckedBlobBytes.open(
                source, blobs: documents.blobs, hash: hash, size: size, range: bytes, whole: whole, offload: offload)
        } catch let notIntact as BlobNotIntact {
            throw damaged(hash, missing: notIntact.missing)
        }
        return inSlot(Self.body(stream, length: bytes.count, channel: channel, logger: logger), on: StreamSlots.connection(of: channel))
    }

    /// The error object of a blob that is missing or does not hash to its name, logged and counted.
    private func damaged(_ hash: BlobHash, missing: Bool = false) -> APIError {
        logger.error(missing ? "a stored file is missing" : "a stored file is damaged", metadata: ["preview.sha256": "\(hash)"])
        ServiceMetrics.damagedBlobs(kind: "original", problem: missing ? "missing" : "damaged")
        return APIError(.storeDamaged, "The stored file is \(missing ? "missing" : "damaged"); it cannot be served. Uploading it again repairs it.")
    }

    /// `body`, written once a slot of ``streams`` is free for `connection`: its file is opened only then.
    private func inSlot(_ body: ResponseBody, on connection: ObjectIdentifier?) -> ResponseBody {
        let streams = streams
        return ResponseBody(contentLength: body.contentLength) { writer in
            try await streams.withSlot(on: connection) { try await body.write(writer) }
        }
    }

    /// Kinds a browser shows itself (media and PDF); anything else is offered as a download.
    static func showsInline(_ kind: FileKind) -> Bool {
        switch kind.category {
        case .video, .audio, .pdf: true
        case .image: kind != .svg
        default: false
        }
    }
}
