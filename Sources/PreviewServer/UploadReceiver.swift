import Foundation
import Hummingbird
import MultipartKit
import NIOCore
import PreviewCore
import PreviewStore

/// Reads an upload body into a ``BlobWriter`` as it streams: raw bytes, or `multipart/form-data`
/// with the file in part `file` and small text fields beside it. Never holds the file in memory.
///
/// Every body is bounded as it streams, whatever its framing (length or chunked): the file by the
/// size limit, the whole body by that plus ``maxFormOverhead``, the time by its ``UploadPace``; a form by
/// its number of parts and by how much may arrive without completing a header or a part's data
/// (a huge header, an endless preamble or epilogue), so nothing grows with what a client sends.
struct UploadReceiver {
    /// Form fields (type, filename, owner, title, description, school), and the file part's own file name.
    var fields: [String: String] = [:]
    var fileName: String?
    /// The form's own fields, without the query's (a CSRF token is read from here, never from a URL).
    var formFields: [String: String] = [:]
    /// The body's deadline, pace and slot.
    var pace: UploadPace

    /// The fields an upload's labels come from, in its form, its query or tus's `Upload-Metadata`.
    static let labelFields = ["type", "filename", "owner", "title", "description", "school"]

    /// A form's parts: the file and its few fields, with room to spare.
    static let maxParts = 16
    /// The longest form field: a description's 2,000 characters of up to four bytes each, with room.
    static let maxFieldBytes = 16 * 1024
    /// Bytes a form may send without a header, a field or file data completing: bounds one part's
    /// headers, and the preamble and epilogue.
    static let maxQuietBytes = 16 * 1024
    /// Bytes a form may add to its file: boundaries, headers, fields.
    static let maxFormOverhead = 256 * 1024
    /// The parser is fed at most this much at a time, so the bounds above hold whatever size the
    /// buffers arrive in.
    private static let sliceBytes = 8 * 1024

    init(pace: UploadPace) {
        self.pace = pace
    }

    /// Streams `body` into `writer`, stopping with 413 once more than `limit` bytes arrive.
    mutating func receive(_ body: RequestBody, contentType: String?, into writer: BlobWriter, limit: Int) async throws {
        if let contentType, contentType.lowercased().hasPrefix("multipart/form-data") {
            guard let boundary = Self.boundary(contentType) else { throw APIError.badRequest("multipart upload without a boundary") }
            let multipart = MultipartState(writer: writer, limit: limit)
            let parser = MultipartParser(boundary: boundary)
            var guardian = MultipartHeaderGuard(boundary: boundary)
            parser.onHeader = { name, value in multipart.header(name, value) }
            parser.onBody = { buffer in multipart.body(&buffer) }
            parser.onPartComplete = { multipart.partComplete() }
            var received = 0
            for try await var buffer in body {
                try pace.count(buffer.readableBytes)
                received += buffer.readableBytes
                if received > limit + Self.maxFormOverhead { throw Self.tooLarge(limit) }
                while let slice = buffer.readSlice(length: min(buffer.readableBytes, Self.sliceBytes)), slice.readableBytes > 0 {
                    multipart.quietBytes += slice.readableBytes
                    guard guardian.admits(slice), (try? parser.execute(slice)) != nil else {
                        throw APIError.badRequest("malformed multipart body")
                    }
                    if let failure = multipart.failure { throw failure }
                    if multipart.quietBytes > Self.maxQuietBytes {
                        throw APIError.badRequest("multipart headers, preamble or epilogue longer than \(Self.maxQuietBytes / 1024) KiB")
                    }
                }
            }
            if let failure = multipart.failure { throw failure }
            guard multipart.sawFile else { throw APIError.badRequest("multipart upload needs a part named \"file\"") }
            formFields = multipart.fields
            fields.merge(multipart.fields) { query, _ in query }
            fileName = multipart.fileName
        } else {
            for try await buffer in body {
                try pace.count(buffer.readableBytes)
                try writer.write(buffer.readableBytesView)
                if writer.size > limit { throw Self.tooLarge(limit) }
            }
        }
    }

    static func tooLarge(_ limit: Int) -> APIError {
        APIError(.fileTooLarge, "File exceeds \(Limits.describe(byteCount: limit)) limit.")
    }

    static func boundary(_ contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == "boundary" else { continue }
            // RFC 2046: 1 to 70 characters (MultipartKit's parser traps on an empty one).
            let boundary = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            return (1...70).contains(boundary.utf8.count) ? boundary : nil
        }
        return nil
    }

    /// `name="file"; filename="a.pdf"` parameters of a Content-Disposition header.
    static func dispositionParameters(_ value: String) -> [String: String] {
        var parameters: [String: String] = [:]
        for part in value.split(separator: ";").dropFirst() {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2 { parameters[pair[0].lowercased()] = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        }
        return parameters
    }
}

/// The multipart parser's callbacks cannot throw; this records the parts and the first failure.
private final class MultipartState {
    let writer: BlobWriter
    let limit: Int
    var fields: [String: String] = [:]
    var fileName: String?
    var sawFile = false
    var failure: (any Error)?
    /// Bytes fed since the parser last completed something (a header, file data, a part).
    var quietBytes = 0
    private var parts = 0
    private var partName: String?
    private var partFileName: String?
    private var fieldBytes: [UInt8] = []

    init(writer: BlobWriter, limit: Int) {
        self.writer = writer
        self.limit = limit
    }

    func header(_ name: String, _ value: String) {
        quietBytes = 0
        guard name.lowercased() == "content-disposition" else { return }
        let parameters = UploadReceiver.dispositionParameters(value)
        partName = parameters["name"]
        partFileName = parameters["filename"]
    }

    func body(_ buffer: inout ByteBuffer) {
        quietBytes = 0
        guard failure == nil else { return }
        if partName == "file" {
            if sawFile && fileName != partFileName { failure = APIError.badRequest("only one file per upload"); return }
            sawFile = true
            fileName = partFileName
            do {
                try writer.write(buffer.readableBytesView)
                if writer.size > limit { failure = UploadReceiver.tooLarge(limit) }
            } catch {
                failure = error
            }
        } else if partName != nil {
            fieldBytes += buffer.readableBytesView
            if fieldBytes.count > UploadReceiver.maxFieldBytes { failure = APIError.badRequest("form field too long") }
        }
    }

    func partComplete() {
        quietBytes = 0
        parts += 1
        if parts > UploadReceiver.maxParts { failure = APIError.badRequest("more than \(UploadReceiver.maxParts) parts in one upload") }
        if let partName, partName != "file" { fields[partName] = String(decoding: fieldBytes, as: UTF8.self) }
        partName = nil
        partFileName = nil
        fieldBytes = []
    }
}
