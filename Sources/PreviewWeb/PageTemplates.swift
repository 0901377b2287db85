import Mustache
import PreviewCore

/// The pages' Mustache templates (Hummingbird's engine), the `.mustache` files of `web/`,
/// embedded in the binary when it is built: every `{{value}}` is HTML-escaped, so a page's model
/// holds plain text, never markup.
enum PageTemplates {
    static let library: MustacheLibrary = {
        MustacheContentTypes.register(ScalarHTML(), named: ScalarHTML.name)
        var library = MustacheLibrary()
        do {
            for (name, template) in [
                ("page", PackageResources.page_mustache), ("bar", PackageResources.bar_mustache),
                ("list", PackageResources.list_mustache), ("detail", PackageResources.detail_mustache),
                ("viewer", PackageResources.viewer_mustache), ("notice", PackageResources.notice_mustache),
                ("shared", PackageResources.shared_mustache), ("version", PackageResources.version_mustache),
                ("media", PackageResources.media_mustache), ("video", PackageResources.video_mustache)
            ] {
                try library.register("{{% CONTENT_TYPE: \(ScalarHTML.name) }}" + String(decoding: template, as: UTF8.self), named: name)
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
}
