import Foundation
import PreviewCore
@testable import PreviewRenderers
import PreviewTestSupport
import Testing

/// What a renderer child's death says: the file's fault, or the disk's.
@Suite(.blocking) struct RendererCrashTests {
    /// A child that dies while writing to a full disk (libvips' pyramid tiles through mapped files
    /// die by SIGSEGV there) is the disk's fault: `storage_full`, which is tried again later and never
    /// remembered against the file. With room left, the file crashed it.
    @Test func aCrashWritingToAFullDiskIsTheDisks() throws {
        let disk = try SmallDisk.mount(megabytes: 128)
        let output = disk.url.appendingPathComponent("pyramid-1/tiles").path
        #expect(RendererPool.crashError(signal: SIGSEGV, output: output).code == .corrupt, "room left: the file crashed it")
        #expect(RendererPool.crashError(signal: SIGSEGV, output: nil).code == .corrupt, "a call that writes nothing")
        disk.fill()
        let full = RendererPool.crashError(signal: SIGSEGV, output: output)
        #expect(full.code == .storageFull && full.detail == "signal 11", "\(full)")
        disk.free()
        #expect(RendererPool.crashError(signal: SIGBUS, output: output).code == .corrupt, "room again")
    }

    /// A ladder rung whose playlist names bytes its media file lacks (a muxer that lost writes) is
    /// never recorded: on a full disk it is `storage_full`, to be made again once there is room.
    @Test func aRungWhosePlaylistOutrunsItsMediaIsRefused() throws {
        let disk = try SmallDisk.mount(megabytes: 128)
        let (playlist, media) = (disk.url.appendingPathComponent("360p.m3u8"), disk.url.appendingPathComponent("360p.mp4"))
        try Data(repeating: 1, count: 1000).write(to: media)
        func write(_ ranges: [String]) throws {
            let lines =
                ["#EXTM3U", #"#EXT-X-MAP:URI="360p.mp4",BYTERANGE="100@0""#]
                + ranges.flatMap { ["#EXTINF:2.0,", "#EXT-X-BYTERANGE:\($0)", "360p.mp4"] }
            try Data(lines.joined(separator: "\n").utf8).write(to: playlist)
        }
        try write(["400@100", "500@500"])
        #expect(throws: Never.self) { try VideoLadder.check(playlist: playlist, media: media) }
        for broken in [["400@100", "500@600"], []] {
            try write(broken)
            let roomy = #expect(throws: PreviewError.self) { try VideoLadder.check(playlist: playlist, media: media) }
            #expect(roomy?.code == .internal, "\(broken): room left, the muxer is to blame")
        }
        try write(["400@100", "500@600"])
        disk.fill()
        let full = #expect(throws: PreviewError.self) { try VideoLadder.check(playlist: playlist, media: media) }
        #expect(full?.code == .storageFull)
    }
}
