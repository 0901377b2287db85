/// A kind of document the document service accepts (resume, transcript, …) and the file
/// extensions it may carry.
public struct DocumentType: Sendable, Hashable, Codable, Identifiable {
    /// The stable identifier used by APIs, e.g. `highlight_video`.
    public var id: String
    /// The name people read, e.g. `Highlight Video`.
    package var label: String
    /// Allowed extensions, lower case without the dot.
    package var extensions: [String]

    package init(id: String, label: String, extensions: [String]) {
        self.id = id
        self.label = label
        self.extensions = extensions.map(DocumentType.normalize)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(String.self, forKey: .id),
            label: try container.decode(String.self, forKey: .label),
            extensions: try container.decode([String].self, forKey: .extensions))
    }

    /// Whether `ext` (any case, with or without the dot) is allowed.
    package func allows(extension ext: String) -> Bool {
        extensions.contains(DocumentType.normalize(ext))
    }

    /// Whether a file named `fileName`, detected as `kind`, may be of this type: its extension must be
    /// allowed; a file without a known extension is judged by what its bytes are.
    package func admits(fileName: String, kind: FileKind) -> Bool {
        let ext = Validator.fileExtension(of: fileName)
        return admits(fileExtension: ext, claimedKinds: ext.map(FileKind.claiming(extension:)) ?? [], kind: kind)
    }

    func admits(fileExtension ext: String?, claimedKinds: [FileKind], kind: FileKind) -> Bool {
        if let ext, !claimedKinds.isEmpty { return allows(extension: ext) }
        return kind.extensions.contains(where: allows(extension:))
    }

    /// "Invalid file type. Highlight Video requires .mp4, .mov, .avi."
    package var refusalMessage: String {
        "Invalid file type. \(label) requires \(extensions.map { "." + $0 }.joined(separator: ", "))."
    }

    static func normalize(_ ext: String) -> String {
        (ext.hasPrefix(".") ? String(ext.dropFirst()) : ext).lowercased()
    }
}
