import PreviewCore

/// A renderer whose work runs in a ``RendererPool`` child; its version is the in-process
/// renderer's, so derivatives are shared between isolated and in-process runs.
struct IsolatedRenderer: AsyncRenderer {
    let local: any Renderer
    let kind: FileKind
    let pool: RendererPool
    let offload: Offload

    var version: String { local.version }

    func probe(_ path: String) async throws(PreviewError) -> MediaFacts {
        try await pool.probe(path, kind: kind, on: offload)
    }

    func probe(_ path: String, page: Int) async throws(PreviewError) -> MediaFacts {
        try await pool.probe(path, kind: kind, page: page, on: offload)
    }

    func render(_ path: String, _ request: RenderRequest) async throws(PreviewError) -> RenderedImage {
        try await pool.render(path, kind: kind, request, on: offload)
    }
}
