import Crypto
import Foundation
import PreviewCore
import PreviewDomain

/// The keys that sign URLs, from `serve --signing-key-file`: one per line, `ID SECRET` (the secret
/// 32 or more characters, e.g. `docpreview signing-key`'s). The first line's key signs; every
/// listed key verifies, so a new key goes first and an old one stays until its URLs have expired —
/// removing a key invalidates the URLs it signed.
package struct SigningKeys: Sendable {
    struct Key: Sendable {
        let id: String
        let secret: [UInt8]
        var symmetric: SymmetricKey { SymmetricKey(data: secret) }
    }
    let keys: [Key]

    /// Keys as `(id, secret)` pairs, the signing one first.
    package init(_ pairs: [(id: String, secret: String)]) throws(PreviewError) {
        guard !pairs.isEmpty else { throw PreviewError(.badRequest, "The signing key file names no key.") }
        keys = try pairs.map { pair throws(PreviewError) in
            guard !pair.id.isEmpty, pair.id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
                throw PreviewError(.badRequest, "A signing key's id must be letters, digits, - or _: '\(pair.id)'.")
            }
            guard pair.secret.utf8.count >= 32 else {
                throw PreviewError(.badRequest, "The signing key '\(pair.id)' is shorter than 32 characters.")
            }
            return Key(id: pair.id, secret: Array(pair.secret.utf8))
        }
        guard Set(keys.map(\.id)).count == keys.count else { throw PreviewError(.badRequest, "Two signing keys share an id.") }
    }

    /// What a key file holds, said whenever one is refused.
    static let fileFormat = "a text file of `ID SECRET` lines, the signing key first (`docpreview signing-key` prints one)"

    /// The keys of a file of `ID SECRET` lines (blank lines and `#` comments skipped).
    package init(contentsOf url: URL) throws(PreviewError) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw PreviewError(.badRequest, "Cannot read the signing key file \(url.path): \((error as NSError).localizedDescription)")
        }
        guard let text = String(data: data, encoding: .utf8), !text.contains("\0") else {
            throw PreviewError(.badRequest, "The signing key file \(url.path) is not text; it must be \(Self.fileFormat).")
        }
        let pairs = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
            .map { line in
                let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
                return (id: parts[0], secret: parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : "")
            }
        do {
            try self.init(pairs)
        } catch {
            throw PreviewError(.badRequest, "\(error.message) The signing key file \(url.path) must be \(Self.fileFormat).")
        }
    }

    /// A key of this process only, for the URLs of share pages when no key file is given: they end
    /// with the process, as a page's media may.
    static func ephemeral() -> SigningKeys {
        SigningKeys(keys: [Key(id: "process", secret: Base64URL.randomBytes(32))])
    }

    private init(keys: [Key]) {
        self.keys = keys
    }

    /// A new key's line: a dated id and 256 random bits, base64url.
    package static func newLine(now: Date = Date()) -> String {
        let day = ISO8601DateFormatter.string(from: now, timeZone: .gmt, formatOptions: [.withYear, .withMonth, .withDay])
        let suffix = Base64URL.randomBytes(2).map { String(format: "%02x", $0) }.joined()
        return "k\(day)-\(suffix) \(Base64URL.randomToken(bytes: 32))"
    }
}

/// Signed URLs: a path (and its query) that needs no token until `exp`, bound to everything in it
/// by HMAC-SHA256 under a key named by `kid`: `/v1/documents/ID/content?exp=1764000000&kid=k1&sig=…`.
/// The signature covers the path and every query parameter but `sig`, sorted, so nothing of it can
/// change; it is checked in constant time. Only reads of a document's resources are signed (its
/// original, previews, renditions, ladder and thumbnails): never listings, writes or other routes.
package struct SignedURLs: Sendable {
    let keys: SigningKeys
    /// What expiries are checked against.
    package let clock: any ServiceClock

    init(keys: SigningKeys, clock: any ServiceClock = SystemClock()) {
        self.keys = keys
        self.clock = clock
    }
    /// How long a URL lives unless asked otherwise, and at most.
    static let defaultSeconds = 900
    static let maxSeconds = 86_400

    /// What a verified URL grants: reads of its own path until `expires` (Unix seconds), for the
    /// share it was signed for, if any (the files it names are signed for that share too).
    struct Grant: Sendable {
        let expires: Int
        var share: String?
        /// The share, when it marks what it serves (a watermark, a redaction): every picture, page and
        /// download served for it carries its marks.
        var marked: ShareRecord?
    }

    /// `path` with `query` (name, value; no percent-encoding needed), signed until `expires`.
    package func sign(_ path: String, query: [(String, String)] = [], expires: Int) -> String {
        let (kid, signature) = signature(of: path, query, expires: expires)
        let items = query + [("exp", "\(expires)"), ("kid", kid), ("sig", signature)]
        return path + "?" + QueryItems.encoded(items)
    }

    /// The grant of a request for `path` whose query is `query`, or the reason it is refused.
    func verify(_ path: String, query: [(String, String)]) throws(APIError) -> Grant {
        guard Self.isSignable(path) else { throw APIError(.forbidden, "Signed links reach a document's files and links' pictures only.") }
        let signatures = query.filter { $0.0 == "sig" }
        guard signatures.count == 1 else { throw Self.refused }
        return try check(path, query.filter { $0.0 != "sig" }, signature: signatures[0].1)
    }

    /// The path of the IIIF image `identifier` (`{document_id}~v{n}`, with `~p{n}` for a page) under
    /// its identifier signed until `expires`, for `share` if any: `/iiif/3/…~s{exp}.{kid}[.{share}].{sig}`.
    /// A IIIF client makes every URL of the image from its identifier (`info.json` names it), so each
    /// tile carries the signature.
    package func iiifPath(_ identifier: String, expires: Int, share: String? = nil) -> String {
        let path = IIIFService.prefix + identifier
        let (kid, signature) = signature(of: path, share.map { [("share", $0)] } ?? [], expires: expires)
        return "\(path)~s\(expires).\(kid)\(share.map { ".\($0)" } ?? "").\(signature)"
    }

    /// The pass a share's page gives its reading reports (``ShareReadingReport``): share `share`'s,
    /// until `expires`, as `{exp}.{kid}.{sig}`. Only a page that opened (past its password) has one.
    package func readingPass(share: String, expires: Int) -> String {
        let (kid, signature) = signature(of: Self.readingPath, [("share", share)], expires: expires)
        return "\(expires).\(kid).\(signature)"
    }

    /// Admits `pass` for the reading reports of share `share`, or refuses it (`forbidden`).
    package func verify(readingPass pass: String, share: String) throws(APIError) {
        let parts = pass.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3 else { throw Self.refused }
        _ = try check(Self.readingPath, [("exp", parts[0]), ("kid", parts[1]), ("share", share)], signature: parts[2])
    }

    /// What a reading pass signs, beside the share's id: no path that serves anything.
    private static let readingPath = "/s/reading"

    /// The signing key's id, and its HMAC (base64url) over `path` and `query` with the expiry and that id.
    private func signature(of path: String, _ query: [(String, String)], expires: Int) -> (kid: String, signature: String) {
        let key = keys.keys[0]
        let message = Self.message(path, query + [("exp", "\(expires)"), ("kid", key.id)])
        return (key.id, Base64URL.encode(HMAC<SHA256>.authenticationCode(for: Array(message.utf8), using: key.symmetric)))
    }

    /// The grant of a IIIF path whose identifier is signed; nil when `path` has no signed identifier.
    func verify(iiifPath path: String) throws(APIError) -> Grant? {
        guard path.hasPrefix(IIIFService.prefix) else { return nil }
        let identifier = path.dropFirst(IIIFService.prefix.count).prefix { $0 != "/" }
        guard let marker = identifier.range(of: "~s") else { return nil }
        let parts = identifier[marker.upperBound...].split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3 || parts.count == 4 else { throw Self.refused }
        let share = parts.count == 4 ? parts[2] : nil
        var grant = try check(
            IIIFService.prefix + identifier[..<marker.lowerBound],
            [("exp", parts[0]), ("kid", parts[1])] + (share.map { [("share", $0)] } ?? []), signature: parts.last!)
        grant.share = share
        return grant
    }

    private static let refused = APIError(.forbidden, "This link is not valid: it was changed, or its key was retired.")

    /// The grant of `signature` over `path` and `query` (its `exp` and `kid` among them), or the refusal.
    private func check(_ path: String, _ query: [(String, String)], signature text: String) throws(APIError) -> Grant {
        // Only the canonical encoding: no second spelling of the same signature.
        guard let signature = Base64URL.decode(text), Base64URL.encode(signature) == text,
            let kid = Self.single("kid", in: query), let key = keys.keys.first(where: { $0.id == kid }),
            let expiry = Self.single("exp", in: query), let expires = Int(expiry), "\(expires)" == expiry
        else { throw Self.refused }
        guard HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: Array(Self.message(path, query).utf8), using: key.symmetric) else {
            throw Self.refused
        }
        guard Double(expires) >= clock.now.timeIntervalSince1970 else { throw APIError(.forbidden, "This link has expired.") }
        return Grant(expires: expires)
    }

    /// The resources a signed URL may name: `/v1/documents/ID/content` and `/preview`, one file
    /// under a document's `renditions`, `hls` or `trickplay`, and a link card's picture
    /// (`/v1/links/pictures/SHA256`).
    static func isSignable(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 5, parts[0].isEmpty, parts[1] == "v1", parts[2] == "links", parts[3] == "pictures" { return !parts[4].isEmpty }
        guard parts.count >= 5, parts[0].isEmpty, parts[1] == "v1", parts[2] == "documents", !parts[3].isEmpty else { return false }
        switch (parts.count, parts[4]) {
        case (5, "content"), (5, "preview"): return true
        case (6, "renditions"), (6, "hls"), (6, "trickplay"): return !parts[5].isEmpty
        default: return false
        }
    }

    /// What is signed: a version tag, the path, and the query sorted (by name, then value).
    private static func message(_ path: String, _ query: [(String, String)]) -> String {
        let sorted = query.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map { "\($0)=\($1)" }.joined(separator: "&")
        return "docpreview-signed-url/1\n\(path)\n\(sorted)"
    }

    private static func single(_ name: String, in query: [(String, String)]) -> String? {
        let values = query.filter { $0.0 == name }
        return values.count == 1 ? values[0].1 : nil
    }
}
