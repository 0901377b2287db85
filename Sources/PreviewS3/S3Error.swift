import Foundation
import PreviewStore

/// What went wrong talking to the object store. The server being down, overloaded or failing
/// (connection errors, 5xx) is a ``StoreFault/unavailable``: clients get 503 with `Retry-After`
/// and workers back off. Refusals (wrong credentials, no bucket, a bad checksum) are not faults of
/// the moment: they are reported as they are and never retried.
package enum S3Error: StoreFaultReporting, CustomStringConvertible {
    /// A wrong `s3://` address or missing credentials.
    case configuration(String)
    /// The endpoint cannot be reached, or the connection broke.
    case unreachable(String)
    /// The server answered `status` with S3 error `code` (`SignatureDoesNotMatch`, `BadDigest`, …).
    case refused(status: Int, code: String, message: String, operation: String)
    /// An object's bytes do not hash to its name.
    case damaged(String)

    package var fault: StoreFault? {
        switch self {
        case .unreachable: .unavailable
        case let .refused(status, code, _, _): status >= 500 || code == "SlowDown" ? .unavailable : nil
        case .configuration, .damaged: nil
        }
    }

    package var description: String {
        switch self {
        case let .configuration(message), let .unreachable(message), let .damaged(message): message
        case let .refused(status, code, message, operation):
            "The object store refused \(operation): \(status) \(code)\(message.isEmpty ? "" : ": \(message)")"
                + (code == "SignatureDoesNotMatch" || code == "InvalidAccessKeyId"
                    ? " (check the access key and secret in AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY or the credentials file)" : "")
        }
    }

    /// Whether the store said it has no such object (`404`, `NoSuchKey`).
    package var isMissing: Bool {
        if case let .refused(status, _, _, _) = self { return status == 404 }
        return false
    }

    /// The `code` of a refusal, if it is one.
    package var code: String? {
        if case let .refused(_, code, _, _) = self { return code }
        return nil
    }
}
