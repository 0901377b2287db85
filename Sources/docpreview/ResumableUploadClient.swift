import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import PreviewCore
import PreviewServer
import PreviewStore

/// A client of the server's resumable uploads (the IETF draft, interop version 6, as iOS sends it):
/// creates the upload empty, then appends the file a chunk at a time. When a connection drops or
/// the server fails (5xx, 429), it asks the server how much arrived (`HEAD`) and goes on from
/// there, after a pause that grows while nothing moves. The upload's URL is remembered in `state`
/// until it completes, so the next run for the same file resumes it too. The server is not
/// trusted further than that: the token goes only to its origin (an upload it names elsewhere is
/// refused), and an append it answers without taking bytes counts as a failure, so a server that
/// never moves the offset is given up on after the same back-off.
struct ResumableUploadClient {
    let http: HTTPClient
    let server: String
    let token: String?
    let chunkBytes: Int
    /// Consecutive failures without progress before giving up.
    let retries: Int
    let offload: Offload
    /// Told of each resumption (what the server had, and why).
    let note: @Sendable (String) -> Void

    struct Refusal: Error, CustomStringConvertible {
        var status: Int
        var body: String
        var description: String { "the server answered \(status): \(body)" }
    }

    /// The server answered in a way no honest one does; given up on at once.
    struct Untrusted: Error, CustomStringConvertible {
        var description: String
    }

    /// An append answered as kept that did not move the offset.
    struct NoProgress: Error, CustomStringConvertible {
        var offset: Int
        var description: String { "the server took none of the bytes (its offset stays at \(offset))" }
    }

    /// `scheme://host:port` of `url`, lowercased with the scheme's port filled in; nil if it has none.
    static func origin(_ url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(), let host = components.host?.lowercased(),
            ["http", "https"].contains(scheme)
        else { return nil }
        return "\(scheme)://\(host):\(components.port ?? (scheme == "https" ? 443 : 80))"
    }

    /// `location` made absolute against the server; refused when it names another origin, which
    /// the token must not reach.
    private func sameOrigin(_ location: String) throws -> String {
        let absolute = location.hasPrefix("/") ? server + location : location
        guard let origin = Self.origin(absolute), origin == Self.origin(server) else {
            throw Untrusted(
                description: "the server named its upload at \(SafeText.terminal(String(location.prefix(200)))), not at \(server); "
                    + "the token is sent only to \(server)")
        }
        return absolute
    }

    /// Uploads `file` (`size` bytes) under `labels`; returns the server's answer to the last append (the document).
    /// `state` keeps the upload's address meanwhile, so a later run resumes it; it goes once the
    /// upload is a document.
    func upload(_ file: URL, size: Int, labels: [String: String], state: URL) async throws -> [String: Any] {
        let document = try await send(file, size: size, labels: labels, state: state)
        try? FileManager.default.removeItem(at: state)
        return document
    }

    private func send(_ file: URL, size: Int, labels: [String: String], state: URL) async throws -> [String: Any] {
        var location = (try? String(contentsOf: state, encoding: .utf8)).flatMap {
            try? sameOrigin($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        var offset = 0
        var limit = chunkBytes
        if let known = location {
            switch try await remaining(known) {
            case let .open(at, appendLimit):
                (offset, limit) = (at, min(chunkBytes, appendLimit ?? chunkBytes))
                note("resuming \(file.lastPathComponent) at byte \(at) of \(size)")
            case let .complete(document):
                return try await self.document(document)
            case .gone:
                location = nil
            }
        }
        if location == nil {
            let created = try await create(labels: labels, size: size)
            location = created.location
            limit = min(chunkBytes, created.appendLimit ?? chunkBytes)
            try FileManager.default.createDirectory(at: state.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(created.location.utf8).write(to: state)
        }
        let upload = location!
        var failures = 0
        while true {
            let length = min(limit, size - offset)
            let ends = offset + length == size
            do {
                let answer = try await append(file, to: upload, offset: offset, length: length, ends: ends)
                if ends {
                    // A last append answered without its document did not complete the upload.
                    guard answer.json["document_id"] is String else { throw NoProgress(offset: answer.offset ?? offset) }
                    return answer.json
                }
                let next = answer.offset ?? offset + length
                guard next <= size else { throw Untrusted(description: "the server says it has \(next) bytes of a \(size)-byte file") }
                guard next > offset else { throw NoProgress(offset: next) }
                offset = next
                failures = 0
            } catch let refusal as Refusal where refusal.status < 500 && refusal.status != 429 && refusal.status != 409 {
                throw refusal
            } catch let untrusted as Untrusted {
                throw untrusted
            } catch {
                // The connection dropped, the server could not be reached or failed, or the offset moved.
                failures += 1
                try await resume(after: error, failures: failures)
                switch try await remaining(upload) {
                case let .open(at, _):
                    guard at <= size else { throw Untrusted(description: "the server says it has \(at) bytes of a \(size)-byte file") }
                    if at > offset { failures = 0 }
                    offset = at
                case let .complete(document):
                    // The last request arrived; its answer did not.
                    return try await self.document(document)
                case .gone:
                    throw error
                }
            }
        }
    }

    private enum Remaining {
        case open(at: Int, appendLimit: Int?)
        /// Every byte arrived, and became this document.
        case complete(document: String)
        case gone
    }

    /// Waits before resuming: half a second, doubling to 8 s while failures follow each other.
    private func resume(after error: any Error, failures: Int) async throws {
        guard failures <= retries else { throw error }
        let pause = min(8.0, 0.5 * pow(2, Double(failures - 1)))
        note("\(error); resuming in \(pause) s")
        try await Task.sleep(for: .seconds(pause))
    }

    /// Where upload `location` stands, asked until the server answers.
    private func remaining(_ location: String) async throws -> Remaining {
        var failures = 0
        while true {
            do {
                var request = self.request(location, method: .HEAD)
                request.headers.add(name: "Upload-Draft-Interop-Version", value: "6")
                let response = try await http.execute(request, timeout: .seconds(60))
                let status = Int(response.status.code)
                if status == 404 || status == 410 { return .gone }
                guard (200..<300).contains(status), let offset = response.headers.first(name: "Upload-Offset").flatMap(Int.init) else {
                    throw Refusal(status: status, body: "")
                }
                if response.headers.first(name: "Upload-Complete") == "?1" {
                    return response.headers.first(name: "DocPreview-Document-ID").map { .complete(document: $0) } ?? .gone
                }
                return .open(at: offset, appendLimit: Self.appendLimit(response.headers))
            } catch let refusal as Refusal where refusal.status < 500 && refusal.status != 429 {
                throw refusal
            } catch {
                failures += 1
                try await resume(after: error, failures: failures)
            }
        }
    }

    /// Document `id` as the server describes it (what a completed upload became).
    private func document(_ id: String) async throws -> [String: Any] {
        let response = try await http.execute(request(server + "/v1/documents/" + id, method: .GET), timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .ok, let json = (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] else {
            throw Refusal(status: Int(response.status.code), body: String(buffer: body))
        }
        return json
    }

    private func create(labels: [String: String], size: Int) async throws -> (location: String, appendLimit: Int?) {
        // Every character but the unreserved ones escaped: a `+` in a title stays a plus (the server reads form rules).
        var request = self.request(server + "/v1/uploads?" + QueryItems.encoded(labels.sorted { $0.key < $1.key }), method: .POST)
        request.headers.add(name: "Upload-Draft-Interop-Version", value: "6")
        request.headers.add(name: "Upload-Complete", value: "?0")
        request.headers.add(name: "Upload-Length", value: "\(size)")
        let response = try await http.execute(request, timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .created, let location = response.headers.first(name: "Location") else {
            throw Refusal(status: Int(response.status.code), body: String(buffer: body))
        }
        return (try sameOrigin(location), Self.appendLimit(response.headers))
    }

    /// Sends `length` bytes of `file` from `offset`; the offset the server then has, or its final answer.
    private func append(_ file: URL, to location: String, offset: Int, length: Int, ends: Bool) async throws -> (offset: Int?, json: [String: Any]) {
        var request = self.request(location, method: .PATCH)
        request.headers.add(name: "Upload-Draft-Interop-Version", value: "6")
        request.headers.add(name: "Upload-Complete", value: ends ? "?1" : "?0")
        request.headers.add(name: "Upload-Offset", value: "\(offset)")
        request.headers.add(name: "Content-Type", value: "application/partial-upload")
        request.body = .stream(FileRegion(url: file, offset: offset, length: length, offload: offload), length: .known(Int64(length)))
        let response = try await http.execute(request, timeout: .hours(1))
        let body = try await response.body.collect(upTo: 1 << 20)
        guard (200..<300).contains(response.status.code) else { throw Refusal(status: Int(response.status.code), body: String(buffer: body)) }
        let json = (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] ?? [:]
        return (response.headers.first(name: "Upload-Offset").flatMap(Int.init), json)
    }

    /// A request to `url`, with the token only when `url` is on the server's origin.
    private func request(_ url: String, method: HTTPMethod) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let token, Self.origin(url) == Self.origin(server) { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        return request
    }

    /// `max-append-size` of an `Upload-Limit`.
    private static func appendLimit(_ headers: HTTPHeaders) -> Int? {
        headers.first(name: "Upload-Limit")?.split(separator: ",").lazy
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.hasPrefix("max-append-size=") }
            .flatMap { Int($0.dropFirst("max-append-size=".count)) }
    }

    /// Where the URL of an unfinished upload of `file` to `server` is kept: one file per file
    /// (its path, size and time of change) and server, under the user's cache folder.
    static func state(for file: URL, size: Int, server: String) -> URL {
        let changed = (try? file.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate?.timeIntervalSince1970) ?? 0
        let key = SHA256.hash(data: Data("\(server)\n\(file.standardizedFileURL.path)\n\(size)\n\(changed)".utf8))
            .prefix(16).map { String(format: "%02x", $0) }.joined()
        let environment = ProcessInfo.processInfo.environment
        let cache =
            environment["XDG_CACHE_HOME"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache")
        return cache.appendingPathComponent("docpreview/uploads/\(key)")
    }
}

/// `length` bytes of a file from `offset`, read a chunk at a time (`pread`) on the reads lane as the
/// request takes them.
struct FileRegion: AsyncSequence {
    typealias Element = ByteBuffer
    let url: URL
    let offset: Int
    let length: Int
    let offload: Offload

    func makeAsyncIterator() -> Iterator {
        Iterator(region: self)
    }

    struct Iterator: AsyncIteratorProtocol {
        let region: FileRegion
        var sent = 0
        var source: SourceFile?

        mutating func next() async throws -> ByteBuffer? {
            guard sent < region.length else { return nil }
            if source == nil { source = try SourceFile(region.url, followLinks: true) }
            let (file, at, wanted) = (source!, region.offset + sent, Swift.min(256 * 1024, region.length - sent))
            let chunk = try await region.offload.run(.reads) { file.read(at: at, count: wanted) }
            // The file shrank under the upload.
            guard !chunk.isEmpty else { throw POSIXError(.EIO) }
            sent += chunk.count
            return ByteBuffer(bytes: chunk)
        }
    }
}
