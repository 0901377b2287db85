import Foundation
import PreviewTestSupport
import Testing

/// FFmpeg, Poppler, libvips (and glib under them) are opened when a file needs them, not at process start
/// (Sources/CNativeLoader): the dynamic loader's own trace (LD_DEBUG=files) says which were loaded.
@Suite(.blocking) struct NativeLoadingTests {
    private func loadedLibraries(_ arguments: [String], status: Int32 = 0) throws -> String {
        let result = try DocPreviewProcess.run(arguments, environment: ["LD_DEBUG": "files"])
        #expect(result.status == status, "\(result.stderr.suffix(2000))")
        return result.stderr
    }

    @Test func detectionAloneLoadsNoRenderingLibrary() throws {
        // A ZIP named .pdf is refused by detection: nothing is rendered or probed.
        let trace = try loadedLibraries(["info", Fixtures.sample("bad-zip-named.pdf").path], status: 3)
        #expect(trace.contains("libsqlite3"), "the trace lists what was loaded")
        for library in [
            "libavformat.so", "libavcodec.so", "libDocPreviewSplash.so", "libpoppler.so", "libcairo.so", "libvips.so", "libmergedlo.so",
            "libglib-2.0.so", "libgobject-2.0.so"
        ] {
            #expect(!trace.contains(library), "\(library) was loaded to refuse a file")
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
        #expect(trace.contains("libjpeg.so"))
        #expect(!trace.contains("libvips.so"), "frames are encoded without libvips")
        #expect(!trace.contains("libpoppler"))
    }

    @Test(arguments: ["jpeg", "png", "webp"]) func aPDFPageLoadsPopplerAndItsEncoderButNotLibvips(format: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let trace = try loadedLibraries([
            "render", Fixtures.sample("document-5-pages.pdf").path, "--page", "2", "--format", format,
            "-o", folder.url.appendingPathComponent("p.\(format)").path
        ])
        #expect(trace.contains("libDocPreviewSplash.so"))
        #expect(trace.contains("libpoppler.so"))
        for library in ["libpoppler-glib.so", "libcairo.so", "libglib-2.0.so", "libgobject-2.0.so"] {
            #expect(!trace.contains(library), "\(library): pages are drawn by Splash, without cairo or glib")
        }
        #expect(!trace.contains("libvips.so"), "pages are encoded without libvips")
        #expect(!trace.contains("libavformat.so"))
        // Poppler brings libjpeg and libpng itself; the encoder asked for is there either way.
        #expect(trace.contains(["jpeg": "libjpeg.so", "png": "libpng16.so", "webp": "libwebp.so"][format]!))
    }
}
