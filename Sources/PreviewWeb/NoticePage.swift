/// A small page of one purpose (`web/notice.mustache`): a heading, a message or a failure, and
/// at most one form with one field — signing in, confirming a delete, a share's password, and
/// why a share's link does not open.
struct NoticePage {
    let pageTitle: String
    let stylesheet = StaticAsset.style.url
    let scripts: [String] = []
    let csrf: String? = nil
    /// Whether the page tells the browser to send no referrer (a share's pages).
    let noReferrer: Bool
    let heading: String
    let message: String?
    let failure: String?
    let form: Form?
    let back: Link?

    struct Form {
        let action: String
        let hidden: [Field]
        let input: Input?
        let button: String
        /// Whether the button destroys something (drawn in red).
        let destroys: Bool
    }

    struct Field {
        let name: String
        let value: String
    }

    struct Input {
        let label: String
        let name: String
        let type: String
        let autocomplete: String
    }

    struct Link {
        let href: String
        let label: String
    }

    init(
        title: String, heading: String? = nil, message: String? = nil, failure: String? = nil, form: Form? = nil, back: Link? = nil,
        noReferrer: Bool = false
    ) {
        pageTitle = title
        self.heading = heading ?? title
        self.message = message
        self.failure = failure
        self.form = form
        self.back = back
        self.noReferrer = noReferrer
    }

    var html: String { PageTemplates.render(self, "notice") }
}
