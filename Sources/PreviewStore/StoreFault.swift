import Foundation
import GRDB
import PreviewCore

/// A failure of the store's environment rather than of a request or a file: the disk is full, or
/// the index's database cannot be reached. Servers answer these `507`/`503` with `Retry-After`,
/// workers back off, and neither blames the document.
package enum StoreFault: String, Sendable, CaseIterable {
    case storageFull = "storage_full"
    case unavailable

    /// The fault `error` (or an error it wraps) is, if it is one.
    package init?(_ error: any Error) {
        switch error {
        case let error as any StoreFaultReporting:
            guard let fault = error.fault else { return nil }
            self = fault
        case let error as PreviewError:
            switch error.code {
            case .storageFull: self = .storageFull
            case .unavailable: self = .unavailable
            default: return nil
            }
        case let error as DatabaseError:
            switch error.resultCode {
            case .SQLITE_FULL: self = .storageFull
            case .SQLITE_BUSY, .SQLITE_LOCKED, .SQLITE_CANTOPEN, .SQLITE_IOERR: self = .unavailable
            default: return nil
            }
        case let error as POSIXError:
            guard let fault = Self(errno: error.code.rawValue) else { return nil }
            self = fault
        case let error as CocoaError where error.code == .fileWriteOutOfSpace:
            self = .storageFull
        default:
            let error = error as NSError
            if error.domain == NSPOSIXErrorDomain, let fault = Self(errno: Int32(error.code)) {
                self = fault
            } else if let underlying = error.userInfo[NSUnderlyingErrorKey] as? any Error, let fault = Self(underlying) {
                self = fault
            } else {
                return nil
            }
        }
    }

    private init?(errno code: Int32) {
        guard code == ENOSPC || code == EDQUOT else { return nil }
        self = .storageFull
    }

    /// What a client is told.
    package var previewError: PreviewError {
        switch self {
        case .storageFull:
            PreviewError(.storageFull, "There is no room left to store it: the disk (or quota) that holds the store is full. Try again later.")
        case .unavailable:
            PreviewError(
                .unavailable,
                "The store (the database of its index, or the object store of its files) cannot be reached right now. Try again shortly.")
        }
    }

    /// How long a client should wait before trying again, in seconds.
    package var retryAfterSeconds: Int {
        switch self {
        case .storageFull: 60
        case .unavailable: 10
        }
    }
}

/// An error of a driver that knows whether it is a ``StoreFault``.
package protocol StoreFaultReporting: Error {
    var fault: StoreFault? { get }
}

extension PreviewError {
    /// `error` as a failure to report: its ``StoreFault`` when it is one, else `internal` with `message`.
    package static func storing(_ error: any Error, _ message: String) -> PreviewError {
        guard let fault = StoreFault(error) else { return PreviewError(.internal, message, detail: "\(error)") }
        var reported = fault.previewError
        reported.detail = "\(error)"
        return reported
    }
}
