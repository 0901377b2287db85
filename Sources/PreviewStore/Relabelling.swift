import PreviewCore

/// New labels for a stored document: its title and type name the document, so every version takes
/// them; its description and school are its latest version's (earlier versions keep theirs, as
/// they keep their files).
public struct Relabelling: Sendable, Equatable {
    public var title: String
    /// A type id, nil for none.
    public var type: DocumentType.ID?
    public var description: String
    public var school: String?

    public init(title: String, type: DocumentType.ID?, description: String = "", school: String? = nil) {
        self.title = title
        self.type = type
        self.description = description
        self.school = school
    }

    /// Whether the document's name (title or type) changes: then the new name must be free.
    public func renames(_ latest: Document) -> Bool {
        latest.title != title || latest.type != type
    }

    /// `versions` (newest first) as they are once relabelled, only those that change.
    public func applied(to versions: [Document]) -> [Document] {
        versions.enumerated().compactMap { position, version in
            var changed = version
            changed.title = title
            changed.type = type
            if position == 0 {
                changed.description = description
                changed.school = school
            }
            return changed == version ? nil : changed
        }
    }
}
