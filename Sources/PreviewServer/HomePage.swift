import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PreviewCore
import PreviewDocuments
import PreviewStore

/// `GET /`: a page for people — an upload form, the owner's documents with thumbnails and status,
/// and the storage cards. Server-rendered HTML, no scripts, no build tools.
enum HomePage {
    static func response(documents service: DocumentService, request: Request, session: Session?) throws -> Response {
        let owner = request.uri.queryParameters.get("owner") ?? ""
        let statistics = try service.statistics(owner: owner.isEmpty ? nil : owner)
        // One owner's documents at a time, never the whole table: owners are labels under one token,
        // and a page that lists everybody's titles is one shoulder-surf from a leak.
        let documents = owner.isEmpty ? [] : try service.list(DocumentQuery(owner: owner, limit: DocumentQuery.maxLimit)).documents
        let rules = service.rules
        func label(_ type: String?) -> String { type.map { rules.type(id: $0)?.label ?? $0 } ?? "—" }
        let types = rules.types
            .map { "<option value=\"\(SafeText.html($0.id))\">\(SafeText.html($0.label))</option>" }.joined()
        let cards = documents.map { document -> String in
            let status = document.status
            let thumbnail = status == .done && document.previewStatus == .ready
                ? "<img src=\"/v1/documents/\(document.id)/preview\" alt=\"\" loading=\"lazy\">"
                : "<span>\(document.previewStatus == .noPreview ? "no preview" : SafeText.html(status.rawValue))</span>"
            let error = document.errorMessage.map { "<div class=\"failed\">\(SafeText.html($0))</div>" } ?? ""
            return """
                <a class="card" href="/ui/documents/\(document.id)"><div class="thumb">\(thumbnail)</div><b>\(SafeText.html(document.title))</b>\
                <div>\(SafeText.html(document.type == nil ? document.kind.rawValue : label(document.type))) · v\(document.version) · \(SafeText.html(status.rawValue))</div>\(error)</a>
                """
        }.joined(separator: "\n")
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>DocPreview</title>
            <style>
            body{font:14px system-ui,sans-serif;margin:24px;color:#222;max-width:1100px}
            .cards{display:flex;gap:12px;flex-wrap:wrap}.stat{border:1px solid #ddd;border-radius:6px;padding:10px 14px}
            .stat b{display:block;font-size:20px}
            .grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(180px,1fr));gap:12px;margin-top:16px}
            .card{border:1px solid #ddd;border-radius:6px;padding:8px;overflow-wrap:anywhere;color:inherit;text-decoration:none}
            .thumb{height:140px;display:flex;align-items:center;justify-content:center;background:#f4f4f4;margin-bottom:6px}
            .thumb img{max-width:100%;max-height:140px}.failed{color:#b91c1c}
            form{margin:16px 0;display:flex;gap:8px;flex-wrap:wrap;align-items:center}
            </style></head><body>
            <h1>DocPreview</h1>
            \(session == nil ? "" : "<form method=\"post\" action=\"\(SignInPage.signOutPath)\">\(ViewerPage.csrfField(session))<button>Sign out</button></form>")
            <form method="get" action="/"><label>Owner <input name="owner" value="\(SafeText.html(owner))"></label><button>Show</button></form>
            <div class="cards">
            <div class="stat">Documents<b>\(statistics.documents)</b></div>
            <div class="stat">Most common type<b>\(SafeText.html(label(statistics.mostCommonType)))</b></div>
            <div class="stat">Storage<b>\(byteText(statistics.storedBytes))</b>\(byteText(statistics.logicalBytes)) uploaded</div>
            <div class="stat">Previews<b>\(statistics.previews)</b>\(byteText(statistics.previewBytes))</div>
            </div>
            <form method="post" action="/ui/upload" enctype="multipart/form-data">\(ViewerPage.csrfField(session))
            <input type="hidden" name="owner" value="\(SafeText.html(owner))">
            <label>Type <select name="type"><option value="">(any)</option>\(types)</select></label>
            <label>Title <input name="title"></label>
            <input type="file" name="file" required><button>Upload</button></form>
            <div class="grid">
            \(owner.isEmpty ? "<p>Choose an owner to see their documents.</p>" : cards)
            </div></body></html>
            """
        return ViewerPage.page(html)
    }

    /// The page listing `owner`'s documents.
    static func path(owner: String) -> String {
        "/?owner=" + (owner.addingPercentEncoding(withAllowedCharacters: .asciiAlphanumerics.union(.init(charactersIn: "-._~"))) ?? "")
    }

    static func byteText(_ bytes: Int) -> String {
        ByteCountFormatter.string(fromByteCount: Int64(bytes), countStyle: .file)
    }
}
