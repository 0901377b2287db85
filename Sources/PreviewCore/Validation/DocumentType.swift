/// A kind of document the document service accepts (resume, transcript, …) and the file
/// extensions it may carry.
public struct DocumentType: Sendable, Hashable, Codable {
    /// The stable identifier used by APIs, e.g. `highlight_video`.
    public var id: String
    /// The name people read, e.g. `Highlight Video`.
    public var label: String
    /// Allowed extensions, lower case without the dot.
    public var extensions: [String]

    public init(id: String, label: String, extensions: [String]) {
        self.id = id
        self.label = label
        self.extensions = extensions.map(DocumentType.normalize)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try container.decode(String.self, forKey: .id),
                  label: try container.decode(String.self, forKey: .label),
                  extensions: try container.decode([String].self, forKey: .extensions))
    }

    /// Whether `ext` (any case, with or without the dot) is allowed.
    public func allows(extension ext: String) -> Bool {
        extensions.contains(DocumentType.normalize(ext))
    }

    /// "Invalid file type. Highlight Video requires .mp4, .mov, .avi."
    public var refusalMessage: String {
        "Invalid file type. \(label) requires \(extensions.map { "." + $0 }.joined(separator: ", "))."
    }

    static func normalize(_ ext: String) -> String {
        (ext.hasPrefix(".") ? String(ext.dropFirst()) : ext).lowercased()
    }
}
