import Foundation

/// The folders of office children, one pair per child slot: a LibreOffice user profile, kept
/// between runs (a new profile costs LibreOffice over a second to create; a used one, a tenth of
/// that), and a workspace, the only other place the child may read or write (the file to convert
/// is put in its `inbox`, LibreOffice's temporary files in its `tmp`). Locked by this process while
/// it lives, so two processes never share them. Under `$XDG_CACHE_HOME/docpreview/office` (or
/// `~/.cache/…`), private to the user.
final class OfficeProfiles: Sendable {
    struct Folders: Sendable {
        var profile: URL
        var workspace: URL
    }

    let folders: [Folders]
    /// Open lock files (flock'd); closed, and so released, with this object.
    private let locks: [Int32]

    /// The most profiles one user's processes keep side by side.
    static let maxProfiles = 64

    init(count: Int) {
        let base = Self.base()
        try? FileManager.default.createDirectory(at: base, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var folders: [Folders] = []
        var locks: [Int32] = []
        for index in 0..<Self.maxProfiles where folders.count < count {
            let lock = open(base.appendingPathComponent("profile-\(index).lock").path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard lock >= 0 else { continue }
            guard flock(lock, LOCK_EX | LOCK_NB) == 0 else {
                close(lock)
                continue
            }
            folders.append(
                Folders(
                    profile: base.appendingPathComponent("profile-\(index)", isDirectory: true),
                    workspace: base.appendingPathComponent("workspace-\(index)", isDirectory: true)))
            locks.append(lock)
        }
        // All taken (or the cache is not writable): fresh profiles of this process's own.
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("docpreview-office-\(getpid())-\(UUID().uuidString)")
        while folders.count < count {
            folders.append(
                Folders(
                    profile: temporary.appendingPathComponent("profile-\(folders.count)", isDirectory: true),
                    workspace: temporary.appendingPathComponent("workspace-\(folders.count)", isDirectory: true)))
        }
        for folder in folders {
            for path in [folder.workspace, folder.workspace.appendingPathComponent("inbox"), folder.workspace.appendingPathComponent("tmp")] {
                try? FileManager.default.createDirectory(at: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            }
        }
        self.folders = folders
        self.locks = locks
    }

    deinit {
        locks.forEach { close($0) }
    }

    private static func base() -> URL {
        let environment = ProcessInfo.processInfo.environment
        let cache =
            environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache")
        return cache.appendingPathComponent("docpreview/office", isDirectory: true)
    }
}
