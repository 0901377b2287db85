import ArgumentParser
import Foundation
import PreviewCore

/// `docpreview info INPUT [--type T] [--json]`: detected kind, verdict and, for refused files, the error.
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show a file's detected type and upload verdict, without rendering."
    )

    @Argument(help: "The file to inspect.")
    var input: String

    @OptionGroup var validation: ValidationOptions

    @Flag(help: "Print JSON (DESIGN §7 shape).")
    var json = false

    func run() throws {
        let configuration = try validation.configuration()
        let declaredType = try validation.declaredType(in: configuration)
        let url = URL(fileURLWithPath: input)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw ValidationError("No such file: \(input)")
        }
        let verdict: Verdict
        do {
            verdict = try Validator(configuration: configuration).validate(fileAt: url, declaredType: declaredType)
        } catch {
            throw ValidationError("Cannot read \(input): \(error.localizedDescription)")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        let report = InfoReport(path: input, size: size, verdict: verdict)
        if json {
            print(try report.jsonString())
        } else {
            print(report.humanReadable)
        }
        if let refusal = verdict.refusal { throw ExitCode(refusal) }
    }
}
