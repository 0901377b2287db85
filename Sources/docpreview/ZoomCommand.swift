import ArgumentParser
import Foundation
import PreviewCore
import PreviewRenderers
import PreviewServer

/// `docpreview zoom INPUT REQUEST -o OUT`: one IIIF image request (`{region}/{size}/{rotation}/{quality}.{format}`)
/// of an image, or of a page of a PDF or office document at `--dpi`, no store.
struct ZoomCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "zoom",
        abstract: "Render one IIIF Image API request (a region, scaled and turned) of an image or a page.",
        discussion: """
            REQUEST is what follows the identifier in a IIIF URL, e.g. 1000,1000,1024,1024/max/0/default.jpg or \
            full/!800,800/90/gray.png. A page's full size is its size at --dpi (600 by default), as `serve` gives it \
            in info.json. An image is cut from the pyramid at --pyramid when given (written first when missing), \
            else from the image itself. Videos are zoomed through `serve` (their poster frame).
            """
    )

    @Argument(help: "The image, PDF or office document.")
    var input: String

    @Argument(help: ArgumentHelp("{region}/{size}/{rotation}/{quality}.{format}", valueName: "request"))
    var request: String

    @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the image.", valueName: "file"))
    var output: String

    @Option(help: "The page, from 1 (paged documents).")
    var page = 1

    @Option(help: ArgumentHelp("The resolution a page's full size is given at.", valueName: "dpi"))
    var dpi = IIIFService.defaultDPI

    @Option(help: ArgumentHelp("An image's tiled pyramid (`docpreview pyramid`), made now when the file is missing.", valueName: "file"))
    var pyramid: String?

    @OptionGroup var validation: ValidationOptions

    @Flag(help: "Print {\"output\",\"width\",\"height\",\"ms\"} or the error object.")
    var json = false

    func validate() throws {
        guard page >= 1 else { throw ValidationError("--page starts at 1.") }
        guard (72...2400).contains(dpi) else { throw ValidationError("--dpi must be in 72…2400.") }
        guard request.split(separator: "/", omittingEmptySubsequences: false).count == 4 else {
            throw ValidationError("REQUEST is {region}/{size}/{rotation}/{quality}.{format}.")
        }
    }

    func run() throws {
        let started = ContinuousClock.now
        OneFileHeap.prepare()
        let report = CommandReport(json: json)
        let (configuration, verdict) = try validation.settings.admit(input, reporting: report)
        // One open document for the page's size and its region.
        let renderers = Renderers(limits: configuration.limits, openDocuments: 1)
        let command = self
        // Awaited: an office document's page comes from its pivot, which a child makes.
        Main.finish {
            let rendered = try await report.attempt { () async throws -> RenderedImage in try await command.zoomed(verdict.kind, renderers) }
            try RenderReport.deliver(rendered, to: command.output, since: started, report: report)
        }
    }

    /// The image the request asks for of the input, a file of `kind`.
    private func zoomed(_ kind: FileKind, _ renderers: Renderers) async throws -> RenderedImage {
        var (path, kind) = (input, kind)
        guard let renderer = renderers.renderer(for: kind, on: .commandLine), kind.isPaged || kind.category == .image else {
            throw PreviewError(.unsupportedType, "No zoomable image is made of \(kind.label) here.")
        }
        let facts = try await renderer.probe(path, page: page)
        var full = (width: facts.width ?? 1, height: facts.height ?? 1)
        if kind.isPaged {
            let points = (width: Double(full.width), height: Double(full.height))
            guard let size = ImageRegion.pageSize(points: points, dpi: dpi) else { throw ImageRegion.pageTooLarge(points: points, dpi: dpi) }
            full = size
        }
        let parts = request.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let wanted: IIIFImageRequest
        do throws(IIIFImageRequest.Refusal) {
            wanted = try IIIFImageRequest(
                region: parts[0], size: parts[1], rotation: parts[2], file: parts[3], width: full.width,
                height: full.height)
        } catch {
            switch error {
            case let .badRequest(message): throw PreviewError(.badRequest, message)
            case let .notImplemented(message): throw PreviewError(.notImplemented, message)
            }
        }
        var region = wanted.region
        if kind.isPaged { region.pageDPI = dpi }
        if let pyramid, !kind.isPaged {
            if !FileManager.default.fileExists(atPath: pyramid) { _ = try await renderers.pyramid(path, kind: kind, to: pyramid, on: .commandLine) }
            (path, kind, region.fromPyramid) = (pyramid, .tiff, true)
        }
        var renderRequest = RenderRequest(page: page, format: wanted.format)
        renderRequest.region = region
        return try await (renderers.renderer(for: kind, on: .commandLine) ?? renderer).render(path, renderRequest)
    }
}
