import PreviewFFmpeg
import PreviewPoppler
import PreviewTestSupport
import PreviewVips
import Testing

/// Each C library is linked, opens a real sample, reads one fact, and reports failures as typed errors.
@Suite(.blocking) struct FFmpegTests {
    @Test func readsStreamsAndDuration() throws {
        let input = try MediaInput(path: Fixtures.sample("video-h264.mp4").path)
        #expect(input.streamCount == 2)
        #expect(abs((input.durationSeconds ?? 0) - 3) < 0.1)
    }

    @Test func truncatedFileThrows() {
        #expect(throws: FFmpegError.self) { try MediaInput(path: Fixtures.sample("bad-truncated.mov").path) }
    }

    /// An MPEG program stream whose only stream map names streams that never come: it opens, then
    /// stream information fails. The initialiser closed the input before throwing and `deinit`
    /// closed it again (SIGSEGV in `docpreview info`; a double free under ASan).
    @Test func aFileThatOpensButHasNoStreamInformationIsClosedOnce() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = try folder.file("empty-program.mpg", Self.programStreamWithoutElementaryStreams)
        for _ in 0..<3 { #expect(throws: FFmpegError.self) { try MediaInput(path: file.path, format: "mpeg") } }
    }

    /// A pack header, a system header announcing a video and an audio stream, then pack headers only.
    static let programStreamWithoutElementaryStreams: [UInt8] = {
        let pack: [UInt8] = [0, 0, 1, 0xBA, 0x44, 0, 4, 0, 4, 1, 1, 0x89, 0xC3, 0xF8]
        let systemHeader: [UInt8] = [0, 0, 1, 0xBB, 0, 0x0C, 0x80, 0, 1, 4, 0xE1, 0xFF, 0xB9, 0xE0, 0, 0xB8, 0xC0, 0]
        return pack + systemHeader + Array([[UInt8]](repeating: pack, count: 100).joined())
    }()
}

@Suite(.blocking) struct PopplerTests {
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

@Suite(.blocking) struct VipsTests {
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
