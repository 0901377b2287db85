import PreviewCore

/// A kind's renderer as the pipeline and the commands await it; its work never runs on the caller's
/// thread. An in-process renderer's calls run on the renders lane of an ``Offload``, an isolated
/// one's in a ``RendererPool`` child, an office document's in an office child and then the PDF path.
package protocol AsyncRenderer: Sendable {
    /// The version of the renderer behind it (``Renderer/version``): part of every derivative's cache key.
    var version: String { get }
    /// Facts about the file without rendering (page count, duration, dimensions).
    func probe(_ path: String) async throws(PreviewError) -> MediaFacts
    /// Facts about page `page` of the file.
    func probe(_ path: String, page: Int) async throws(PreviewError) -> MediaFacts
    /// Renders the request. Throws a `PreviewError` with a stable code.
    func render(_ path: String, _ request: RenderRequest) async throws(PreviewError) -> RenderedImage
}

/// An in-process renderer whose calls run on the renders lane.
struct OffloadedRenderer: AsyncRenderer {
    let local: any Renderer
    let offload: Offload

    var version: String { local.version }

    func probe(_ path: String) async throws(PreviewError) -> MediaFacts {
        try await offload.render { [local] () throws(PreviewError) in try local.probe(path) }
    }

    func probe(_ path: String, page: Int) async throws(PreviewError) -> MediaFacts {
        try await offload.render { [local] () throws(PreviewError) in try local.probe(path, page: page) }
    }

    func render(_ path: String, _ request: RenderRequest) async throws(PreviewError) -> RenderedImage {
        try await offload.render { [local] () throws(PreviewError) in try local.render(path, request) }
    }
}
