import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import PreviewCore
import PreviewStore

/// Byte ranges of one object, each one GET.
struct ObjectRangeReader: BlobRangeReader {
    let client: S3Client
    let key: String

    func open(_ range: ClosedRange<Int>) async throws -> BlobByteStream {
        let body: HTTPClientResponse.Body
        do {
            body = try await client.stream(key: key, range: range)
        } catch let error as S3Error where error.isMissing {
            throw missing
        }
        let chunks = Chunks(body.makeAsyncIterator())
        return BlobByteStream { try await chunks.next() }
    }

    /// The error of this object's absence: its blob's hash is the key's last part.
    private var missing: BlobMissing { BlobMissing(String(key.split(separator: "/").last ?? "")) }

    func storedSize() async throws -> Int {
        let head: S3Client.Response
        do {
            head = try await client.send(.HEAD, key: key, operation: "reading the size of \(key)")
        } catch let error as S3Error where error.isMissing {
            throw missing
        }
        guard let size = head.headers.first(name: "content-length").flatMap(Int.init) else {
            throw S3Error.refused(status: head.status, code: "NoContentLength", message: "", operation: "reading the size of \(key)")
        }
        return size
    }

    /// The response body's iterator, advanced by the one task that reads the stream.
    private final class Chunks: @unchecked Sendable {  // `iterator` is used by one task at a time, in turn
        private var iterator: HTTPClientResponse.Body.AsyncIterator

        init(_ iterator: HTTPClientResponse.Body.AsyncIterator) {
            self.iterator = iterator
        }

        func next() async throws -> [UInt8]? {
            try await iterator.next().map { Array($0.readableBytesView) }
        }
    }
}
