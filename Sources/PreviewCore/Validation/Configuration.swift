import Foundation

/// Operator settings: document types added to or overriding the standard table, and limits.
///
/// The file is JSON: `{"types": [{"id": "photo", "label": "Photo", "extensions": [".jpg", ".png"]}],
/// "limits": {"max_file_bytes": 52428800, "max_pixels": 100000000}, "renditions": {"height": 720, "crf": 23},
/// "downloads": {"domains": ["media.example.org"], "fetch_seconds": 300}}`;
/// every key is optional.
public struct Configuration: Sendable {
    public var rules: DocumentRules
    public var limits: Limits
    /// How videos' renditions are encoded.
    public var renditions = RenditionSettings()
    /// Where shared links may lead and what fetching one may cost.
    public var downloads = DownloadSettings()
    /// How the reader of a size refusal can raise the limit, appended to its message: the CLI names
    /// `--max-size`; the HTTP API adds nothing (an uploader cannot change the server's limit).
    public var sizeLimitAdvice: String?

    public init(rules: DocumentRules = .standard, limits: Limits = Limits()) {
        self.rules = rules
        self.limits = limits
    }

    /// The refusal of a file over ``Limits/maxFileBytes``.
    public var fileTooLarge: PreviewError {
        PreviewError(.fileTooLarge, "File exceeds \(Limits.describe(byteCount: limits.maxFileBytes)) limit." + (sizeLimitAdvice.map { " " + $0 } ?? ""))
    }

    private struct File: Decodable {
        var types: [DocumentType]?
        var limits: Limits?
        var renditions: RenditionSettings?
        var downloads: DownloadSettings?
    }

    /// A configuration file's limit out of range.
    public struct InvalidLimit: Error, LocalizedError {
        public var problem: String
        public var errorDescription: String? { problem }
    }

    /// Reads a configuration file over the standard rules. Throws on unreadable or malformed JSON,
    /// and ``InvalidLimit`` for a limit out of its range.
    public static func load(contentsOf url: URL) throws -> Configuration {
        let file = try JSONDecoder().decode(File.self, from: Data(contentsOf: url))
        if let problem = file.limits?.problem ?? file.renditions?.problem ?? file.downloads?.problem { throw InvalidLimit(problem: problem) }
        var configuration = Configuration(limits: file.limits ?? Limits())
        configuration.renditions = file.renditions ?? RenditionSettings()
        configuration.downloads = file.downloads ?? DownloadSettings()
        for type in file.types ?? [] { configuration.rules.upsert(type) }
        return configuration
    }
}
