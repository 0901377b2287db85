import Crypto
import Foundation

/// AWS Signature Version 4 in its header form (`Authorization: AWS4-HMAC-SHA256 …`), for S3
/// requests. Pure: the same request, credentials and instant give the same signature, which is
/// how it is tested against the examples AWS publishes.
package struct SigV4Signer: Sendable {
    package let credentials: S3Credentials
    package let region: String
    package let service: String

    package init(credentials: S3Credentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// What a request is signed over. `path` is the canonical, already percent-encoded path;
    /// `headers` are lower-case names (`host` among them); `payloadHash` the hex SHA-256 of the body,
    /// or `UNSIGNED-PAYLOAD`.
    package struct Request: Sendable {
        package var method: String
        package var path: String
        package var query: [(name: String, value: String)]
        package var headers: [String: String]
        package var payloadHash: String

        package init(
            method: String, path: String, query: [(name: String, value: String)] = [], headers: [String: String],
            payloadHash: String
        ) {
            self.method = method
            self.path = path
            self.query = query
            self.headers = headers
            self.payloadHash = payloadHash
        }
    }

    /// The hex SHA-256 of no bytes: the payload hash of a request without a body.
    package static let emptyPayloadHash = SHA256.hash(data: [UInt8]()).hex

    /// The headers to add to `request` at `date`: `x-amz-date`, `x-amz-content-sha256`, the session
    /// token when there is one, and `authorization` over all of them.
    package func signedHeaders(for request: Request, at date: Date) -> [String: String] {
        var request = request
        request.headers["x-amz-date"] = Self.timestamp(date)
        request.headers["x-amz-content-sha256"] = request.payloadHash
        if let token = credentials.sessionToken { request.headers["x-amz-security-token"] = token }
        var added = request.headers.filter { ["x-amz-date", "x-amz-content-sha256", "x-amz-security-token"].contains($0.key) }
        added["authorization"] = authorization(for: request, at: date)
        return added
    }

    /// The `Authorization` value of `request` (which carries its `x-amz-date` and other signed headers) at `date`.
    package func authorization(for request: Request, at date: Date) -> String {
        let names = request.headers.keys.sorted().joined(separator: ";")
        return "AWS4-HMAC-SHA256 Credential=\(credentials.accessKey)/\(scope(date)), SignedHeaders=\(names), "
            + "Signature=\(signature(for: request, at: date))"
    }

    /// The hex signature of `request` at `date`.
    package func signature(for request: Request, at date: Date) -> String {
        let stringToSign = [
            "AWS4-HMAC-SHA256", Self.timestamp(date), scope(date),
            SHA256.hash(data: Data(canonicalRequest(request).utf8)).hex
        ].joined(separator: "\n")
        return HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: signingKey(date)).hex
    }

    /// The canonical request: method, path, sorted encoded query, sorted headers, their names, payload hash.
    package func canonicalRequest(_ request: Request) -> String {
        let encoded: [(name: String, value: String)] = request.query.map { (Self.encode($0.name), Self.encode($0.value)) }
        let sorted = encoded.sorted { (left, right) -> Bool in left.name == right.name ? left.value < right.value : left.name < right.name }
        let query = sorted.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
        let names = request.headers.keys.sorted()
        let headers = names.map { "\($0):\(Self.trimmed(request.headers[$0]!))\n" }.joined()
        return [request.method, request.path, query, headers, names.joined(separator: ";"), request.payloadHash].joined(separator: "\n")
    }

    private func scope(_ date: Date) -> String { "\(Self.timestamp(date).prefix(8))/\(region)/\(service)/aws4_request" }

    private func signingKey(_ date: Date) -> SymmetricKey {
        var key = SymmetricKey(data: Data("AWS4\(credentials.secretKey)".utf8))
        for part in [String(Self.timestamp(date).prefix(8)), region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        return key
    }

    /// `20130524T000000Z`: the instant in UTC, as SigV4 writes it.
    package static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d%02d%02dT%02d%02d%02dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
            parts.tm_hour, parts.tm_min, parts.tm_sec)
    }

    /// RFC 3986 percent-encoding as SigV4 wants it: unreserved characters kept, everything else
    /// `%XX` in upper case; `/` kept only when `keepingSlashes` (an object key in a path).
    package static func encode(_ text: String, keepingSlashes: Bool = false) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                encoded.append(Character(Unicode.Scalar(byte)))
            case UInt8(ascii: "/") where keepingSlashes:
                encoded.append("/")
            default:
                encoded += String(format: "%%%02X", byte)
            }
        }
        return encoded
    }

    /// A header value with its ends trimmed and inner runs of spaces made one.
    private static func trimmed(_ value: String) -> String {
        value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ").trimmingCharacters(in: .whitespaces)
    }
}

/// An access key and its secret (and a session token for temporary credentials). Read from the
/// environment or a file, never from the command line (where `ps` shows it to every user).
package struct S3Credentials: Sendable, Equatable {
    package var accessKey: String
    package var secretKey: String
    package var sessionToken: String?

    package init(accessKey: String, secretKey: String, sessionToken: String? = nil) {
        self.accessKey = accessKey
        self.secretKey = secretKey
        self.sessionToken = sessionToken
    }

    /// `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY` (and `AWS_SESSION_TOKEN`); else the profile
    /// `AWS_PROFILE` (default `default`) of the credentials file `AWS_SHARED_CREDENTIALS_FILE`
    /// (default `~/.aws/credentials`), in AWS's INI form.
    package static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> S3Credentials {
        if let key = environment["AWS_ACCESS_KEY_ID"], !key.isEmpty, let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty {
            return S3Credentials(accessKey: key, secretKey: secret, sessionToken: environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 })
        }
        let path = environment["AWS_SHARED_CREDENTIALS_FILE"] ?? "\(environment["HOME"] ?? NSHomeDirectory())/.aws/credentials"
        let profile = environment["AWS_PROFILE"] ?? "default"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw S3Error.configuration(
                "No S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or give a credentials file "
                    + "(AWS_SHARED_CREDENTIALS_FILE, default ~/.aws/credentials).")
        }
        var section = "", values: [String: String] = [:]
        for line in text.split(whereSeparator: \.isNewline).map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line.hasPrefix("[") && line.hasSuffix("]") {
                section = String(line.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
            } else if section == profile, let equals = line.firstIndex(of: "="), !line.hasPrefix("#"), !line.hasPrefix(";") {
                values[line[..<equals].trimmingCharacters(in: .whitespaces)] = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            }
        }
        guard let key = values["aws_access_key_id"], let secret = values["aws_secret_access_key"] else {
            throw S3Error.configuration("The credentials file \(path) has no aws_access_key_id and aws_secret_access_key in [\(profile)].")
        }
        return S3Credentials(accessKey: key, secretKey: secret, sessionToken: values["aws_session_token"])
    }
}

extension Sequence where Element == UInt8 {
    /// Lower-case hex.
    var hex: String { map { String(format: "%02x", $0) }.joined() }
}

extension HashedAuthenticationCode {
    var hex: String { Array(self).hex }
}

extension SHA256Digest {
    var hex: String { Array(self).hex }
}
