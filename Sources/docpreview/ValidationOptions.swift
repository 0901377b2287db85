import ArgumentParser
import Foundation
import PreviewCore

/// Options shared by every command that validates input: rules file, size limit, declared type.
struct ValidationOptions: ParsableArguments {
    @Option(name: .customLong("type"), help: "Declared document type (e.g. resume, highlight_video); checks the extension against its rules.")
    var documentType: String?

    @Option(help: ArgumentHelp("JSON file adding document types or changing limits.", valueName: "file"))
    var config: String?

    @Option(name: .customLong("max-size"), help: ArgumentHelp("Largest accepted file, e.g. 100MB.", valueName: "size"))
    var maxSize: String?

    /// The configuration from `--config`, else `$DOCPREVIEW_CONFIG`, with `--max-size` (else
    /// `$DOCPREVIEW_MAX_SIZE`) applied on top.
    func configuration(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Configuration {
        var configuration = Configuration()
        if let path = config ?? environment["DOCPREVIEW_CONFIG"] {
            do {
                configuration = try Configuration.load(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw ValidationError("Cannot read configuration \(path): \(error.localizedDescription)")
            }
        }
        if let text = maxSize ?? environment["DOCPREVIEW_MAX_SIZE"] {
            guard let bytes = Limits.parseByteCount(text) else {
                throw ValidationError("Invalid size '\(text)'; use bytes or a unit such as 100MB.")
            }
            configuration.limits.maxFileBytes = bytes
        }
        return configuration
    }

    /// The declared type, if any; an unknown id is a usage error that lists the known ones.
    func declaredType(in configuration: Configuration) throws -> DocumentType? {
        guard let documentType else { return nil }
        guard let type = configuration.rules.type(id: documentType) else {
            let known = configuration.rules.types.map(\.id).joined(separator: ", ")
            throw ValidationError("Unknown document type '\(documentType)'. Known types: \(known).")
        }
        return type
    }
}
