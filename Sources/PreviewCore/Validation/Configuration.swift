import Foundation

/// Operator settings: document types added to or overriding the standard table, and limits.
///
/// The file is JSON: `{"types": [{"id": "photo", "label": "Photo", "extensions": [".jpg", ".png"]}],
/// "limits": {"max_file_bytes": 52428800, "max_pixels": 100000000}, "renditions": {"height": 720, "crf": 23},
/// "downloads": {"domains": ["media.example.org"], "fetch_seconds": 300}, "links": {"fetch_seconds": 20},
/// "ocr_languages": "eng+fra"}`;
/// every key is optional.
public struct Configuration: Sendable {
    package var rules: DocumentRules
    package var limits: Limits
    /// How videos' renditions are encoded.
    package var renditions = RenditionSettings()
    /// Where shared links may lead and what fetching one may cost.
    package var downloads = DownloadSettings()
    /// What making a link's card may cost, and where sites' answers come from.
    package var links = LinkPreviewSettings()
    /// The languages scans and photos are read in: Tesseract's names joined by `+` ("eng+fra"),
    /// each installed (Debian's `tesseract-ocr-<name>`).
    package var ocrLanguages = "eng"
    /// How the reader of a size refusal can raise the limit, appended to its message: the CLI names
    /// `--max-size`; the HTTP API adds nothing (an uploader cannot change the server's limit).
    package var sizeLimitAdvice: String?

    public init(rules: DocumentRules = .standard, limits: Limits = Limits()) {
        self.rules = rules
        self.limits = limits
    }

    /// The refusal of a file over ``Limits/maxFileBytes``.
    package var fileTooLarge: PreviewError {
        PreviewError(
            .fileTooLarge, "File exceeds \(Limits.describe(byteCount: limits.maxFileBytes)) limit." + (sizeLimitAdvice.map { " " + $0 } ?? ""))
    }

    private struct File: Decodable {
        var types: [DocumentType]?
        var limits: Limits?
        var renditions: RenditionSettings?
        var downloads: DownloadSettings?
        var links: LinkPreviewSettings?
        var ocrLanguages: String?

        enum CodingKeys: String, CodingKey {
            case types, limits, renditions, downloads, links, ocrLanguages = "ocr_languages"
        }
    }

    /// Whether `languages` is a list of Tesseract's language names (`eng`, `chi_sim`) joined by `+`:
    /// they name files, so nothing else is let through.
    package static func isLanguageList(_ languages: String) -> Bool {
        let names = languages.split(separator: "+", omittingEmptySubsequences: false)
        return (1...8).contains(names.count)
            && names.allSatisfy { name in
                (3...16).contains(name.count) && name.allSatisfy { ("a"..."z").contains($0) || $0 == "_" }
            }
    }

    /// A configuration file's limit out of range.
    package struct InvalidLimit: Error, LocalizedError {
        package var problem: String
        package var errorDescription: String? { problem }
    }

    /// Reads a configuration file over the standard rules. Throws on unreadable or malformed JSON,
    /// and ``InvalidLimit`` for a limit out of its range.
    package static func load(contentsOf url: URL) throws -> Configuration {
        let file = try JSONDecoder().decode(File.self, from: Data(contentsOf: url))
        if let problem = file.limits?.problem ?? file.renditions?.problem ?? file.downloads?.problem ?? file.links?.problem {
            throw InvalidLimit(problem: problem)
        }
        if let languages = file.ocrLanguages, !isLanguageList(languages) {
            throw InvalidLimit(problem: "ocr_languages must be Tesseract's language names joined by + (eng, eng+fra), not \(languages)")
        }
        var configuration = Configuration(limits: file.limits ?? Limits())
        configuration.renditions = file.renditions ?? RenditionSettings()
        configuration.downloads = file.downloads ?? DownloadSettings()
        configuration.links = file.links ?? LinkPreviewSettings()
        configuration.ocrLanguages = file.ocrLanguages ?? configuration.ocrLanguages
        for type in file.types ?? [] { configuration.rules.upsert(type) }
        return configuration
    }
}
