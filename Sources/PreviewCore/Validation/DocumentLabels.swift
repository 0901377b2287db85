import Foundation

/// Who a document belongs to and what it is called (DESIGN §8 fields), and the rules every entry
/// point holds them to: the HTTP API, the page's form, `ingest` and `batch` alike.
public struct DocumentLabels: Sendable, Equatable {
    package var owner: String
    package var type: DocumentType?
    package var title: String
    /// The name the file arrived under; only its extension matters to validation, and it is never a path.
    package var filename: String
    /// What the document is about, in the owner's words ("" for nothing said); searched with the title.
    package var description: String
    /// The school the document is for (a name under its owner), or nil.
    package var school: String?

    /// The longest title: titles are shown in lists and searched, not documents themselves.
    package static let maxTitleLength = 1000
    /// The longest description: a paragraph or two.
    package static let maxDescriptionLength = 2000
    /// The longest school name.
    package static let maxSchoolLength = 200

    public init(owner: String = "", type: DocumentType? = nil, title: String, filename: String, description: String = "", school: String? = nil) {
        self.owner = owner
        self.type = type
        self.title = title
        self.filename = filename
        self.description = description
        self.school = school
    }

    /// Labels a client sent: a type by its id (empty or absent: none), the title trimmed and
    /// defaulting to the file name (when it is absent or blank), the file name reduced to its last path component, a description with its line
    /// breaks made `\n`, a school trimmed (empty: none). Throws `bad_request` for an unknown type or
    /// labels that break ``check()``.
    package init(
        owner: String?, typeID: String?, title: String?, filename: String?, description: String? = nil, school: String? = nil,
        rules: DocumentRules
    ) throws(PreviewError) {
        let name = (filename ?? "upload").split(separator: "/").last.map(String.init) ?? "upload"
        self.init(
            owner: owner ?? "", type: try Self.type(typeID, in: rules), title: title.map(Self.title).flatMap { $0.isEmpty ? nil : $0 } ?? name,
            filename: name, description: Self.description(description ?? ""), school: Self.school(school))
        try check()
    }

    /// A description as it is kept: line breaks of any platform made `\n`, surrounding blanks trimmed.
    package static func description(_ text: String) -> String {
        text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A school as it is kept: trimmed, and nil when nothing is left.
    package static func school(_ text: String?) -> String? {
        guard let trimmed = text?.trimmingCharacters(in: .whitespaces), !trimmed.isEmpty else { return nil }
        return trimmed
    }

    /// Labels for a file a folder walk found: its path relative to the folder as the title. A
    /// file system allows control characters in names, so they are replaced (U+FFFD) rather than
    /// refused, and a path longer than a title keeps its end: nobody is there to rename the file.
    package init(owner: String, type: DocumentType?, foundAt relativePath: String, filename: String) {
        self.init(
            owner: owner, type: type, title: String(Self.replacingControls(relativePath).suffix(Self.maxTitleLength)),
            filename: Self.replacingControls(filename))
    }

    /// The type `id` names: nil for none (absent or empty), `bad_request` when the rules have no such type.
    package static func type(_ id: String?, in rules: DocumentRules) throws(PreviewError) -> DocumentType? {
        guard let id, !id.isEmpty else { return nil }
        guard let known = rules.type(id: id) else { throw PreviewError(.badRequest, "unknown document type \(id)") }
        return known
    }

    /// Labels are shown and indexed, never interpreted: control characters (NUL among them, which
    /// PostgreSQL cannot store in text; line breaks, which forge lines in logs and listings) have no
    /// place in them. A tab is allowed: it is whitespace a pasted title may carry, and listings escape it.
    /// The title is held to ``checkTitle(_:)``, as a relabel's is.
    package func check() throws(PreviewError) {
        for (name, value) in [("owner", owner), ("filename", filename)] where Self.hasControls(value) {
            throw PreviewError(.badRequest, "\(name) must not contain control characters")
        }
        try Self.checkTitle(title)
        try Self.checkDescription(description)
        if let school { try Self.checkSchool(school) }
    }

    /// A description: at most ``maxDescriptionLength`` characters, line breaks (`\n`) and tabs its
    /// only control characters.
    package static func checkDescription(_ description: String) throws(PreviewError) {
        guard description.count <= maxDescriptionLength else {
            throw PreviewError(.badRequest, "description must have at most \(maxDescriptionLength) characters")
        }
        if description.unicodeScalars.contains(where: { $0 != "\n" && isRefused($0) }) {
            throw PreviewError(.badRequest, "description must not contain control characters other than line breaks")
        }
    }

    /// A school's name: 1 to ``maxSchoolLength`` characters, no control character.
    package static func checkSchool(_ school: String) throws(PreviewError) {
        guard !school.isEmpty, school.count <= maxSchoolLength else {
            throw PreviewError(.badRequest, "school must have 1 to \(maxSchoolLength) characters")
        }
        if hasControls(school) { throw PreviewError(.badRequest, "school must not contain control characters") }
    }

    /// What a text search (`q`) looks in: the title, the description, the file name and the school,
    /// each folded as ``titleKey(_:)`` folds, on lines of their own so that no search text (which
    /// has no line break) matches across two of them.
    package static func searchKey(title: String, description: String, filename: String, school: String? = nil) -> String {
        titleKey(([title, description, filename] + (school.map { [$0] } ?? [])).joined(separator: "\n"))
    }

    /// A title as it is kept: surrounding blanks trimmed.
    package static func title(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The rules for a title given to a stored document (``check()``'s, and a length): not blank.
    package static func checkTitle(_ title: String) throws(PreviewError) {
        guard !title.allSatisfy(\.isWhitespace), title.count <= maxTitleLength else {
            throw PreviewError(.badRequest, "title must have 1 to \(maxTitleLength) characters, not only blanks")
        }
        if hasControls(title) { throw PreviewError(.badRequest, "title must not contain control characters") }
    }

    /// A listing's filter text (`owner`, `type`, `kind`, `school`, `q`): what labels may hold, so no control
    /// character (a NUL would break the search index's query), and no longer than a title.
    package static func checkFilter(_ text: String, named name: String) throws(PreviewError) {
        if hasControls(text) { throw PreviewError(.badRequest, "\(name) must not contain control characters") }
        guard text.count <= maxTitleLength else { throw PreviewError(.badRequest, "\(name) must have at most \(maxTitleLength) characters") }
    }

    /// `text` folded for case-insensitive search and sorting, all of Unicode (`Résumé` and `RÉSUMÉ`
    /// alike): what the index keeps beside a title, and what a title search is folded to, so both
    /// backends search and sort titles the same way.
    package static func titleKey(_ text: String) -> String {
        text.folding(options: [.caseInsensitive], locale: nil)
    }

    /// A control character other than a tab: what labels may not hold.
    private static func isRefused(_ scalar: Unicode.Scalar) -> Bool {
        scalar != "\t" && scalar.properties.generalCategory == .control
    }

    /// Whether `text` holds a control character other than a tab.
    static func hasControls(_ text: String) -> Bool {
        text.unicodeScalars.contains(where: isRefused)
    }

    private static func replacingControls(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { isRefused($0) ? "\u{FFFD}" : $0 }))
    }
}
