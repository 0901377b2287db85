import Foundation
import PreviewCore

/// A batch report as an HTML page a person can open: counts per kind and outcome, then a card per
/// file with its thumbnail (linked from the store), status and message. No scripts, no network.
package enum ContactSheet {
    /// The page for `report`, with thumbnail links relative to `folder` (where the page is written).
    package static func html(_ report: BatchReport, pageFolder folder: URL) -> String {
        let summary = report.summary
        var kinds: [String: Int] = [:]
        for file in report.files { kinds[file.kind ?? "unknown", default: 0] += 1 }
        let kindList = kinds.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
            .map { "<li>\(SafeText.html($0.key)) <b>\($0.value)</b></li>" }.joined()
        let cards = report.files.map { card($0, pageFolder: folder) }.joined(separator: "\n")
        let skipped = report.skipped.map { "<li>\(SafeText.html($0.path)): \(SafeText.html($0.reason))</li>" }.joined()
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>DocPreview batch</title>
            <style>
            body{font:14px system-ui,sans-serif;margin:24px;color:#222}
            .counts span{display:inline-block;margin-right:18px}
            ul.kinds{display:flex;flex-wrap:wrap;gap:4px 16px;list-style:none;padding:0}
            .grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(200px,1fr));gap:14px}
            .card{border:1px solid #ddd;border-radius:6px;padding:8px;overflow-wrap:anywhere}
            .thumb{height:160px;display:flex;align-items:center;justify-content:center;background:#f4f4f4}
            .thumb img{max-width:100%;max-height:160px}
            .ok{color:#17803d}.rejected{color:#b45309}.failed{color:#b91c1c}.no_preview{color:#555}
            </style></head><body>
            <h1>DocPreview batch</h1>
            <p class="counts"><span class="ok">ok <b>\(summary.ok)</b></span><span class="no_preview">no preview <b>\(summary.noPreview)</b></span>\
            <span class="rejected">rejected <b>\(summary.rejected)</b></span><span class="failed">failed <b>\(summary.failed)</b></span>\
            <span>skipped <b>\(summary.skipped)</b></span><span>\(summary.elapsedSeconds) s, \(summary.filesPerSecond) files/s</span></p>
            <ul class="kinds">\(kindList)</ul>
            <div class="grid">
            \(cards)
            </div>
            \(skipped.isEmpty ? "" : "<h2>Skipped</h2><ul>\(skipped)</ul>")
            </body></html>
            """
    }

    private static func card(_ file: IngestOutcome, pageFolder: URL) -> String {
        let thumbnail: String
        if let preview = file.preview {
            let link = relativePath(from: pageFolder, to: URL(fileURLWithPath: preview.path))
            thumbnail = "<img src=\"\(SafeText.html(link))\" width=\"\(preview.width)\" height=\"\(preview.height)\" alt=\"\" loading=\"lazy\">"
        } else {
            thumbnail = "<span>\(file.status == .noPreview ? "no preview" : "—")</span>"
        }
        let details = [file.kind, file.pages.map { "\($0) pages" }, file.durationSeconds.map { String(format: "%.1f s", $0) }]
            .compactMap { $0 }.joined(separator: " · ")
        return """
            <div class="card"><div class="thumb">\(thumbnail)</div><div><b>\(SafeText.html(file.path))</b></div>\
            <div>\(SafeText.html(details))</div><div class="\(file.status.rawValue)">\(file.status.rawValue)\
            \(file.error.map { ": " + SafeText.html($0.message) } ?? "")</div></div>
            """
    }

    /// `target` relative to `folder`, so the page keeps working when the folder and store move together.
    static func relativePath(from folder: URL, to target: URL) -> String {
        let base = folder.standardizedFileURL.resolvingSymlinksInPath().pathComponents
        let path = target.standardizedFileURL.resolvingSymlinksInPath().pathComponents
        let common = zip(base, path).prefix { $0 == $1 }.count
        let ups = Array(repeating: "..", count: base.count - common)
        return (ups + path[common...]).joined(separator: "/")
    }
}
