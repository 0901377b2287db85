import Foundation

/// The table of document types and their allowed extensions (DESIGN §3); operators extend or
/// override it with a JSON file.
public struct DocumentRules: Sendable {
    package private(set) var types: [DocumentType]

    package init(types: [DocumentType]) {
        self.types = types
    }

    /// The document service's table.
    public static let standard = DocumentRules(types: [
        DocumentType(id: "highlight_video", label: "Highlight Video", extensions: ["mp4", "mov", "avi"]),
        DocumentType(id: "transcript", label: "Transcript", extensions: ["pdf", "txt"]),
        DocumentType(id: "resume", label: "Resume", extensions: ["pdf", "doc", "docx"]),
        DocumentType(id: "rec_letter", label: "Recommendation Letter", extensions: ["pdf"]),
        DocumentType(id: "questionnaire", label: "Questionnaire", extensions: ["pdf", "doc", "docx"]),
        DocumentType(id: "stats_sheet", label: "Stats Sheet", extensions: ["csv", "xls", "xlsx"])
    ])

    /// The type with this id, compared case-insensitively.
    package func type(id: String) -> DocumentType? {
        types.first { $0.id.caseInsensitiveCompare(id) == .orderedSame }
    }

    /// Adds `type`, replacing one with the same id.
    package mutating func upsert(_ type: DocumentType) {
        if let index = types.firstIndex(where: { $0.id == type.id }) {
            types[index] = type
        } else {
            types.append(type)
        }
    }
}
