import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import PreviewCore

/// A link fetched by us (async-http-client), through the fetch child's ``AddressCheckingProxy``:
/// redirects followed (10 at most, each a request the proxy checks), the body streamed to the
/// workspace and cut off past the size limit. Blocking, on the calling thread: the fetch child
/// starts no Swift tasks, so libdispatch's worker monitor, which reads `/proc/TID/stat` and
/// crashes where Landlock closes it, never runs.
struct DirectFetch {
    let order: FetchOrder
    let proxyPort: Int
    /// Where the proxy's refusals cancel the request running (a card's picture and oEmbed answer).
    var refusals: ProxyRefusals?

    /// What the link gave.
    enum Result {
        /// Media (or anything that is not a web page): the file written, and a title from the link's name.
        case file(URL, title: String)
        /// A web page: the extractor looks for a video in it.
        case page
    }

    func run() throws(FetchFailure) -> Result {
        let file = URL(fileURLWithPath: order.workspace).appendingPathComponent("download")
        let response = try get(order.url, accept: "video/*, */*;q=0.5", to: file, maxBytes: order.maxBytes)
        guard response.isPage else { return .file(file, title: Self.title(of: response.finalURL ?? URL(string: order.url))) }
        return .page
    }

    /// What a GET of `url` gave: a page's first bytes (at most `keptPageBytes`), or anything else
    /// written to `file`, and where redirects ended.
    struct Response {
        var isPage: Bool
        var page: [UInt8]
        var contentType: String
        var finalURL: URL?
    }

    /// GETs `url` (redirects followed): a web page's body is kept in memory up to `keptPageBytes`
    /// (more is ``FetchFailure/tooLarge(_:what:)``, as any body past `maxBytes`); anything else goes to
    /// `file`. An error status, a refused address, the time limit are failures.
    func get(
        _ url: String, accept: String, to file: URL, maxBytes: Int, keptPageBytes: Int = 0, seconds: Double? = nil, what: String = "video"
    ) throws(FetchFailure) -> Response {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .follow(max: 10, allowCycles: false))
        configuration.proxy = .server(host: "127.0.0.1", port: proxyPort)
        configuration.timeout = .init(connect: .seconds(20), read: .seconds(60))
        configuration.decompression = .disabled
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        defer { try? client.syncShutdown() }
        guard FileManager.default.createFile(atPath: file.path, contents: nil), let handle = FileHandle(forWritingAtPath: file.path) else {
            throw .transient(.internal, "The download could not be written.")
        }
        defer { try? handle.close() }
        let download = BoundedDownload(handle: handle, maxBytes: maxBytes, keptPageBytes: keptPageBytes)
        let seconds = seconds ?? order.seconds
        do {
            var request = try HTTPClient.Request(url: url)
            request.headers.add(name: "User-Agent", value: "DocPreview/1 (link download)")
            request.headers.add(name: "Accept", value: accept)
            // Waited on, not awaited: this runs in the fetch child (`FetchChild`), a process of its own
            // with one download to do, no event loop of ours and no cooperative pool to hold.
            let task = client.execute(request: request, delegate: download, deadline: .now() + .milliseconds(Int64(seconds * 1000)))
            refusals?.track { task.cancel() }
            let outcome: BoundedDownload.Outcome
            do {
                outcome = try task.wait()
            } catch {
                if let refusal = refusals?.untrack() { throw FetchFailure.privateAddress(refusal) }
                throw error
            }
            _ = refusals?.untrack()
            switch outcome {
            case .media, .page:
                return Response(
                    isPage: outcome == .page, page: download.page, contentType: download.contentType, finalURL: download.lastURL ?? URL(string: url))
            case let .status(status, refusal):
                if let refusal { throw FetchFailure.privateAddress(refusal) }
                throw FetchFailure.status(status)
            }
        } catch let failure as FetchFailure {
            throw failure
        } catch is BoundedDownload.TooLarge {
            throw download.sawPage ? .tooLarge(keptPageBytes, what: "page") : .tooLarge(maxBytes, what: what)
        } catch {
            throw classify(error, seconds: seconds, maxBytes: maxBytes, what: what)
        }
    }

    /// What an error of the client means: a site that did not answer, a redirect loop, the time limit.
    private func classify(_ error: any Error, seconds: Double, maxBytes: Int, what: String) -> FetchFailure {
        if let error = error as? HTTPClientError {
            switch error {
            case .redirectLimitReached, .redirectCycleDetected:
                return .permanent(.linkFailed, "The link redirects too many times.")
            case .deadlineExceeded, .readTimeout, .connectTimeout:
                return .transient(.timeout, "The site took longer than \(Int(seconds)) s.")
            case .invalidProxyResponse:
                return .transient(.linkFailed, "The site could not be reached.")
            default:
                break
            }
        }
        if (error as NSError).code == Int(EFBIG) { return .tooLarge(maxBytes, what: what) }
        return .transient(.linkFailed, "The site could not be reached (\(String(describing: error).prefix(200))).")
    }

    /// A title from the link: its last path component without extension, else its host.
    static func title(of url: URL?) -> String {
        let name = url?.deletingPathExtension().lastPathComponent ?? ""
        return name.isEmpty || name == "/" ? (url?.host ?? "Video") : name
    }
}

/// Writes a response's body to a file, up to `maxBytes` (more fails the request with ``TooLarge``);
/// a page is kept in memory up to `keptPageBytes` (more fails it too) and an error status is read
/// and dropped, within `maxBytes`. Its callbacks come one at a time on the request's event loop.
private final class BoundedDownload: HTTPClientResponseDelegate, @unchecked Sendable {
    enum Outcome: Equatable {
        case media, page
        /// An error status, and the proxy's refusal when it refused the address.
        case status(Int, refusal: String?)
    }

    struct TooLarge: Error {}

    let handle: FileHandle
    let maxBytes: Int
    let keptPageBytes: Int
    private var outcome = Outcome.media
    private var received = 0
    /// The last URL requested (the link, or where its redirects ended).
    private(set) var lastURL: URL?
    private(set) var page: [UInt8] = []
    private(set) var contentType = ""
    /// Whether the answer was a page (and so bounded by `keptPageBytes`).
    var sawPage: Bool { outcome == .page && keptPageBytes > 0 }

    init(handle: FileHandle, maxBytes: Int, keptPageBytes: Int) {
        self.handle = handle
        self.maxBytes = maxBytes
        self.keptPageBytes = keptPageBytes
    }

    func didVisitURL(task: HTTPClient.Task<Outcome>, _ request: HTTPClient.Request, _ head: HTTPResponseHead) {
        lastURL = request.url
    }

    func didReceiveHead(task: HTTPClient.Task<Outcome>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        let type = head.headers.first(name: "Content-Type")?.lowercased() ?? ""
        contentType = type
        if head.status.code >= 300 {
            outcome = .status(
                Int(head.status.code), refusal: head.status == .forbidden ? head.headers.first(name: AddressCheckingProxy.refusalHeader) : nil)
        } else if type.hasPrefix("text/html") || type.hasPrefix("application/xhtml") {
            outcome = .page
            if keptPageBytes > 0, let length = head.headers.first(name: "Content-Length").flatMap(Int.init), length > keptPageBytes {
                return task.eventLoop.makeFailedFuture(TooLarge())
            }
        } else if let length = head.headers.first(name: "Content-Length").flatMap(Int.init), length > maxBytes {
            return task.eventLoop.makeFailedFuture(TooLarge())
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Outcome>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        received += buffer.readableBytes
        guard received <= (sawPage ? keptPageBytes : maxBytes) else { return task.eventLoop.makeFailedFuture(TooLarge()) }
        if sawPage { page += buffer.readableBytesView }
        guard case .media = outcome else { return task.eventLoop.makeSucceededVoidFuture() }
        do {
            try handle.write(contentsOf: Data(buffer.readableBytesView))
        } catch {
            return task.eventLoop.makeFailedFuture(error)
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<Outcome>) throws -> Outcome { outcome }
}
