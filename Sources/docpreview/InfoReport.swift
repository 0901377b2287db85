import Foundation
import PreviewCore

/// The `info --json` object: `{"path","kind","mime","size","verdict":{…},"error"?}`.
struct InfoReport: Encodable {
    struct VerdictBody: Encodable {
        var reason: String
        var accepted: Bool
        var preview: String
        var fileExtension: String?
        var extensionNames: [String]
        var trailingData: Trailing?

        enum CodingKeys: String, CodingKey {
            case reason, accepted, preview
            case fileExtension = "extension"
            case extensionNames = "extension_names"
            case trailingData = "trailing_data"
        }
    }

    struct Trailing: Encodable {
        var offset: Int
        var length: Int
        var payload: String
    }

    var path: String
    var kind: String
    var mime: String
    var size: Int
    var verdict: VerdictBody
    var error: ErrorEnvelope.Body?
    /// Dimensions, pages, duration, codec, rotation: flattened into the object.
    var facts = MediaFacts()

    enum CodingKeys: String, CodingKey {
        case path, kind, mime, size, verdict, error
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(path, forKey: .path)
        try container.encode(kind, forKey: .kind)
        try container.encode(mime, forKey: .mime)
        try container.encode(size, forKey: .size)
        try container.encode(verdict, forKey: .verdict)
        try container.encodeIfPresent(error, forKey: .error)
        try facts.encode(to: encoder)
    }

    init(path: String, size: Int, verdict: Verdict) {
        self.path = path
        self.kind = verdict.kind.rawValue
        self.mime = verdict.kind.mime
        self.size = size
        let preview = !verdict.isAccepted ? "none" : verdict.hasNoPreview ? "no_preview" : "available"
        self.verdict = VerdictBody(
            reason: verdict.reason.rawValue,
            accepted: verdict.isAccepted,
            preview: preview,
            fileExtension: verdict.fileExtension,
            extensionNames: verdict.claimedKinds.map(\.rawValue),
            trailingData: verdict.detection.trailing.map { Trailing(offset: $0.offset, length: $0.length, payload: $0.payload.rawValue) }
        )
        self.error = verdict.refusal.map { ErrorEnvelope($0).error }
    }

    /// The report with the facts `probe` finds; when it fails, with its error and the file refused.
    func probed(_ probe: () throws(PreviewError) -> MediaFacts) -> InfoReport {
        var report = self
        do {
            report.facts = try probe()
        } catch {
            report.refuse(error)
        }
        return report
    }

    /// ``probed(_:)`` by a probe that is awaited.
    func probed(_ probe: () async throws(PreviewError) -> MediaFacts) async -> InfoReport {
        var report = self
        do {
            report.facts = try await probe()
        } catch {
            report.refuse(error)
        }
        return report
    }

    private mutating func refuse(_ error: PreviewError) {
        self.error = ErrorEnvelope(error).error
        verdict.accepted = false
        verdict.preview = "none"
    }

    var humanReadable: String {
        var lines = [
            "\(path): \(kind) (\(mime)), \(size) bytes",
            "verdict: \(verdict.reason)" + (verdict.fileExtension.map { " (extension .\($0))" } ?? "")
        ]
        let described = [
            facts.width.flatMap { w in facts.height.map { "\(w)×\($0)" } },
            facts.pages.map { "\($0) pages" }, facts.durationSeconds.map { "\($0) s" }, facts.codec,
            facts.rotation.flatMap { $0 == 0 ? nil : "rotated \($0)°" }
        ].compactMap { $0 }
        if !described.isEmpty { lines.append("media: " + described.joined(separator: ", ")) }
        if let trailing = verdict.trailingData {
            lines.append("trailing data: \(trailing.length) bytes at offset \(trailing.offset) (\(trailing.payload))")
        }
        if let error {
            lines.append("refused: \(error.code): \(error.message)")
        } else {
            lines.append(verdict.preview == "no_preview" ? "accepted (stored without preview)" : "accepted")
        }
        return lines.joined(separator: "\n")
    }
}
