import Foundation
import PreviewCore
@testable import PreviewRenderers
import PreviewTestSupport
import Testing

/// What a renderer child's death says: the file's fault, or the disk's.
@Suite struct RendererCrashTests {
    /// A child that dies while writing to a full disk (libvips' pyramid tiles through mapped files
    /// die by SIGSEGV there) is the disk's fault: `storage_full`, which is tried again later and never
    /// remembered against the file. With room left, the file crashed it.
    @Test func aCrashWritingToAFullDiskIsTheDisks() throws {
        guard let disk = try SmallDisk.mount(megabytes: 128) else {
            Issue.record("mounting a tmpfs needs root (CAP_SYS_ADMIN); CI runs as root")
            return
        }
        let output = disk.url.appendingPathComponent("pyramid-1/tiles").path
        #expect(RendererPool.crashError(signal: SIGSEGV, output: output).code == .corrupt, "room left: the file crashed it")
        #expect(RendererPool.crashError(signal: SIGSEGV, output: nil).code == .corrupt, "a call that writes nothing")
        disk.fill()
        let full = RendererPool.crashError(signal: SIGSEGV, output: output)
        #expect(full.code == .storageFull && full.detail == "signal 11", "\(full)")
        disk.free()
        #expect(RendererPool.crashError(signal: SIGBUS, output: output).code == .corrupt, "room again")
    }
}
