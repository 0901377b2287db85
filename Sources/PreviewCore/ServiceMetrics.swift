import Metrics

/// Every metric DocPreview exports, each name and its labels written once here: a call site says
/// what happened (`ServiceMetrics.jobs(outcome: "done")`), never how the metric is spelled. `serve`
/// exports them in Prometheus's text at `/metrics` (the registry its server bootstraps); where no
/// registry is bootstrapped (the CLI's one-shot commands) they cost nothing. Beside each, the values
/// its labels take where they are written out (`…`: and others its callers compute, such as a
/// kind, a status code or a reason's name).
package enum ServiceMetrics {
    // MARK: Uploads and documents

    /// `docpreview_uploads_total{outcome}`; outcome: `accepted`, `refused`, `too_large`.
    package static func uploads(outcome: String, by amount: Int = 1) {
        Counter(label: "docpreview_uploads_total", dimensions: [("outcome", outcome)]).increment(by: amount)
    }

    /// `docpreview_resumable_uploads_total{front}`; front: `tus`, ….
    package static func resumableUploads(front: String, by amount: Int = 1) {
        Counter(label: "docpreview_resumable_uploads_total", dimensions: [("front", front)]).increment(by: amount)
    }

    /// `docpreview_resumable_appends_total{front, outcome}`; outcome: `kept`, ….
    package static func resumableAppends(front: String, outcome: String, by amount: Int = 1) {
        Counter(label: "docpreview_resumable_appends_total", dimensions: [("front", front), ("outcome", outcome)]).increment(by: amount)
    }

    /// `docpreview_upload_parts_damaged_total`.
    package static func uploadPartsDamaged(by amount: Int = 1) {
        Counter(label: "docpreview_upload_parts_damaged_total").increment(by: amount)
    }

    /// `docpreview_deletions_total`.
    package static func deletions(by amount: Int = 1) {
        Counter(label: "docpreview_deletions_total").increment(by: amount)
    }

    /// `docpreview_documents`.
    package static func documentsStored(_ value: Int) {
        Gauge(label: "docpreview_documents").record(value)
    }

    /// `docpreview_uploads_open`.
    package static func uploadsOpen(_ value: Int) {
        Gauge(label: "docpreview_uploads_open").record(value)
    }

    /// `docpreview_uploads_staged_bytes`.
    package static func uploadsStagedBytes(_ value: Int) {
        Gauge(label: "docpreview_uploads_staged_bytes").record(value)
    }

    // MARK: Jobs and downloads

    /// `docpreview_jobs_total{outcome}`; outcome: `done`, `lease_lost`, `released`, ….
    package static func jobs(outcome: String, by amount: Int = 1) {
        Counter(label: "docpreview_jobs_total", dimensions: [("outcome", outcome)]).increment(by: amount)
    }

    /// `docpreview_jobs{status}`.
    package static func jobsByStatus(_ value: Int, status: String) {
        Gauge(label: "docpreview_jobs", dimensions: [("status", status)]).record(value)
    }

    /// `docpreview_job_wait_seconds{kind}`.
    package static func jobWaitSeconds(nanoseconds: Int64, kind: String) {
        Timer(label: "docpreview_job_wait_seconds", dimensions: [("kind", kind)]).recordNanoseconds(nanoseconds)
    }

    /// `docpreview_job_duration_seconds{kind}`.
    package static func jobDurationSeconds(nanoseconds: Int64, kind: String) {
        Timer(label: "docpreview_job_duration_seconds", dimensions: [("kind", kind)]).recordNanoseconds(nanoseconds)
    }

    /// `docpreview_playback_progress_ratio`.
    package static func playbackProgressRatio(_ value: Double) {
        Gauge(label: "docpreview_playback_progress_ratio").record(value)
    }

    /// `docpreview_ocr_pages_total{path}`.
    package static func ocrPages(path: String, by amount: Int = 1) {
        Counter(label: "docpreview_ocr_pages_total", dimensions: [("path", path)]).increment(by: amount)
    }

    /// `docpreview_downloads_total{outcome}`.
    package static func downloads(outcome: String, by amount: Int = 1) {
        Counter(label: "docpreview_downloads_total", dimensions: [("outcome", outcome)]).increment(by: amount)
    }

    /// `docpreview_download_requests_total{outcome}`.
    package static func downloadRequests(outcome: String, by amount: Int = 1) {
        Counter(label: "docpreview_download_requests_total", dimensions: [("outcome", outcome)]).increment(by: amount)
    }

    /// `docpreview_link_cards_total{outcome}`: `cached`, `stale` (answered while a refresh runs),
    /// `made`, `failed`, `paced`.
    package static func linkCards(outcome: String) {
        Counter(label: "docpreview_link_cards_total", dimensions: [("outcome", outcome)]).increment()
    }

    // MARK: Serving

    /// `docpreview_preview_render_seconds{kind}`.
    package static func previewRenderSeconds(nanoseconds: Int64, kind: String) {
        Timer(label: "docpreview_preview_render_seconds", dimensions: [("kind", kind)]).recordNanoseconds(nanoseconds)
    }

    /// `docpreview_previews_not_kept_total{reason}`; reason: `backlog`, `failed`.
    package static func previewsNotKept(reason: String, by amount: Int = 1) {
        Counter(label: "docpreview_previews_not_kept_total", dimensions: [("reason", reason)]).increment(by: amount)
    }

    /// `docpreview_previews_evicted_total`.
    package static func previewsEvicted(by amount: Int = 1) {
        Counter(label: "docpreview_previews_evicted_total").increment(by: amount)
    }

    /// `docpreview_iiif_images_total{kind}`.
    package static func iiifImages(kind: String, by amount: Int = 1) {
        Counter(label: "docpreview_iiif_images_total", dimensions: [("kind", kind)]).increment(by: amount)
    }

    /// `docpreview_content_responses_total{status}`; status: `416`, ….
    package static func contentResponses(status: String, by amount: Int = 1) {
        Counter(label: "docpreview_content_responses_total", dimensions: [("status", status)]).increment(by: amount)
    }

    /// `docpreview_searches_total{outcome}`; outcome: `answered`, `paced`, `timed_out`.
    package static func searches(outcome: String, by amount: Int = 1) {
        Counter(label: "docpreview_searches_total", dimensions: [("outcome", outcome)]).increment(by: amount)
    }

    /// `docpreview_shares_total{event}`; event: `busy`, `created`, `opened`, `paced`, `reading` (a reading report kept),
    /// `reading_paced`, `revoked`, `throttled`.
    package static func shares(event: String, by amount: Int = 1) {
        Counter(label: "docpreview_shares_total", dimensions: [("event", event)]).increment(by: amount)
    }

    /// `docpreview_webhooks_total{outcome}`: tries of an event's delivery; outcome: `delivered` (2xx),
    /// `refused` (another answer), `failed` (no answer).
    package static func webhooks(outcome: String) {
        Counter(label: "docpreview_webhooks_total", dimensions: [("outcome", outcome)]).increment()
    }

    /// `docpreview_signed_urls_total{outcome}`; outcome: `accepted`, `issued`, `refused`.
    package static func signedUrls(outcome: String, by amount: Int = 1) {
        Counter(label: "docpreview_signed_urls_total", dimensions: [("outcome", outcome)]).increment(by: amount)
    }

    /// `docpreview_signins_total{outcome}`; outcome: `signed_in`, `throttled`, `wrong_token`.
    package static func signins(outcome: String, by amount: Int = 1) {
        Counter(label: "docpreview_signins_total", dimensions: [("outcome", outcome)]).increment(by: amount)
    }

    /// `docpreview_internal_errors_total`.
    package static func internalErrors(by amount: Int = 1) {
        Counter(label: "docpreview_internal_errors_total").increment(by: amount)
    }

    // MARK: Connections

    /// `docpreview_connections_open`.
    package static func connectionsOpen(_ value: Int) {
        Gauge(label: "docpreview_connections_open").record(value)
    }

    /// `docpreview_connections_shed_total{reason}`; reason: `fair_share`, ….
    package static func connectionsShed(reason: String, by amount: Int = 1) {
        Counter(label: "docpreview_connections_shed_total", dimensions: [("reason", reason)]).increment(by: amount)
    }

    // MARK: The store

    /// `docpreview_store_up`.
    package static func storeUp(_ value: Int) {
        Gauge(label: "docpreview_store_up").record(value)
    }

    /// `docpreview_store_bytes{kind}`; kind: `logical`, `previews`, `stored`.
    package static func storeBytes(_ value: Int, kind: String) {
        Gauge(label: "docpreview_store_bytes", dimensions: [("kind", kind)]).record(value)
    }

    /// `docpreview_store_faults_total{fault, place}`.
    package static func storeFaults(fault: String, place: String, by amount: Int = 1) {
        Counter(label: "docpreview_store_faults_total", dimensions: [("fault", fault), ("place", place)]).increment(by: amount)
    }

    /// `docpreview_damaged_blobs_total{kind, problem}`; kind: `cache`, `object`, `original`, `preview`; problem: `damaged`, `repaired`, ….
    package static func damagedBlobs(kind: String, problem: String, by amount: Int = 1) {
        Counter(label: "docpreview_damaged_blobs_total", dimensions: [("kind", kind), ("problem", problem)]).increment(by: amount)
    }

    /// `docpreview_blob_cache_total{result}`; result: `hit`, `miss`.
    package static func blobCache(result: String, by amount: Int = 1) {
        Counter(label: "docpreview_blob_cache_total", dimensions: [("result", result)]).increment(by: amount)
    }

    /// `docpreview_blob_cache_evictions_total`.
    package static func blobCacheEvictions(by amount: Int = 1) {
        Counter(label: "docpreview_blob_cache_evictions_total").increment(by: amount)
    }

    /// `docpreview_s3_requests_total{method, status}`.
    package static func s3Requests(method: String, status: String, by amount: Int = 1) {
        Counter(label: "docpreview_s3_requests_total", dimensions: [("method", method), ("status", status)]).increment(by: amount)
    }
}
