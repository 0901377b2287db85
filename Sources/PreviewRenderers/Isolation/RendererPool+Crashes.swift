import Foundation
import PreviewCore

/// What a renderer child's death is put down to: the file, or a disk that ran out under it.
extension RendererPool {
    /// What a child's death by `signal` during a call says. While it wrote to `output` on a disk that
    /// is (nearly) full, the disk is to blame, not the file: libraries that write through mapped
    /// files die by SIGBUS or SIGSEGV when the disk runs out under them. That is `storage_full`
    /// (507, tried again later, never remembered against the file); otherwise the file crashed it.
    static func crashError(signal: Int32, output: String?) -> PreviewError {
        if let output, isNearlyFull(near: output) {
            return PreviewError(.storageFull, "There is no room left to write the preview: the disk is full.", detail: "signal \(signal)")
        }
        return PreviewError(.corrupt, "The file crashed the renderer (signal \(signal)); it is probably damaged.", detail: "signal \(signal)")
    }

    /// Free bytes below which a disk counts as full when a child dies writing to it.
    static let nearlyFullBytes = 64 << 20

    /// Whether the file system of `path` has under ``nearlyFullBytes`` free (false when it cannot be told).
    static func isNearlyFull(near path: String) -> Bool {
        freeBytes(near: path).map { $0 < nearlyFullBytes } ?? false
    }

    /// The bytes free to unprivileged writers on the file system of `path` (or of the nearest folder above it that exists).
    private static func freeBytes(near path: String) -> Int? {
        var folder = URL(fileURLWithPath: path)
        var info = statvfs()
        while statvfs(folder.path, &info) != 0 {
            guard folder.path != "/" else { return nil }
            folder.deleteLastPathComponent()
        }
        let (bytes, overflow) = UInt64(info.f_bavail).multipliedReportingOverflow(by: UInt64(info.f_frsize))
        return overflow ? Int.max : Int(clamping: bytes)
    }
}
