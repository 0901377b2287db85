import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import PreviewCore

/// A link fetched by us (async-http-client), through the fetch child's ``AddressCheckingProxy``:
/// redirects followed (10 at most, each a request the proxy checks), the body streamed to the
/// workspace and cut off past the size limit.
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

    func run() async throws(FetchFailure) -> Result {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .follow(max: 10, allowCycles: false))
        configuration.proxy = .server(host: "127.0.0.1", port: proxyPort)
        configuration.timeout = .init(connect: .seconds(20), read: .seconds(60))
        configuration.decompression = .disabled
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let result: Swift.Result<Result, FetchFailure>
        do throws(FetchFailure) {
            result = .success(try await fetch(with: client))
        } catch {
            result = .failure(error)
        }
        try? await client.shutdown()
        return try result.get()
    }

    private func fetch(with client: HTTPClient) async throws(FetchFailure) -> Result {
        do {
            var request = HTTPClientRequest(url: order.url)
            request.headers.add(name: "User-Agent", value: "DocPreview/1 (link download)")
            request.headers.add(name: "Accept", value: "video/*, */*;q=0.5")
            let response = try await client.execute(request, timeout: .seconds(Int64(order.seconds)))
            if let refusal = response.headers.first(name: AddressCheckingProxy.refusalHeader), response.status == .forbidden {
                throw FetchFailure.privateAddress(refusal)
            }
            guard response.status.code < 300 else { throw FetchFailure.status(Int(response.status.code)) }
            let type = response.headers.first(name: "Content-Type")?.lowercased() ?? ""
            if type.hasPrefix("text/html") || type.hasPrefix("application/xhtml") { return .page }
            if let length = response.headers.first(name: "Content-Length").flatMap(Int.init), length > order.maxBytes {
                throw FetchFailure.tooLarge(order.maxBytes)
            }
            let file = URL(fileURLWithPath: order.workspace).appendingPathComponent("download")
            guard FileManager.default.createFile(atPath: file.path, contents: nil), let handle = FileHandle(forWritingAtPath: file.path) else {
                throw FetchFailure.transient(.internal, "The download could not be written.")
            }
            defer { try? handle.close() }
            var written = 0
            for try await chunk in response.body {
                written += chunk.readableBytes
                guard written <= order.maxBytes else { throw FetchFailure.tooLarge(order.maxBytes) }
                try handle.write(contentsOf: Data(chunk.readableBytesView))
            }
            return .file(file, title: Self.title(of: response.url ?? URL(string: order.url)))
        } catch let failure as FetchFailure {
            throw failure
        } catch {
            throw classify(error)
        }
    }

    /// What an error of the client means: a refusal of the proxy, a site that did not answer, a
    /// redirect loop, the time limit.
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
