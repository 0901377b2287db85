import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
import PreviewCore
import Synchronization

/// Signed requests to one bucket, awaited: no thread is held while a request runs on NIO's event
/// loops. Uploads stream from a file, read on a thread of `offload`'s reads lane one chunk at a
/// time as the connection takes them; downloads stream into a file. No call is retried here: a
/// refusal is reported as it is, an outage as ``StoreFault/unavailable`` (the callers back off).
final class S3Client: Sendable {
    let location: S3Location
    let signer: SigV4Signer
    private let offload: Offload
    private let http: HTTPClient
    /// For bytes passed on to a client as it reads them: a reader that pauses (a player whose buffer
    /// is full) must not time the transfer out; the server's write timeout bounds a client that stops.
    private let streaming: HTTPClient
    private let logger: Logger
    /// The requests of ``send`` and ``download`` in flight: one per connection of the pool, so a
    /// burst of callers waits its turn here, suspended and for as long as it takes, never in the
    /// pool's own queue, which gives up after the connect timeout.
    private let inFlight = AsyncGate(width: connections)
    /// Connections kept to the object store for the store's own requests.
    static let connections = 16
    /// Requests made, by method: what tests count.
    private let made = Mutex<[String: Int]>([:])
    static let chunkBytes = 1 << 20

    init(location: S3Location, credentials: S3Credentials, offload: Offload, logger: Logger) throws {
        self.location = location
        self.offload = offload
        signer = SigV4Signer(credentials: credentials, region: location.region)
        self.logger = logger
        var tls = TLSConfiguration.makeClientConfiguration()
        if let file = location.trustedCertificates {
            do {
                tls.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMFile(file))]
            } catch {
                throw S3Error.configuration("The certificates in \(file) cannot be read: \(error)")
            }
        }
        func client(read: TimeAmount) -> HTTPClient {
            var configuration = HTTPClient.Configuration(
                tlsConfiguration: tls, redirectConfiguration: .disallow,
                timeout: .init(connect: .seconds(5), read: read), decompression: .disabled)
            configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: Self.connections)
            return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        }
        http = client(read: .seconds(60))
        streaming = client(read: .minutes(10))
    }

    deinit {
        http.shutdown().whenComplete { _ in }
        streaming.shutdown().whenComplete { _ in }
    }

    /// How many requests of `method` this client made.
    func requests(_ method: String) -> Int { made.withLock { $0[method, default: 0] } }

    /// A request's body: none, bytes in memory, or `length` bytes of the file at `path` from
    /// `offset` whose SHA-256 is `sha256` (they are signed).
    enum Body {
        case empty
        case bytes([UInt8])
        case file(path: String, offset: Int, length: Int, sha256: String)
    }

    struct Response {
        var status: Int
        var headers: HTTPHeaders
        var body: [UInt8]
    }

    /// Sends one signed request for `key` (nil: the bucket) and waits for the whole answer (kept in
    /// memory: only small ones are asked this way). A status outside `accepting` throws
    /// ``S3Error/refused(status:code:message:operation:)`` with the server's error code; no answer
    /// within `deadline` is ``S3Error/unreachable(_:)``.
    func send(
        _ method: HTTPMethod, key: String?, query: [(name: String, value: String)] = [], headers extra: [String: String] = [:],
        body: Body = .empty, accepting: Set<Int> = [200], deadline: TimeAmount = .minutes(10), operation: String
    ) async throws -> Response {
        try await inFlight.inside {
            try await sendNow(
                method, key: key, query: query, headers: extra, body: body, accepting: accepting, deadline: deadline, operation: operation)
        }
    }

    /// ``send(_:key:query:headers:body:accepting:operation:)`` with a place among the requests in flight.
    private func sendNow(
        _ method: HTTPMethod, key: String?, query: [(name: String, value: String)], headers extra: [String: String],
        body: Body, accepting: Set<Int>, deadline: TimeAmount, operation: String
    ) async throws -> Response {
        let payloadHash: String
        switch body {
        case .empty: payloadHash = SigV4Signer.emptyPayloadHash
        case let .bytes(bytes): payloadHash = SHA256.hash(data: bytes).hex
        case let .file(_, _, _, sha256): payloadHash = sha256
        }
        var request = try signedRequest(method, key: key, query: query, headers: extra, payloadHash: payloadHash)
        // A file body is read a chunk at a time, as the connection takes them.
        var upload: (writer: EventLoopPromise<HTTPClient.Body.StreamWriter>, sent: EventLoopPromise<Void>)?
        switch body {
        case .empty: break
        case let .bytes(bytes): request.body = .bytes(bytes)
        case let .file(path, offset, length, _) where length <= Self.chunkBytes:
            // One chunk goes whole, read first: a server that answers before reading a body that is
            // still streaming (moto's 412 to a put over an existing object) closes the connection under it.
            request.body = .byteBuffer(
                try await offload.run(.reads) {
                    let file = open(path, O_RDONLY | O_CLOEXEC)
                    guard file >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                    defer { close(file) }
                    return try Self.chunk(of: file, at: offset, count: length)
                })
        case let .file(_, _, length, _):
            let loop = HTTPClient.defaultEventLoopGroup.any()
            let promises = (writer: loop.makePromise(of: HTTPClient.Body.StreamWriter.self), sent: loop.makePromise(of: Void.self))
            upload = promises
            request.body = .stream(contentLength: Int64(length)) { writer in
                promises.writer.succeed(writer)
                return promises.sent.futureResult
            }
        }
        let answer = http.execute(request: request, deadline: .now() + deadline, logger: logger)
        if let upload, case let .file(path, offset, length, _) = body {
            // An answer before the body was asked for (a refusal) ends the wait for a writer.
            answer.whenComplete { _ in upload.writer.fail(CancellationError()) }
            if let writer = try? await upload.writer.futureResult.get() {
                do {
                    try await stream(path: path, offset: offset, length: length, to: writer)
                    upload.sent.succeed(())
                } catch {
                    upload.sent.fail(error)
                }
            } else {
                upload.sent.succeed(())
            }
        }
        let response: HTTPClient.Response
        do {
            response = try await answer.get()
        } catch {
            throw unreachable(error, method: method.rawValue, operation: operation)
        }
        count(method, status: Int(response.status.code))
        let bytes = response.body.map { Array($0.readableBytesView) } ?? []
        let status = Int(response.status.code)
        guard accepting.contains(status) else { throw Self.refusal(status: status, body: bytes, operation: operation) }
        return Response(status: status, headers: response.headers, body: bytes)
    }

    /// Writes the body of a GET of `key` (bytes `range`, or all) into the file at `path`, created
    /// owner-only; returns the status and headers. A refusal leaves no file.
    func download(key: String, to path: String, range: ClosedRange<Int>? = nil, operation: String) async throws -> (status: Int, headers: HTTPHeaders)
    {
        try await inFlight.inside { try await downloadNow(key: key, to: path, range: range, operation: operation) }
    }

    /// ``download(key:to:range:operation:)`` with a place among the requests in flight.
    private func downloadNow(key: String, to path: String, range: ClosedRange<Int>?, operation: String) async throws -> (
        status: Int, headers: HTTPHeaders
    ) {
        var extra: [String: String] = [:]
        if let range { extra["range"] = "bytes=\(range.lowerBound)-\(range.upperBound)" }
        let request = try signedRequest(.GET, key: key, headers: extra, payloadHash: SigV4Signer.emptyPayloadHash)
        let head = Mutex<HTTPResponseHead?>(nil)
        let delegate = try FileDownloadDelegate(path: path, reportHead: { _, received in head.withLock { $0 = received } })
        do {
            _ = try await http.execute(request: request, delegate: delegate, deadline: .now() + .minutes(30), logger: logger).get()
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            throw unreachable(error, method: "GET", operation: operation)
        }
        guard let received = head.withLock({ $0 }) else {
            try? FileManager.default.removeItem(atPath: path)
            throw S3Error.unreachable("The object store gave no answer (\(operation)).")
        }
        let status = Int(received.status.code)
        count("GET", status: status)
        guard status == 200 || status == 206 else {
            let body = (try? Data(contentsOf: URL(fileURLWithPath: path))).map { Array($0) } ?? []
            try? FileManager.default.removeItem(atPath: path)
            throw Self.refusal(status: status, body: body, operation: operation)
        }
        return (status, received.headers)
    }

    /// A GET of bytes `range` of `key` whose body arrives as the caller reads it: one request,
    /// however the caller paces it.
    func stream(key: String, range: ClosedRange<Int>) async throws -> HTTPClientResponse.Body {
        let signed = try signedRequest(
            .GET, key: key, headers: ["range": "bytes=\(range.lowerBound)-\(range.upperBound)"],
            payloadHash: SigV4Signer.emptyPayloadHash)
        var request = HTTPClientRequest(url: signed.url.absoluteString)
        request.method = .GET
        request.headers = signed.headers
        let response: HTTPClientResponse
        do {
            response = try await streaming.execute(request, timeout: .seconds(60), logger: logger)
        } catch {
            throw unreachable(error, method: "GET", operation: "read")
        }
        count("GET", status: Int(response.status.code))
        guard response.status.code == 206 || response.status.code == 200 else {
            let body = try await response.body.collect(upTo: 64 * 1024)
            throw Self.refusal(status: Int(response.status.code), body: Array(body.readableBytesView), operation: "a ranged read of \(key)")
        }
        return response.body
    }

    private func signedRequest(
        _ method: HTTPMethod, key: String?, query: [(name: String, value: String)] = [], headers extra: [String: String],
        payloadHash: String
    ) throws -> HTTPClient.Request {
        let (host, path, url) = location.address(of: key)
        var signing = SigV4Signer.Request(method: method.rawValue, path: path, query: query, headers: ["host": host], payloadHash: payloadHash)
        for (name, value) in extra { signing.headers[name.lowercased()] = value }
        var headers = HTTPHeaders()
        for (name, value) in signing.headers { headers.add(name: name, value: value) }
        for (name, value) in signer.signedHeaders(for: signing, at: Date()) { headers.add(name: name, value: value) }
        let queryText =
            query.isEmpty ? "" : "?" + query.map { "\(SigV4Signer.encode($0.name))=\(SigV4Signer.encode($0.value))" }.joined(separator: "&")
        return try HTTPClient.Request(url: url + queryText, method: method, headers: headers)
    }

    /// Sends `length` bytes of the file at `path` from `offset` through `writer`, a chunk at a time,
    /// each read (on the reads lane) only once the one before was taken.
    private func stream(path: String, offset: Int, length: Int, to writer: HTTPClient.Body.StreamWriter) async throws {
        let file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(file) }
        var sent = 0
        while sent < length {
            let wanted = min(Self.chunkBytes, length - sent), at = offset + sent
            let buffer = try await offload.run(.reads) { try Self.chunk(of: file, at: at, count: wanted) }
            sent += buffer.readableBytes
            try await writer.write(.byteBuffer(buffer)).get()
        }
    }

    /// Up to `count` bytes of the open `file` from `offset` (at least one, else EIO).
    private static func chunk(of file: Int32, at offset: Int, count: Int) throws -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: count)
        let read = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { space in
            max(0, pread(file, space.baseAddress, min(space.count, count), off_t(offset)))
        }
        guard read > 0 else { throw POSIXError(.EIO) }
        return buffer
    }

    private func count(_ method: HTTPMethod, status: Int?) { count(method.rawValue, status: status) }

    private func count(_ method: String, status: Int?) {
        made.withLock { $0[method, default: 0] += 1 }
        ServiceMetrics.s3Requests(method: method, status: status.map(String.init) ?? "error")
    }

    /// The S3 error in `body` (`<Error><Code>…</Code><Message>…</Message>`), or one named after `status`.
    static func refusal(status: Int, body: [UInt8], operation: String) -> S3Error {
        let answer = XMLText(body)
        let fallback = [403: "AccessDenied", 404: "NotFound", 412: "PreconditionFailed", 503: "ServiceUnavailable"][status] ?? "HTTP\(status)"
        return .refused(status: status, code: answer.first("Code") ?? fallback, message: answer.first("Message") ?? "", operation: operation)
    }

    /// `response` unless its body is an S3 error: copies and multipart completions can fail after
    /// their `200` has gone out.
    static func checked(_ response: Response, operation: String) throws -> Response {
        guard XMLText(response.body).first("Code") == nil else { throw refusal(status: response.status, body: response.body, operation: operation) }
        return response
    }

    /// `error` of a request that got no answer, counted.
    private func unreachable(_ error: any Error, method: String, operation: String) -> S3Error {
        count(method, status: nil)
        return .unreachable("The object store at \(location.endpoint.absoluteString) cannot be reached (\(operation)): \(error)")
    }
}
