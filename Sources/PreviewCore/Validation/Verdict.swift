/// The structured upload decision for one file: what it is, how its name relates to its bytes,
/// and — when refused — why, with a stable code and a message for people.
public struct Verdict: Sendable {
    /// How the file's extension relates to its detected kind.
    package enum Reason: String, Sendable, Codable {
        /// The extension is the kind's canonical one.
        case match
        /// Another name for the same thing (`.jpeg`, `.tif`, an MP4 named `.mov`).
        case alias
        /// The extension names a different kind than the bytes.
        case mismatch
        /// No extension, or one we do not know: judged by the bytes alone.
        case unknownExtension = "unknown_extension"
        /// The bytes are an executable, whatever the name.
        case executable
        /// The kind agrees, but bytes follow the container's end marker.
        case trailingData = "trailing_data"
    }

    package var detection: Detection
    package var reason: Reason
    /// The file name's extension, lower case without the dot (nil when there is none).
    package var fileExtension: String?
    /// Kinds the extension names (empty when the extension is unknown).
    package var claimedKinds: [FileKind]
    /// Why the file is refused; nil when it is accepted.
    package var refusal: PreviewError?

    public var kind: FileKind { detection.kind }
    package var isAccepted: Bool { refusal == nil }
    /// Accepted, but no renderer makes previews of this kind (office, text).
    package var hasNoPreview: Bool { isAccepted && kind.support == .storeOnly }
}
