/// A failure a person can act on: a stable code, a message for people, and the underlying cause.
///
/// Transport mappings (exit codes, HTTP statuses) live at the edges; ``Code/disposition`` says which
/// class a code belongs to so each edge maps it the same way.
public struct PreviewError: Error, Sendable, CustomStringConvertible {
    public var code: Code
    package var message: String
    /// What the underlying library or system said, for logs; never shown to uploaders.
    package var detail: String?

    package init(_ code: Code, _ message: String, detail: String? = nil) {
        self.code = code
        self.message = message
        self.detail = detail
    }

    public var description: String { "\(code): \(message)" + (detail.map { " (\($0))" } ?? "") }
}

extension PreviewError {
    /// A stable error code (DESIGN §7). A struct over a private enum, so codes can be added without breaking callers.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, CaseIterable {
            case extensionNotAllowed = "extension_not_allowed"
            case contentMismatch = "content_mismatch"
            case unsupportedType = "unsupported_type"
            case executableRefused = "executable_refused"
            case fileTooLarge = "file_too_large"
            case emptyFile = "empty_file"
            case tooManyPixels = "too_many_pixels"
            case zipBomb = "zip_bomb"
            case corrupt
            case encrypted
            case noVideoStream = "no_video_stream"
            case pageOutOfRange = "page_out_of_range"
            case timeout
            case notFound = "not_found"
            case unauthorized
            case forbidden
            case queueFull = "queue_full"
            case storageFull = "storage_full"
            case unavailable
            case `internal`
            case badRequest = "bad_request"
            case conflict
            case methodNotAllowed = "method_not_allowed"
            case rangeNotSatisfiable = "range_not_satisfiable"
            case misdirectedRequest = "misdirected_request"
            case clientGone = "client_gone"
            case storeDamaged = "store_damaged"
            case tooLong = "too_long"
            case gone
            case notImplemented = "not_implemented"
            case unsupportedSite = "unsupported_site"
            case privateAddress = "private_address"
            case linkFailed = "link_failed"
            case checksumMismatch = "checksum_mismatch"
            case searchTooBroad = "search_too_broad"
        }

        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The code as it appears in JSON and logs, e.g. `content_mismatch`.
        public var rawValue: String { value.rawValue }
        public var description: String { value.rawValue }

        public init?(rawValue: String) {
            guard let value = Value(rawValue: rawValue) else { return nil }
            self.value = value
        }

        package static let extensionNotAllowed = Code(.extensionNotAllowed)
        package static let contentMismatch = Code(.contentMismatch)
        package static let unsupportedType = Code(.unsupportedType)
        package static let executableRefused = Code(.executableRefused)
        package static let fileTooLarge = Code(.fileTooLarge)
        package static let emptyFile = Code(.emptyFile)
        package static let tooManyPixels = Code(.tooManyPixels)
        /// An office document (a ZIP inside) would unpack to more than the limits allow.
        package static let zipBomb = Code(.zipBomb)
        package static let corrupt = Code(.corrupt)
        package static let encrypted = Code(.encrypted)
        package static let noVideoStream = Code(.noVideoStream)
        package static let pageOutOfRange = Code(.pageOutOfRange)
        package static let timeout = Code(.timeout)
        package static let notFound = Code(.notFound)
        package static let unauthorized = Code(.unauthorized)
        /// Signed in, but this request is not allowed: a write from another site, or without the page's CSRF token.
        package static let forbidden = Code(.forbidden)
        /// The service is busy: too many jobs wait. Try again later.
        package static let queueFull = Code(.queueFull)
        /// Our disk (or quota) is full: nothing could be stored. Try again later.
        package static let storageFull = Code(.storageFull)
        /// The index's database cannot be reached, or the server is shutting down. Try again shortly.
        package static let unavailable = Code(.unavailable)
        package static let `internal` = Code(.internal)
        /// The request itself is malformed: a parameter out of range, an unknown type, a label with control characters.
        package static let badRequest = Code(.badRequest)
        /// The change would clash with another document (a relabel onto a title the owner already uses).
        package static let conflict = Code(.conflict)
        package static let methodNotAllowed = Code(.methodNotAllowed)
        /// A byte range outside the file.
        package static let rangeNotSatisfiable = Code(.rangeNotSatisfiable)
        /// A request for a host this server does not answer for (DNS rebinding).
        package static let misdirectedRequest = Code(.misdirectedRequest)
        /// The client disconnected before its answer was made.
        package static let clientGone = Code(.clientGone)
        /// The store's index is damaged or has lost originals: `gc` refuses to make that permanent.
        package static let storeDamaged = Code(.storeDamaged)
        /// Media longer than the limit for the work asked (a rendition of a 10-hour video).
        package static let tooLong = Code(.tooLong)
        /// A share link that was revoked, expired, or whose document was deleted.
        package static let gone = Code(.gone)
        /// A well-formed request for a feature we do not offer (a IIIF rotation of 45°, a bitonal image).
        package static let notImplemented = Code(.notImplemented)
        /// An upload's bytes did not match the checksum sent with them (tus's 460).
        package static let checksumMismatch = Code(.checksumMismatch)
        /// A text search with too many matches to order as asked (by title, type or shares): add
        /// words or a filter, or sort by date.
        public static let searchTooBroad = Code(.searchTooBroad)
        /// A shared link to a site we do not download from.
        package static let unsupportedSite = Code(.unsupportedSite)
        /// A shared link that leads (at once, by a redirect or through its DNS answer) to an address
        /// that is not on the public Internet: loopback, private, link-local, cloud metadata, ….
        package static let privateAddress = Code(.privateAddress)
        /// A shared link whose site failed: it answered an HTTP error, or could not be reached.
        package static let linkFailed = Code(.linkFailed)

        /// Every code, for documentation and exhaustive tests.
        package static var all: [Code] { Value.allCases.map(Code.init) }

        /// Which class of failure this is: refused by policy, unreadable input, or our own fault.
        /// Exhaustive, with ``httpStatus``: a new code does not compile until both say where it goes
        /// (the CLI's exit code follows the disposition).
        package var disposition: Disposition {
            switch value {
            case .extensionNotAllowed, .contentMismatch, .unsupportedType, .executableRefused, .fileTooLarge, .emptyFile,
                .tooManyPixels, .tooLong, .zipBomb, .noVideoStream, .pageOutOfRange, .unsupportedSite, .privateAddress:
                .refused
            case .corrupt, .encrypted, .timeout, .linkFailed: .unreadable
            case .internal, .storageFull, .unavailable, .storeDamaged: .internal
            case .notFound, .unauthorized, .forbidden, .queueFull, .badRequest, .conflict, .methodNotAllowed, .rangeNotSatisfiable,
                .misdirectedRequest, .clientGone, .gone, .notImplemented, .checksumMismatch, .searchTooBroad:
                .request
            }
        }

        /// The HTTP status this code is answered with (DESIGN §8).
        package var httpStatus: Int {
            switch value {
            case .fileTooLarge: 413
            case .extensionNotAllowed, .contentMismatch, .unsupportedType, .executableRefused: 415
            case .emptyFile, .tooManyPixels, .tooLong, .zipBomb, .corrupt, .encrypted, .noVideoStream, .pageOutOfRange, .timeout,
                .unsupportedSite, .privateAddress, .linkFailed, .searchTooBroad:
                422
            case .notFound: 404
            case .unauthorized: 401
            case .forbidden: 403
            case .queueFull: 429
            case .storageFull: 507
            case .unavailable: 503
            case .internal, .storeDamaged: 500
            case .badRequest: 400
            case .conflict: 409
            case .methodNotAllowed: 405
            case .rangeNotSatisfiable: 416
            case .misdirectedRequest: 421
            case .clientGone: 499
            case .gone: 410
            case .notImplemented: 501
            case .checksumMismatch: 460
            }
        }
    }

    /// The class of a failure; the CLI maps these to exit codes 3, 4, 1 and 2.
    package enum Disposition: Sendable {
        /// Validation or limits said no (exit 3; batch status `rejected`).
        case refused
        /// The bytes could not be read as what they claim (exit 4; batch status `failed`).
        case unreadable
        /// A bug or an environment failure (exit 1; batch status `failed`).
        case `internal`
        /// The request itself was wrong (missing document, bad credentials).
        case request
    }
}

extension PreviewError.Code: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let raw = try container.decode(String.self)
        guard let code = Self(rawValue: raw) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "unknown error code \(raw)")
        }
        self = code
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
