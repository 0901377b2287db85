import Hummingbird
import Logging
import NIOCore
import PreviewCore
import PreviewStore

/// How ``ContentController`` writes a blob's checked bytes (``CheckedBlobBytes``) to a client.
extension ContentController {
    /// `stream`'s `length` bytes as a response body: the next chunk is asked for only once `channel`
    /// has written all but a few of those before it (a client that stops reading holds those until
    /// the write timeout closes its connection). A stream that ends in an error (the blob found
    /// damaged as it went, the object store cut short) aborts the response, logged and counted.
    static func body(_ stream: BlobByteStream, length: Int, channel: (any Channel)?, logger: Logger) -> ResponseBody {
        ResponseBody(contentLength: length) { writer in
            let stall = await WriteStall.of(channel)
            let writesBefore = stall?.writesCompleted ?? 0
            var chunks = 0
            do {
                while true {
                    if let stall, await !stall.waitForRoom(since: writesBefore, chunksSent: chunks) { throw CancellationError() }
                    guard let chunk = try await stream.next() else { break }
                    chunks += 1
                    try await writer.write(ByteBuffer(bytes: chunk))
                }
            } catch let notIntact as BlobNotIntact {
                logger.error("a stored original is damaged; its download was aborted", metadata: ["preview.sha256": "\(notIntact.hash)"])
                ServiceMetrics.damagedBlobs(kind: "original", problem: "damaged")
                throw PreviewError(.storeDamaged, "The stored file is damaged.")
            } catch let error as PreviewError where error.code == .unavailable {
                logger.error("the object store sent fewer bytes than asked", metadata: ["preview.error": "\(error)"])
                throw error
            }
            try await writer.finish(nil)
        }
    }
}
