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

    @Option(help: ArgumentHelp("Seconds one file may take before it fails with `timeout` (default 60).", valueName: "seconds"))
    var timeout: Double?

    /// The same choices as plain values.
    var settings: ValidationSettings {
        ValidationSettings(documentType: documentType, config: config, maxSize: maxSize, timeout: timeout)
    }
}

/// What the validation options chose, and the configuration and verdicts that follow from it.
struct ValidationSettings: Equatable {
    var documentType: String?
    var config: String?
    var maxSize: String?
    var timeout: Double?

    /// The configuration from `--config`, else `$DOCPREVIEW_CONFIG`, with `--max-size` (else
    /// `$DOCPREVIEW_MAX_SIZE`) and `--timeout` (else `$DOCPREVIEW_JOB_TIMEOUT`) applied on top.
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
        if let text = timeout.map({ String($0) }) ?? environment["DOCPREVIEW_JOB_TIMEOUT"] {
            guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds <= Limits.maxJobSeconds else {
                throw ValidationError("Invalid timeout '\(text)'; give seconds, at most \(Int(Limits.maxJobSeconds)).")
            }
            configuration.limits.jobSeconds = seconds
        }
        return configuration
    }

    /// ``configuration(environment:)`` for commands that read local files (`render`, `info`,
    /// `ingest`, `batch`): a size refusal says how to raise the limit.
    func localConfiguration() throws -> Configuration {
        var configuration = try configuration()
        configuration.sizeLimitAdvice = "To accept larger files, give --max-size (e.g. --max-size 200MB) or set $DOCPREVIEW_MAX_SIZE."
        return configuration
    }

    /// The local configuration and the verdict on the one file a command works on; a refused file
    /// is reported through `report`, which ends the command with the refusal's exit code.
    func admit(_ path: String, reporting report: CommandReport) throws -> (configuration: Configuration, verdict: Verdict) {
        let configuration = try localConfiguration()
        let verdict = try validate(path, in: configuration)
        if let refusal = verdict.refusal { try report.fail(refusal) }
        return (configuration, verdict)
    }

    /// Validates the file at `path` with this configuration and the declared type.
    /// A missing or unreadable file is a usage error.
    func validate(_ path: String, in configuration: Configuration) throws -> Verdict {
        let declaredType = try declaredType(in: configuration)
        let url = try Self.existingFile(path)
        do {
            return try Validator(configuration: configuration).validate(fileAt: url, declaredType: declaredType)
        } catch {
            throw ValidationError("Cannot read \(path): \(error.localizedDescription)")
        }
    }

    /// The URL of `path` when it is a file (not a folder); otherwise a usage error.
    static func existingFile(_ path: String) throws -> URL {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw ValidationError("No such file: \(path)")
        }
        return URL(fileURLWithPath: path)
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
