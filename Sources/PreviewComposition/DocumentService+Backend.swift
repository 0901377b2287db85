import Logging
import PreviewCore
import PreviewDocuments
import PreviewPipeline
import PreviewRenderers
import PreviewStore

extension DocumentService {
    /// The one place a document service is put together; every command, `serve`, `worker` and the
    /// tests come here: a pipeline over `backend`'s store that holds documents to `configuration`
    /// and renders in `renderers`' children (nil: in this process, keeping up to `openDocuments`
    /// PDFs open between renders), with `backend`'s queue, downloads and resumable uploads.
    /// - Parameter arrivals: set where this process has workers or fetchers to tell of new work.
    /// - Parameter offload: where its blocking work runs (renders, copies into the store).
    public init(
        backend: StoreBackend, configuration: Configuration = Configuration(), renderers: RendererPool? = nil,
        openDocuments: Int = 0, offload: Offload, arrivals: JobArrivals? = nil, clock: any ServiceClock = SystemClock(), logger: Logger
    ) {
        let pipeline = DocumentPipeline(
            store: backend.store, configuration: configuration, openDocuments: openDocuments,
            isolation: renderers, offload: offload, clock: clock, logger: logger)
        self.init(pipeline: pipeline, queue: backend.queue, arrivals: arrivals, downloads: backend.downloads, uploads: backend.uploads)
    }
}
