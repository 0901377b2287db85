import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A file a batch will ingest: where it is, and its path relative to the batch root (its title).
public struct BatchEntry: Sendable {
    public var url: URL
    public var relativePath: String
}

/// Something in the folder that is not ingested, and why.
public struct SkippedEntry: Sendable, Encodable {
    public var path: String
    public var reason: String
}

/// Lists a folder's regular files recursively without ever leaving it: symlinks are followed only
/// to regular files inside the root, symlinked folders never (no loops), and FIFOs, sockets and
/// devices are skipped without being opened (opening a FIFO would block).
public enum DirectoryWalker {
    public static func walk(_ root: URL) throws -> (entries: [BatchEntry], skipped: [SkippedEntry]) {
        guard let resolvedRoot = realPath(root.path) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: root.path])
        }
        var entries: [BatchEntry] = []
        var skipped: [SkippedEntry] = []
        var pending = [""]
        while let relativeFolder = pending.popLast() {
            let folder = relativeFolder.isEmpty ? root.path : root.path + "/" + relativeFolder
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
            } catch {
                skipped.append(SkippedEntry(path: relativeFolder, reason: "folder could not be read"))
                continue
            }
            var subfolders: [String] = []
            for name in names {
                let relative = relativeFolder.isEmpty ? name : relativeFolder + "/" + name
                let path = root.path + "/" + relative
                var info = stat()
                guard lstat(path, &info) == 0 else {
                    // Foundation decodes names as UTF-8, replacing what is not: such a name no longer
                    // leads to its file, so it is reported rather than silently passed over.
                    let reason = name.contains("\u{FFFD}") ? "its name is not valid UTF-8; rename it to ingest it" : "could not be examined"
                    skipped.append(SkippedEntry(path: relative, reason: reason))
                    continue
                }
                switch info.st_mode & S_IFMT {
                case S_IFDIR: subfolders.append(relative)
                case S_IFREG: entries.append(BatchEntry(url: URL(fileURLWithPath: path), relativePath: relative))
                case S_IFLNK:
                    if let reason = symlinkProblem(path, root: resolvedRoot) {
                        skipped.append(SkippedEntry(path: relative, reason: reason))
                    } else {
                        entries.append(BatchEntry(url: URL(fileURLWithPath: path), relativePath: relative))
                    }
                case S_IFIFO: skipped.append(SkippedEntry(path: relative, reason: "a named pipe (FIFO), not a regular file"))
                case S_IFSOCK: skipped.append(SkippedEntry(path: relative, reason: "a socket, not a regular file"))
                case S_IFCHR, S_IFBLK: skipped.append(SkippedEntry(path: relative, reason: "a device, not a regular file"))
                default: skipped.append(SkippedEntry(path: relative, reason: "not a regular file"))
                }
            }
            pending.append(contentsOf: subfolders.reversed())
        }
        return (entries, skipped)
    }

    /// Why a symlink is not followed, or nil when it leads to a regular file inside the root.
    private static func symlinkProblem(_ path: String, root: String) -> String? {
        guard let target = realPath(path) else { return "a broken symlink" }
        guard target.hasPrefix(root + "/") else { return "a symlink to a place outside the folder" }
        var info = stat()
        guard stat(target, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return "a symlink to something that is not a regular file" }
        return nil
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
