import Foundation
import PreviewCore
import PreviewRenderers
import PreviewTestSupport
import PreviewVips
import Testing

/// Files that name other files or URLs: a renderer must read the file it is given and nothing else.
/// Each input here worked as an attack before FFmpeg's demuxers, libvips's loaders and librsvg's
/// base folder were pinned down.
@Suite(.blocking) struct HostileReferenceTests {
    private static let video = Fixtures.sample("video-h264.mp4").path

    /// Media kinds the pipeline accepts, so every extension a stranger may upload under.
    private static let mediaKinds = FileKind.allCases.filter { [.video, .audio].contains($0.category) }

    private static func playlists(naming target: String) -> [(name: String, text: String)] {
        [
            ("hls", "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:10\n#EXTINF:3.0,\n\(target)\n#EXT-X-ENDLIST\n"),
            ("hls-file-url", "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:3.0,\nfile://\(target)\n#EXT-X-ENDLIST\n"),
            ("ffconcat", "ffconcat version 1.0\nfile '\(target)'\n"),
            ("concat", "file '\(target)'\nduration 3\n")
        ]
    }

    /// The reported attack: 104 bytes named `.mp3`, an ID3 header then an HLS playlist naming a
    /// video elsewhere on the disk; the server returned that video's frame as the preview.
    @Test func hlsAfterID3DoesNotReadTheFileItNames() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let id3: [UInt8] = Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 0]  // ID3v2.4 header, empty tag
        let file = try folder.file("song.mp3", id3 + Array(Self.playlists(naming: Self.video)[0].text.utf8))
        let kind = try Validator().validate(fileAt: file).kind
        #expect(kind == .mp3)
        let renderer = try #require(Renderers().renderer(for: kind))
        #expect(throws: PreviewError.self) { try renderer.render(file.path, RenderRequest(width: 4096)) }
        #expect(throws: PreviewError.self) { try renderer.probe(file.path) }
    }

    /// A playlist or concat script under every media kind the renderer takes: FFmpeg reads it with
    /// that kind's demuxer only, so it never becomes a list of files to open.
    @Test(arguments: mediaKinds) func playlistsUnderEveryMediaKindOpenNothing(kind: FileKind) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let renderer = Renderers().video.reading(kind)
        for playlist in Self.playlists(naming: Self.video) {
            let file = try folder.file("\(playlist.name).\(kind.extensions.first ?? "bin")", Array(playlist.text.utf8))
            #expect(throws: PreviewError.self, "\(playlist.name) as \(kind)") { try renderer.render(file.path, RenderRequest()) }
        }
    }

    /// Without a kind (FFmpeg probes), only the demuxers of real containers take part.
    @Test func probingSkipsPlaylistDemuxers() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for playlist in Self.playlists(naming: Self.video) {
            let file = try folder.file("\(playlist.name).m3u8", Array(playlist.text.utf8))
            #expect(throws: PreviewError.self, "\(playlist.name)") { try Renderers().video.render(file.path, RenderRequest()) }
        }
        // Real containers still open when FFmpeg probes among the allowed demuxers.
        #expect(try Renderers().video.render(Self.video, RenderRequest()).width == 512)
    }

    /// An SVG next to another stored file (blobs share folders) linking to it by absolute and by
    /// relative path, and to a loopback URL: none of them is loaded or contacted.
    @Test func svgLinksAreNotFollowed() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let black = try folder.file("black.png", Array(try Data(contentsOf: Fixtures.sample("image-alpha.png"))))
        let tripwire = try OpenTripwire(in: folder.url)
        let listener = try LoopbackListener()
        let links = [
            black.path, "file://\(black.path)", "black.png", tripwire.path, "file://\(tripwire.path)",
            "http://127.0.0.1:\(listener.port)/x.png"
        ]
        for link in links {
            let svg = """
                <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="64" height="64">\
                <rect width="64" height="64" fill="white"/><image xlink:href="\(link)" width="64" height="64"/>\
                <image href="\(link)" width="64" height="64"/></svg>
                """
            let file = try folder.file("linked.svg", Array(svg.utf8))
            let image = try Renderers().renderer(for: .svg)!.render(file.path, RenderRequest(format: .png))
            let pixels = try VipsImageRef.header(path: try folder.file("out.png", image.bytes).path, load: .png).pixels()
            #expect(pixels.lumaStatistics().mean > 250, "\(link) was drawn into the preview")
        }
        #expect(tripwire.opens == 0)
        #expect(listener.connections == 0)
    }

    /// libvips reads a file with the loader of the kind detection found, or not at all.
    @Test func imagesAreReadByTheirOwnKindsLoaderOnly() throws {
        let tiff = Fixtures.sample("image.tiff").path
        #expect(throws: PreviewError.self) { try Renderers().image.reading(.jpeg).render(tiff, RenderRequest()) }
        #expect(throws: PreviewError.self) { try Renderers().image.reading(.png).probe(tiff) }
        #expect(try Renderers().image.reading(.tiff).probe(tiff).width != nil)
    }

    /// Loaders outside ``VipsLoad``'s list are blocked in libvips itself, whatever asks for them.
    @Test func otherLoadersAreBlocked() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let csv = try folder.file("table.csv", Array("1,2,3\n4,5,6\n".utf8))
        let ppm = try folder.file("image.ppm", Array("P3\n2 1\n255\n255 0 0 0 255 0\n".utf8))
        for (file, loader) in [(csv, "VipsForeignLoadCsvFile"), (ppm, "VipsForeignLoadPpmFile")] {
            #expect(throws: VipsError.self, "\(loader)") {
                _ = try VipsImageRef.header(path: file.path, load: VipsLoad(loader: loader, fromStream: false)).pixels()
            }
        }
    }

    /// A PDF whose open action launches a file and whose link points into another PDF: rendering
    /// and probing open neither.
    @Test func pdfActionsOpenNothing() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let tripwire = try OpenTripwire(in: folder.url, name: "other.pdf")
        let pdf = MinimalPDF.page(
            objects: [
                "<< /Type /Action /S /Launch /F (\(tripwire.path)) /NewWindow true >>",
                "<< /Type /Annot /Subtype /Link /Rect [0 0 200 200] /A << /S /GoToR /F (\(tripwire.path)) /D [0 /Fit] >> >>",
                "<< /Type /Filespec /F (\(tripwire.path)) /UF (\(tripwire.path)) >>"
            ], catalogExtras: "/OpenAction 4 0 R", pageExtras: "/Annots [5 0 R]")
        let file = try folder.file("actions.pdf", pdf)
        let renderer = try #require(Renderers().renderer(for: .pdf))
        #expect(try renderer.probe(file.path).pages == 1)
        _ = try renderer.render(file.path, RenderRequest())
        // No wait needed: opening the FIFO to read blocks until the tripwire has opened (and counted) its write end.
        #expect(tripwire.opens == 0)
    }
}

/// A one-page PDF with a correct cross-reference table: objects 1–3 are the catalog, the page tree
/// and the page; `objects` follow as 4, 5, …
enum MinimalPDF {
    static func page(objects extra: [String], catalogExtras: String = "", pageExtras: String = "") -> [UInt8] {
        let objects =
            [
                "<< /Type /Catalog /Pages 2 0 R \(catalogExtras) >>",
                "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] \(pageExtras) >>"
            ] + extra
        return PDFWriter.document(objects)
    }
}
