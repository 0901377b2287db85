import Foundation
import PreviewCore
import PreviewRenderers
import PreviewTestSupport
import PreviewVips
import Testing

/// Office documents, text and CSV through their PDF pivot (made by LibreOffice in an office child
/// of the `docpreview` built beside this test bundle), decoded back to pixels.
@Suite struct OfficeRendererTests {
    private let renderers = Renderers()

    private func render(_ url: URL, _ request: RenderRequest = RenderRequest()) async throws -> RenderedImage {
        let kind = try Validator().validate(fileAt: url).kind
        return try await #require(renderers.renderer(for: kind, on: .forTests)).render(url.path, request)
    }

    private func pixels(_ image: RenderedImage) throws -> PixelBuffer {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = try folder.file("page.jpg", image.bytes)
        return try VipsImageRef.header(path: file.path, load: .jpeg).pixels()
    }

    /// Every office sample: page 1 has content, and so has page 2 where there is one.
    @Test(arguments: [
        ("office-report.docx", 2), ("office-letter.odt", 3), ("office-letter.rtf", 3), ("office-stats.xlsx", 2),
        ("office-stats.xls", 2), ("office-stats.ods", 2), ("office-slides.pptx", 2), ("office-roster.csv", 1),
        ("office-roster-latin1.csv", 1), ("office-transcript-utf16.txt", 3), ("resume.docx", 1), ("stats.csv", 1)
    ])
    func pagesHaveContent(sample: String, pages: Int) async throws {
        let first = try await render(Fixtures.sample(sample))
        #expect(first.facts.pages == pages, "\(sample)")
        #expect(try pixels(first).lumaStatistics().deviation > 5, "\(sample) page 1 looks blank")
        if pages > 1 {
            let second = try await render(Fixtures.sample(sample), RenderRequest(page: 2))
            #expect(try pixels(second).lumaStatistics().deviation > 5, "\(sample) page 2 looks blank")
        }
        await #expect(throws: PreviewError.self) { try await render(Fixtures.sample(sample), RenderRequest(page: pages + 1)) }
    }

    @Test func sheetsAndSlidesAreCounted() async throws {
        #expect(try await render(Fixtures.sample("office-stats.xlsx")).facts.sheets == 2)
        #expect(try await render(Fixtures.sample("office-slides.pptx")).facts.slides == 2)
    }

    /// The Latin-1 roster reads as the UTF-8 one does: same names, same table, same page.
    @Test func csvEncodingsGiveTheSameTable() async throws {
        let utf8 = try pixels(await render(Fixtures.sample("office-roster.csv"), RenderRequest(width: 600)))
        let latin1 = try pixels(await render(Fixtures.sample("office-roster-latin1.csv"), RenderRequest(width: 600)))
        #expect(utf8.width == latin1.width && utf8.height == latin1.height)
        // The Latin-1 file lacks one row (a Polish name Latin-1 cannot spell); the rest is drawn alike.
        let alike = zip(utf8.bytes, latin1.bytes).filter { abs(Int($0) - Int($1)) <= 8 }.count
        #expect(Double(alike) / Double(utf8.bytes.count) > 0.97)
    }

    /// Pictures linked to a local image, to a FIFO that counts opens and to a listening loopback
    /// port, and a template on that port: nothing is opened, read or connected to, and the page
    /// shows no picture (it would be coloured; the page is black text on white).
    @Test func aDocumentReachesNothingItLinksTo() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let tripwire = try OpenTripwire(in: folder.url, name: "linked.png")
        let listener = try LoopbackListener()
        let localImage = Fixtures.sample("image-alpha.png").path
        let document = OfficePackages.docx(
            body: OfficePackages.paragraph("Linked pictures below.") + OfficePackages.linkedPicture("rIdL")
                + OfficePackages.linkedPicture("rIdF") + OfficePackages.linkedPicture("rIdN"),
            relationships: OfficePackages.imageRelationship("rIdL", "file://\(localImage)")
                + OfficePackages.imageRelationship("rIdF", "file://\(tripwire.path)")
                + OfficePackages.imageRelationship("rIdN", "http://127.0.0.1:\(listener.port)/photo.png"),
            settingsRelationships: OfficePackages.templateRelationship("http://127.0.0.1:\(listener.port)/template.dotx"))
        let input = try folder.file("linked.docx", document)
        let page = try pixels(await render(input, RenderRequest(width: 400)))
        usleep(300_000)  // no event ends a wait for what must not happen: a connection may sit in the listener's backlog until its next 20 ms poll
        #expect(tripwire.opens == 0, "LibreOffice opened a file the document links to")
        #expect(listener.connections == 0, "LibreOffice connected to an address the document links to")
        #expect(colourfulness(page) < 2, "the linked local image was drawn")
    }

    /// Mean difference between a pixel's largest and smallest channel: 0 for greys.
    private func colourfulness(_ pixels: PixelBuffer) -> Double {
        var total = 0
        for index in stride(from: 0, to: pixels.bytes.count - 2, by: pixels.bands) {
            let channels = pixels.bytes[index..<index + 3]
            total += Int(channels.max()!) - Int(channels.min()!)
        }
        return Double(total) / Double(pixels.width * pixels.height)
    }
}
