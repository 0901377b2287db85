import PreviewCore

/// A renderer whose work runs in a ``RendererPool`` child; its version is the in-process
/// renderer's, so derivatives are shared between isolated and in-process runs.
struct IsolatedRenderer: Renderer {
    let local: any Renderer
    let kind: FileKind
    let pool: RendererPool

    var version: String { local.version }

    func probe(_ path: String) throws(PreviewError) -> MediaFacts {
        try pool.probe(path, kind: kind)
    }

    func probe(_ path: String, page: Int) throws(PreviewError) -> MediaFacts {
        try pool.probe(path, kind: kind, page: page)
    }

    func render(_ path: String, _ request: RenderRequest) throws(PreviewError) -> RenderedImage {
        try pool.render(path, kind: kind, request)
    }
}
