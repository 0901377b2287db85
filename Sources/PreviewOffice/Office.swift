internal import COffice
import Foundation
import Synchronization

/// LibreOffice, started through LibreOfficeKit once per process and never stopped: LibreOfficeKit
/// cannot start twice in a process, and tearing it down while threads of its own run is unsafe, so
/// the process's end is its end. Calls into it are serialised (LibreOfficeKit is not thread-safe).
package final class Office: @unchecked Sendable {  // `handle` is only used while `lock` is held
    /// Where Debian installs the office.
    package static let installation = "/usr/lib/libreoffice/program"

    private let handle: OpaquePointer
    private let lock = NSLock()
    /// The office's version, e.g. `7.4.7.2`, as it reports itself.
    package let version: String

    private static let started = Mutex<Result<Office, OfficeError>?>(nil)

    /// The process's office, started on first use with its user profile at `profile` (a folder of
    /// this process's own, never `$HOME`). Later calls return the same office whatever they pass.
    package static func shared(profile: URL) throws(OfficeError) -> Office {
        try started.withLock { started in
            if let started { return started }
            let result = Result { () throws(OfficeError) in try Office(profile: profile) }
            started = result
            return result
        }.get()
    }

    private init(profile: URL) throws(OfficeError) {
        guard let handle = docpreview_office_start(Self.installation, profile.absoluteString) else {
            throw OfficeError(.unavailable, "LibreOffice could not start from \(Self.installation).")
        }
        self.handle = handle
        version = Self.productVersion(taking: docpreview_office_version(handle)) ?? "unknown"
    }

    /// Loads the document at `file` with LibreOfficeKit's load `options`.
    func load(_ file: URL, options: String) throws(OfficeError) -> OpaquePointer {
        try serialized { () throws(OfficeError) -> OpaquePointer in
            guard let document = docpreview_office_load(handle, file.absoluteString, options) else {
                let message = Self.taking(docpreview_office_error(handle)) ?? "no reason given"
                throw OfficeError(.unreadable, "LibreOffice could not load the document.", detail: message)
            }
            return document
        }
    }

    /// Runs `body` while no other call uses the office.
    func serialized<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Takes ownership of a malloc'd C string.
    private static func taking(_ pointer: UnsafeMutablePointer<CChar>?) -> String? {
        guard let pointer else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    /// `7.4` + `.7.2` from the office's version JSON.
    private static func productVersion(taking pointer: UnsafeMutablePointer<CChar>?) -> String? {
        guard let json = taking(pointer),
            let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
            let version = object["ProductVersion"] as? String
        else { return nil }
        return version + ((object["ProductExtension"] as? String) ?? "")
    }
}
