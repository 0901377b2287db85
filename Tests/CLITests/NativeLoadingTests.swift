import Foundation
import PreviewTestSupport
import Testing

/// FFmpeg, Poppler and libvips are opened when a file needs them, not at process start
/// (Sources/CNativeLoader): the dynamic loader's own trace (LD_DEBUG=files) says which were loaded.
@Suite struct NativeLoadingTests {
    private func loadedLibraries(_ arguments: [String]) throws -> String {
        let result = try DocPreviewProcess.run(arguments, environment: ["LD_DEBUG": "files"])
        #expect(result.status == 0, "\(result.stderr.suffix(2000))")
        return result.stderr
    }

    @Test func detectionAloneLoadsNoRenderingLibrary() throws {
        let trace = try loadedLibraries(["info", Fixtures.sample("stats.csv").path])
        #expect(trace.contains("libsqlite3"), "the trace lists what was loaded")
        for library in ["libavformat.so", "libavcodec.so", "libpoppler-glib.so", "libcairo.so", "libvips.so"] {
            #expect(!trace.contains(library), "\(library) was loaded to look at a CSV file")
        }
    }

    @Test func anImageLoadsLibvipsButNotFFmpeg() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let trace = try loadedLibraries(["render", Fixtures.sample("image.webp").path, "-o", folder.url.appendingPathComponent("t.jpg").path])
        #expect(trace.contains("libvips.so"))
        #expect(!trace.contains("libavformat.so"))
    }

    @Test func aVideoLoadsFFmpeg() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let trace = try loadedLibraries(["render", Fixtures.sample("video-h264.mp4").path, "-o", folder.url.appendingPathComponent("t.jpg").path])
        #expect(trace.contains("libavformat.so"))
        #expect(trace.contains("libswscale.so"))
    }
}
