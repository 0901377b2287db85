import Mustache
import PreviewCore

/// The pages' Mustache templates (Hummingbird's engine): every `{{value}}` is HTML-escaped, so a
/// page's model holds plain text, never markup. They are part of the binary, not files beside it.
enum PageTemplates {
    static let library: MustacheLibrary = {
        MustacheContentTypes.register(ScalarHTML(), named: ScalarHTML.name)
        var library = MustacheLibrary()
        do {
            for (name, template) in [("page", page), ("bar", bar), ("list", list), ("detail", detail), ("viewer", viewer),
                                      ("notice", notice), ("shared", shared)] {
                try library.register("{{% CONTENT_TYPE: \(ScalarHTML.name) }}" + template, named: name)
            }
        } catch {
            preconditionFailure("a page template does not parse: \(error)")
        }
        return library
    }()

    /// HTML escaping by Unicode scalar (``SafeText/html(_:)``), which every template is given.
    /// swift-mustache's own escapes by `Character`, so a `<` that a prepended scalar (U+0600) or a
    /// combining mark folds into another grapheme would pass unescaped (`PageEscapingTests`).
    struct ScalarHTML: MustacheContentType {
        static let name = "SCALAR_HTML"

        func escapeText(_ text: String) -> String { SafeText.html(text) }
    }

    /// `model` rendered with template `name`.
    static func render(_ model: Any, _ name: String) -> String {
        guard let html = library.render(model, withTemplate: name) else { preconditionFailure("no page template \(name)") }
        return html
    }

    /// Every page (a parent: the others fill its blocks): its `<head>` from `pageTitle`, `stylesheet`,
    /// `scripts` and `csrf` (a session's), then block `head` (more of it), `body` (the body's
    /// attributes) and `content`.
    static let page = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{pageTitle}} · DocPreview</title>
        <link rel="stylesheet" href="{{stylesheet}}">
        {{#scripts}}<script src="{{.}}" defer></script>{{/scripts}}
        {{#csrf}}<meta name="csrf-token" content="{{csrf}}">{{/csrf}}
        {{$head}}{{/head}}
        </head>
        <body{{$body}}{{/body}}>
        {{$content}}{{/content}}
        </body>
        </html>
        """

    /// The bar at the top of every page: home, the owner on screen, signing out.
    static let bar = """
        <a class="skip" href="#main">Skip to the documents</a>
        <header class="bar">
          <a class="brand" href="/">DocPreview</a>
          <form method="get" action="/">
            <label for="owner-field">Owner</label>
            <input id="owner-field" name="owner" value="{{owner}}" placeholder="(no owner)" autocomplete="off" size="14">
            <button>Show</button>
          </form>
          {{#csrf}}<form method="post" action="{{signOutPath}}"><input type="hidden" name="csrf" value="{{csrf}}"><button>Sign out</button></form>{{/csrf}}
        </header>
        """

    /// `/`: one owner's documents (``ListPage``).
    static let list = """
        {{<page}}{{$content}}
        {{> bar}}
        <main id="main">
        <h1>{{ownerLabel}}</h1>
        <section class="stats" aria-label="Statistics">
        {{#stats}}<div class="stat"><span>{{label}}</span><b>{{value}}</b>{{#detail}}<small>{{detail}}</small>{{/detail}}</div>{{/stats}}
        </section>

        <section class="upload" aria-labelledby="upload-heading">
        <h2 id="upload-heading">Upload</h2>
        <form id="upload" method="post" action="/ui/upload" enctype="multipart/form-data" data-owner="{{owner}}">
          {{#csrf}}<input type="hidden" name="csrf" value="{{csrf}}">{{/csrf}}
          <input type="hidden" name="owner" value="{{owner}}">
          <label for="upload-type">Type</label>
          <select id="upload-type" name="type"><option value="">(none)</option>{{#uploadTypes}}<option value="{{value}}">{{label}}</option>{{/uploadTypes}}</select>
          <label for="upload-files">Files</label>
          <input id="upload-files" type="file" name="file" multiple required>
          <button class="primary">Upload</button>
          <span class="hint">or drop files here</span>
        </form>
        <ul id="uploads" class="uploads" aria-live="polite"></ul>
        </section>

        <section aria-labelledby="documents-heading">
        <h2 id="documents-heading">Documents</h2>
        <form class="filters" method="get" action="/" role="search">
          <input type="hidden" name="owner" value="{{owner}}">
          {{#type}}<input type="hidden" name="type" value="{{type}}">{{/type}}
          <span class="field"><label for="search">Search</label><input id="search" type="search" name="q" value="{{query}}" placeholder="Title, description, file name, school"></span>
          <span class="field"><label for="sort">Sort</label><select id="sort" name="sort">{{#sorts}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/sorts}}</select></span>
          <button>Apply</button>
          <button type="button" id="layout" aria-pressed="false" hidden>List view</button>
        </form>
        <nav class="chips" aria-label="Types">{{#chips}}<a href="{{href}}"{{#selected}} aria-current="true"{{/selected}}>{{label}} <span>{{count}}</span></a>{{/chips}}</nav>
        {{#notice}}<p class="hint" role="status">{{notice}}</p>{{/notice}}
        <ul id="documents" class="documents grid" data-types="{{typeLabels}}">
        {{#cards}}
        <li class="card" data-id="{{id}}" data-status="{{status}}">
          <a href="{{href}}"><div class="thumb">{{#thumbnail}}<img src="{{thumbnail}}" alt="{{title}}" loading="lazy">{{/thumbnail}}{{^thumbnail}}<span>{{statusLabel}}</span>{{/thumbnail}}</div><b>{{title}}</b></a>
          <div class="meta">{{typeLabel}} · v{{version}} · <span class="status">{{statusLabel}}</span></div>
          {{#error}}<p class="error">{{error}}</p>{{/error}}
        </li>
        {{/cards}}
        </ul>
        {{^cards}}<p class="empty">{{emptyText}}</p>{{/cards}}
        {{#more}}<a class="more" href="{{more}}">More documents</a>{{/more}}
        </section>
        </main>
        {{/content}}{{/page}}
        """

    /// `/ui/documents/{id}`: one document (``DetailPage``).
    static let detail = """
        {{<page}}{{$content}}
        {{> bar}}
        <main id="main" class="detail" data-id="{{id}}" data-owner="{{owner}}" data-type="{{typeID}}" data-title="{{title}}">
        <nav class="crumbs" aria-label="Documents">
          <a href="{{listPath}}">← {{ownerLabel}}</a>
          {{#previous}}<a href="{{href}}" rel="prev" aria-label="Previous: {{title}}">Previous</a>{{/previous}}
          {{#next}}<a href="{{href}}" rel="next" aria-label="Next: {{title}}">Next</a>{{/next}}
        </nav>
        <header class="heading">
          <span class="badge">{{typeLabel}}</span>
          <h1 id="title">{{title}}</h1>
          <p id="description" class="description">{{description}}</p>
        </header>
        {{#notice}}<p class="note">{{notice}}</p>{{/notice}}
        {{#error}}<p class="error">{{error}}</p>{{/error}}
        <dl class="facts">{{#facts}}<div><dt>{{label}}</dt><dd>{{value}}</dd></div>{{/facts}}</dl>
        <div class="actions">
          <a class="button" href="{{downloadPath}}">Download</a>
          <a class="button" href="{{viewerPath}}">Open the viewer</a>
          <button type="button" id="edit-open" hidden>Edit</button>
          <button type="button" id="share-open" hidden>Share{{#sharedCount}} · {{sharedCount}}{{/sharedCount}}</button>
          <a class="button danger" href="{{deletePath}}">Delete…</a>
        </div>

        <section class="preview" aria-label="Preview" data-media-of="{{id}}">
        {{{media}}}
        </section>

        <dialog id="edit" aria-labelledby="edit-heading">
          <form method="dialog" id="edit-form">
            <h2 id="edit-heading">Edit</h2>
            <label for="edit-title">Title</label>
            <input id="edit-title" name="title" value="{{title}}" required maxlength="1000">
            <label for="edit-description">Description</label>
            <textarea id="edit-description" name="description" rows="4" maxlength="2000">{{description}}</textarea>
            <label for="edit-school">School</label>
            <input id="edit-school" name="school" value="{{school}}" maxlength="200">
            <p class="error" role="alert" id="edit-message"></p>
            <div class="actions"><button class="primary" value="save">Save</button><button value="cancel" formnovalidate>Cancel</button></div>
          </form>
        </dialog>

        <dialog id="share" aria-labelledby="share-heading">
          <form method="dialog" id="share-form">
            <h2 id="share-heading">Share with schools</h2>
            <fieldset><legend>Schools</legend><div id="share-schools" class="schools"></div>
              <label for="share-new">Another school</label>
              <span class="row"><input id="share-new" maxlength="200"><button type="button" id="share-add">Add</button></span>
            </fieldset>
            <label for="share-password">Password (optional)</label>
            <input id="share-password" type="password" autocomplete="new-password">
            <label for="share-expires">Expires (optional)</label>
            <input id="share-expires" type="date">
            <label for="share-highlight">Mark a text on its pages (optional)</label>
            <input id="share-highlight" maxlength="100" aria-describedby="share-highlight-hint">
            <p class="hint" id="share-highlight-hint">Its hits are marked on the pages the school sees, as a highlighter would: "AP Biology", "GPA".</p>
            <label class="check"><input id="share-download" type="checkbox"> Allow downloading the original</label>
            <p class="hint">New links, and links made again for a school, take the password, expiry, marked text and download choice above.</p>
            <p class="error" role="alert" id="share-message"></p>
            <div class="actions"><button class="primary" value="save">Save</button><button value="cancel" formnovalidate>Close</button></div>
            <h3>Shared with</h3>
            <ul id="share-links" class="links"></ul>
          </form>
        </dialog>

        <section aria-labelledby="versions-heading">
        <h2 id="versions-heading">Versions</h2>
        <div class="table"><table>
        <thead><tr><th scope="col">Version</th><th scope="col">File</th><th scope="col">Size</th><th scope="col">Uploaded</th><th scope="col">Status</th><th scope="col"><span class="hidden">Action</span></th></tr></thead>
        <tbody>
        {{#versions}}
        <tr{{#shown}} class="shown"{{/shown}}><td><a href="{{href}}">v{{number}}</a>{{#restoredFrom}} <small>restored from v{{restoredFrom}}</small>{{/restoredFrom}}</td>
          <td>{{filename}}</td><td>{{size}}</td><td>{{uploaded}}</td><td>{{status}}</td>
          <td>{{#current}}Current{{/current}}{{^current}}<form method="post" action="{{restorePath}}">{{#csrf}}<input type="hidden" name="csrf" value="{{csrf}}">{{/csrf}}<button aria-label="Restore version {{number}}">Restore</button></form>{{/current}}</td></tr>
        {{/versions}}
        </tbody></table></div>
        <form id="new-version" class="row">
          <label for="new-version-file">Upload a new version</label>
          <input id="new-version-file" type="file" name="file" required>
          <button>Upload</button>
        </form>
        <p id="new-version-message" role="status"></p>
        </section>
        </main>
        {{/content}}{{/page}}
        """

    /// `/ui/documents/{id}/view`: one document on the whole screen (``ViewerPage``).
    static let viewer = """
        {{<page}}{{$body}} class="dark"{{/body}}{{$content}}
        <main id="main" class="viewer" data-close="{{detailPath}}"{{#previous}} data-previous="{{href}}"{{/previous}}{{#next}} data-next="{{href}}"{{/next}}>
        <header class="viewer-bar">
          <a class="button" href="{{detailPath}}">Close</a>
          <h1>{{title}}</h1>
          <span id="counter" class="counter" aria-live="polite">{{counter}}</span>
          {{#searchPath}}<form class="find" role="search" data-search="{{searchPath}}">
            <input type="search" name="q" minlength="2" maxlength="100" placeholder="Find" aria-label="Find in the document">
            <button type="button" data-step="-1" aria-label="Previous hit" hidden>↑</button>
            <button type="button" data-step="1" aria-label="Next hit" hidden>↓</button>
            <span class="hits" role="status"></span>
          </form>{{/searchPath}}
          <button type="button" id="fullscreen" hidden>Full screen</button>
          <a class="button" href="{{sharePath}}">Share</a>
          <a class="button" href="{{downloadPath}}">Download</a>
        </header>
        <div class="stage" data-media-of="{{id}}">
        {{{media}}}
        </div>
        <nav class="flip" aria-label="Documents">
          {{#previous}}<a class="button" rel="prev" href="{{href}}" aria-label="Previous: {{title}}">← Previous</a>{{/previous}}
          {{#next}}<a class="button" rel="next" href="{{href}}" aria-label="Next: {{title}}">Next →</a>{{/next}}
        </nav>
        </main>
        {{/content}}{{/page}}
        """

    /// A page of one purpose (``NoticePage``).
    static let notice = """
        {{<page}}{{$head}}{{#noReferrer}}<meta name="referrer" content="no-referrer">{{/noReferrer}}{{/head}}{{$content}}
        <main id="main" class="narrow">
        <h1>{{heading}}</h1>
        {{#failure}}<p class="error" role="alert">{{failure}}</p>{{/failure}}
        {{#message}}<p>{{message}}</p>{{/message}}
        {{#form}}
        <form method="post" action="{{action}}">
          {{#hidden}}<input type="hidden" name="{{name}}" value="{{value}}">{{/hidden}}
          {{#input}}<label for="field">{{label}}</label><input id="field" type="{{type}}" name="{{name}}" autocomplete="{{autocomplete}}" required autofocus>{{/input}}
          <button class="primary{{#destroys}} destroys{{/destroys}}">{{button}}</button>
        </form>
        {{/form}}
        {{#back}}<p><a href="{{href}}">{{label}}</a></p>{{/back}}
        </main>
        {{/content}}{{/page}}
        """

    /// `/s/{token}`: a document shared by link (``SharedPage``). `downloadHref` comes escaped for an
    /// attribute, as ``PageParts/MediaLinks`` makes it.
    static let shared = """
        {{<page}}{{$head}}<meta name="referrer" content="no-referrer">{{/head}}{{$content}}
        <main id="main">
        <span class="badge">{{typeLabel}}</span>
        <h1>{{title}}</h1>
        <p>{{kindLabel}}{{#downloadHref}} · <a href="{{{downloadHref}}}">Download the original</a>{{/downloadHref}}</p>
        <section class="preview" aria-label="Preview">
        {{{media}}}
        </section>
        </main>
        {{/content}}{{/page}}
        """
}
