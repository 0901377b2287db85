import Foundation
#if canImport(Glibc)
    import Glibc
#endif
import PreviewStore

/// A file a batch will ingest: where it is, and its path relative to the batch root (its title).
package struct BatchEntry: Sendable {
    package var url: URL
    package var relativePath: String
    /// The regular file the walk found: `url`'s own, or its symlink's target inside the root.
    package var file: FileIdentity
    /// Where that file is read from: `url`, or the symlink's resolved target (opened without following links).
    package var source: URL
}

/// Something in the folder that is not ingested, and why.
package struct SkippedEntry: Sendable, Encodable {
    package var path: String
    package var reason: String
}

/// Lists a folder's regular files recursively without ever leaving it: symlinks are followed only
/// to regular files inside the root, symlinked folders never (no loops), and FIFOs, sockets and
/// devices are skipped without being opened (opening a FIFO would block).
public enum DirectoryWalker {
    package static func walk(_ root: URL) throws -> (entries: [BatchEntry], skipped: [SkippedEntry]) {
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
                case S_IFREG:
                    entries.append(
                        BatchEntry(
                            url: URL(fileURLWithPath: path), relativePath: relative, file: FileIdentity(info),
                            source: URL(fileURLWithPath: path)))
                case S_IFLNK:
                    switch followSymlink(path, root: resolvedRoot) {
                    case let .failure(problem): skipped.append(SkippedEntry(path: relative, reason: problem.reason))
                    case let .success((target, identity)):
                        entries.append(
                            BatchEntry(
                                url: URL(fileURLWithPath: path), relativePath: relative, file: identity,
                                source: URL(fileURLWithPath: target)))
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

    struct SymlinkProblem: Error {
        var reason: String
    }

    /// The symlink's target and its identity when it is a regular file inside the root; else why it is not followed.
    private static func followSymlink(_ path: String, root: String) -> Result<(String, FileIdentity), SymlinkProblem> {
        guard let target = realPath(path) else { return .failure(SymlinkProblem(reason: "a broken symlink")) }
        guard target.hasPrefix(root + "/") else { return .failure(SymlinkProblem(reason: "a symlink to a place outside the folder")) }
        guard let identity = FileIdentity(regularFileAt: target) else {
            return .failure(SymlinkProblem(reason: "a symlink to something that is not a regular file"))
        }
        return .success((target, identity))
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
