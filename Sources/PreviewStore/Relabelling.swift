import PreviewCore
import PreviewDomain

/// New labels for a stored document: its title and type name the document, so every version takes
/// them; its description and school are its latest version's (earlier versions keep theirs, as
/// they keep their files).
public struct Relabelling: Sendable, Equatable {
    package var title: String
    /// A type id, nil for none.
    package var type: DocumentType.ID?
    package var description: String
    package var school: String?

    package init(title: String, type: DocumentType.ID?, description: String = "", school: String? = nil) {
        self.title = title
        self.type = type
        self.description = description
        self.school = school
    }

    /// Whether the document's name (title or type) changes: then the new name must be free.
    package func renames(_ latest: Document) -> Bool {
        latest.title != title || latest.type != type
    }

    /// `versions` (newest first) as they are once relabelled, only those that change.
    package func applied(to versions: [Document]) -> [Document] {
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
