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

    /// What the link gave.
    enum Result {
        /// Media (or anything that is not a web page): the file written, and a title from the link's name.
        case file(URL, title: String)
        /// A web page: the extractor looks for a video in it.
        case page
    }

    func run() throws(FetchFailure) -> Result {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .follow(max: 10, allowCycles: false))
        configuration.proxy = .server(host: "127.0.0.1", port: proxyPort)
        configuration.timeout = .init(connect: .seconds(20), read: .seconds(60))
        configuration.decompression = .disabled
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        defer { try? client.syncShutdown() }
        let file = URL(fileURLWithPath: order.workspace).appendingPathComponent("download")
        guard FileManager.default.createFile(atPath: file.path, contents: nil), let handle = FileHandle(forWritingAtPath: file.path) else {
            throw .transient(.internal, "The download could not be written.")
        }
        defer { try? handle.close() }
        let download = BoundedDownload(handle: handle, maxBytes: order.maxBytes)
        do {
            var request = try HTTPClient.Request(url: order.url)
            request.headers.add(name: "User-Agent", value: "DocPreview/1 (link download)")
            request.headers.add(name: "Accept", value: "video/*, */*;q=0.5")
            // Waited on, not awaited: this runs in the fetch child (`FetchChild`), a process of its own
            // with one download to do, no event loop of ours and no cooperative pool to hold.
            let outcome = try client.execute(request: request, delegate: download, deadline: .now() + .seconds(Int64(order.seconds))).wait()
            switch outcome {
            case .media: return .file(file, title: Self.title(of: download.lastURL ?? URL(string: order.url)))
            case .page: return .page
            case let .status(status, refusal):
                if let refusal { throw FetchFailure.privateAddress(refusal) }
                throw FetchFailure.status(status)
            }
        } catch let failure as FetchFailure {
            throw failure
        } catch is BoundedDownload.TooLarge {
            throw .tooLarge(order.maxBytes)
        } catch {
            throw classify(error)
        }
    }

    /// What an error of the client means: a site that did not answer, a redirect loop, the time limit.
    private func classify(_ error: any Error) -> FetchFailure {
        if let error = error as? HTTPClientError {
            switch error {
            case .redirectLimitReached, .redirectCycleDetected:
                return .permanent(.linkFailed, "The link redirects too many times.")
            case .deadlineExceeded, .readTimeout, .connectTimeout:
                return .transient(.timeout, "The site took longer than \(Int(order.seconds)) s.")
            case .invalidProxyResponse:
                return .transient(.linkFailed, "The site could not be reached.")
            default:
                break
            }
        }
        if (error as NSError).code == Int(EFBIG) { return .tooLarge(order.maxBytes) }
        return .transient(.linkFailed, "The site could not be reached (\(String(describing: error).prefix(200))).")
    }

    /// A title from the link: its last path component without extension, else its host.
    static func title(of url: URL?) -> String {
        let name = url?.deletingPathExtension().lastPathComponent ?? ""
        return name.isEmpty || name == "/" ? (url?.host ?? "Video") : name
    }
}

/// Writes a response's body to a file, up to `maxBytes` (more fails the request with ``TooLarge``);
/// a page or an error status is read and dropped, within the same bound. Its callbacks come one at a
/// time on the request's event loop.
private final class BoundedDownload: HTTPClientResponseDelegate, @unchecked Sendable {
    enum Outcome {
        case media, page
        /// An error status, and the proxy's refusal when it refused the address.
        case status(Int, refusal: String?)
    }

    struct TooLarge: Error {}

    let handle: FileHandle
    let maxBytes: Int
    private var outcome = Outcome.media
    private var received = 0
    /// The last URL requested (the link, or where its redirects ended).
    private(set) var lastURL: URL?

    init(handle: FileHandle, maxBytes: Int) {
        self.handle = handle
        self.maxBytes = maxBytes
    }

    func didVisitURL(task: HTTPClient.Task<Outcome>, _ request: HTTPClient.Request, _ head: HTTPResponseHead) {
        lastURL = request.url
    }

    func didReceiveHead(task: HTTPClient.Task<Outcome>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        let type = head.headers.first(name: "Content-Type")?.lowercased() ?? ""
        if head.status.code >= 300 {
            outcome = .status(
                Int(head.status.code), refusal: head.status == .forbidden ? head.headers.first(name: AddressCheckingProxy.refusalHeader) : nil)
        } else if type.hasPrefix("text/html") || type.hasPrefix("application/xhtml") {
            outcome = .page
        } else if let length = head.headers.first(name: "Content-Length").flatMap(Int.init), length > maxBytes {
            return task.eventLoop.makeFailedFuture(TooLarge())
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Outcome>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        received += buffer.readableBytes
        guard received <= maxBytes else { return task.eventLoop.makeFailedFuture(TooLarge()) }
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
