import Foundation
import HTTPTypes
import PreviewDocuments
import PreviewDomain

/// The IETF draft "Resumable Uploads for HTTP" as each interop version spells it. Apple's
/// URLSession sends version 3 (iOS 17: `Upload-Incomplete`) or 6 (iOS 18 and later:
/// `Upload-Complete`, appends as `application/partial-upload`); 7 and 8 (`max-age` for the
/// upload's lifetime, `Accept-Patch` on `OPTIONS`) are spoken when the server is set to.
struct ResumableDraft: Sendable, Equatable {
    let version: Int

    /// The versions spoken by default, and those `--upload-draft-latest` adds.
    static let stable: Set<Int> = [3, 6]
    static let latest: Set<Int> = [7, 8]

    static let interopVersion = HTTPField.Name("Upload-Draft-Interop-Version")!
    static let complete = HTTPField.Name("Upload-Complete")!
    static let incomplete = HTTPField.Name("Upload-Incomplete")!
    static let offset = HTTPField.Name("Upload-Offset")!
    static let length = HTTPField.Name("Upload-Length")!
    static let limit = HTTPField.Name("Upload-Limit")!
    static let partialUpload = "application/partial-upload"

    init(version: Int) {
        self.version = version
    }

    /// The version `request` speaks, when it is one of `spoken`; nil when it speaks none (an
    /// ordinary request) or one we do not.
    init?(_ request: HTTPRequest, spoken: Set<Int>) {
        guard let text = request.headerFields[Self.interopVersion], let version = Int(text), spoken.contains(version) else { return nil }
        self.version = version
    }

    /// Whether the request says its content ends the upload: nil when it says nothing.
    func completes(_ request: HTTPRequest) -> Bool? {
        if version == 3 { return Self.boolean(request.headerFields[Self.incomplete]).map { !$0 } }
        return Self.boolean(request.headerFields[Self.complete])
    }

    /// Whether an append's media type is the one this version asks for.
    func acceptsAppend(contentType: String?) -> Bool {
        version < 6 || contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() == Self.partialUpload
    }

    /// The fields that say where `session` stands: offset, completeness, length.
    func state(_ session: UploadSession) -> HTTPFields {
        var fields = HTTPFields()
        fields[Self.interopVersion] = "\(version)"
        fields[Self.offset] = "\(session.received)"
        fields.set(completeness(session.status == .complete))
        if let length = session.length { fields[Self.length] = "\(length)" }
        return fields
    }

    /// `Upload-Complete` (or version 3's `Upload-Incomplete`) saying `complete`.
    func completeness(_ complete: Bool) -> HTTPFields {
        var fields = HTTPFields()
        if version == 3 {
            fields[Self.incomplete] = complete ? "?0" : "?1"
        } else {
            fields[Self.complete] = complete ? "?1" : "?0"
        }
        return fields
    }

    /// `Upload-Limit`: the largest file, the most one request may append, and the seconds left of
    /// the upload's life (`expires` before version 7, `max-age` from it).
    func limits(_ policy: UploadPolicy, maxFileBytes: Int, secondsLeft: Int?) -> HTTPFields {
        var members = ["max-size=\(maxFileBytes)", "max-append-size=\(policy.maxAppendBytes)"]
        if let secondsLeft { members.append("\(version >= 7 ? "max-age" : "expires")=\(max(0, secondsLeft))") }
        var fields = HTTPFields()
        fields[Self.limit] = members.joined(separator: ", ")
        return fields
    }

    /// A structured-field Boolean: `?1` or `?0`.
    static func boolean(_ text: String?) -> Bool? {
        switch text?.trimmingCharacters(in: .whitespaces) {
        case "?1": true
        case "?0": false
        default: nil
        }
    }

    /// A structured-field Integer that is a byte count: at most 15 digits, no sign.
    static func byteCount(_ text: String?) -> Int? {
        guard let text = text?.trimmingCharacters(in: .whitespaces), (1...15).contains(text.utf8.count),
            text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        return Int(text)
    }
}

extension HTTPFields {
    /// Sets each of `fields`, replacing what this had of the same names.
    mutating func set(_ fields: HTTPFields) {
        for name in Set(fields.map(\.name)) { self[fields: name] = fields[fields: name] }
    }
}
