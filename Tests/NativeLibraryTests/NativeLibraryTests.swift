import PreviewFFmpeg
import PreviewPoppler
import PreviewTestSupport
import PreviewVips
import Testing

/// Each C library is linked, opens a real sample, reads one fact, and reports failures as typed errors.
@Suite struct FFmpegTests {
    @Test func readsStreamsAndDuration() throws {
        let input = try MediaInput(path: Fixtures.sample("video-h264.mp4").path)
        #expect(input.streamCount == 2)
        #expect(abs((input.durationSeconds ?? 0) - 3) < 0.1)
    }

    @Test func truncatedFileThrows() {
        #expect(throws: FFmpegError.self) { try MediaInput(path: Fixtures.sample("bad-truncated.mov").path) }
    }
}

@Suite struct PopplerTests {
    @Test func countsPages() throws {
        #expect(try PDFDocument(path: Fixtures.sample("document-5-pages.pdf").path).pageCount == 5)
    }

    @Test func userPasswordIsEncrypted() throws {
        let path = Fixtures.sample("bad-encrypted.pdf").path
        #expect { try PDFDocument(path: path) } throws: { ($0 as? PDFError)?.reason == .encrypted }
        #expect(try PDFDocument(path: path, password: "secret").pageCount == 5)
    }

    @Test func notAPDFThrows() {
        #expect(throws: PDFError.self) { try PDFDocument(path: Fixtures.sample("bad-zip-named.pdf").path) }
    }
}

@Suite struct VipsTests {
    @Test func readsHeader() throws {
        let image = try VipsImageRef.header(path: Fixtures.sample("image-alpha.png").path, load: .png)
        #expect(image.width == 320 && image.height == 200)
        #expect(Vips.version.hasPrefix("8."))
    }

    @Test func unreadableFileThrowsWithMessage() {
        #expect { try VipsImageRef.header(path: Fixtures.sample("bad-zip-named.pdf").path, load: .png) } throws: {
            !(($0 as? VipsError)?.message.isEmpty ?? true)
        }
    }
}
