import Foundation
import Hummingbird
import MultipartKit
import NIOCore
import PreviewCore
import PreviewStore

/// Reads an upload body into a ``BlobWriter`` as it streams: raw bytes, or `multipart/form-data`
/// with the file in part `file` and small text fields beside it. Never holds the file in memory.
struct UploadReceiver {
    /// Form fields (type, filename, owner, title), and the file part's own file name.
    var fields: [String: String] = [:]
    var fileName: String?

    private static let maxFieldBytes = 4096

    /// Streams `body` into `writer`, stopping with 413 once more than `limit` bytes arrive.
    mutating func receive(_ body: RequestBody, contentType: String?, into writer: BlobWriter, limit: Int) async throws {
        if let contentType, contentType.lowercased().hasPrefix("multipart/form-data") {
            guard let boundary = Self.boundary(contentType) else { throw BadRequest(message: "multipart upload without a boundary") }
            let multipart = MultipartState(writer: writer, limit: limit)
            let parser = MultipartParser(boundary: boundary)
            parser.onHeader = { name, value in multipart.header(name, value) }
            parser.onBody = { buffer in multipart.body(&buffer) }
            parser.onPartComplete = { multipart.partComplete() }
            for try await buffer in body {
                do {
                    try parser.execute(buffer)
                } catch {
                    throw BadRequest(message: "malformed multipart body")
                }
                if let failure = multipart.failure { throw failure }
            }
            if let failure = multipart.failure { throw failure }
            guard multipart.sawFile else { throw BadRequest(message: "multipart upload needs a part named \"file\"") }
            fields.merge(multipart.fields) { query, _ in query }
            fileName = multipart.fileName
        } else {
            for try await buffer in body {
                try writer.write(buffer.readableBytesView)
                if writer.size > limit { throw Self.tooLarge(limit) }
            }
        }
    }

    static func tooLarge(_ limit: Int) -> ErrorResponse {
        ErrorResponse(.fileTooLarge, "File exceeds \(Limits.describe(byteCount: limit)) limit.")
    }

    static func boundary(_ contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == "boundary" { return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
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
    private var partName: String?
    private var partFileName: String?
    private var fieldBytes: [UInt8] = []

    init(writer: BlobWriter, limit: Int) {
        self.writer = writer
        self.limit = limit
    }

    func header(_ name: String, _ value: String) {
        guard name.lowercased() == "content-disposition" else { return }
        let parameters = UploadReceiver.dispositionParameters(value)
        partName = parameters["name"]
        partFileName = parameters["filename"]
    }

    func body(_ buffer: inout ByteBuffer) {
        guard failure == nil else { return }
        if partName == "file" {
            if sawFile && fileName != partFileName { failure = BadRequest(message: "only one file per upload"); return }
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
            if fieldBytes.count > 4096 { failure = BadRequest(message: "form field too long") }
        }
    }

    func partComplete() {
        if let partName, partName != "file" { fields[partName] = String(decoding: fieldBytes, as: UTF8.self) }
        partName = nil
        partFileName = nil
        fieldBytes = []
    }
}
