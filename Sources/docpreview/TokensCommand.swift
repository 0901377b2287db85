import ArgumentParser
import Foundation
import Logging
import PreviewCore
import PreviewDocuments
import PreviewFetch
import PreviewPipeline
import PreviewRenderers

/// `docpreview tokens add --device NAME [--owner O] | list | revoke NAME`: the tokens phones send links with.
struct TokensCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokens", abstract: "Add, list or revoke the tokens devices send links with (POST /api/v1/download).",
        discussion: """
            A device token opens the download routes (/api/v1/) and nothing else; revoking it takes effect at once, \
            without changing the service token. add prints the token once: only its SHA-256 is kept.
            """)

    @Argument(help: "add, list or revoke.")
    var action: String

    @Argument(help: "revoke: the device's name.")
    var name: String?

    @Option(help: "add: the device's name (e.g. \"Ana's iPhone\").")
    var device: String?

    @Option(help: "add: who the device's downloads belong to (default: its name).")
    var owner: String?

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print JSON.")
    var json = false

    func validate() throws {
        switch action {
        case "add": if device == nil { throw ValidationError("add needs --device NAME.") }
        case "revoke": if name == nil { throw ValidationError("revoke needs the device's name.") }
        case "list": break
        default: throw ValidationError("Use add --device NAME, list, or revoke NAME.")
        }
    }

    struct Added: Encodable {
        var device: String
        var owner: String
        var token: String
    }

    func run() throws {
        let documents = try storeOptions.documents()
        let report = CommandReport(json: json)
        switch action {
        case "add":
            let (record, token) = try documents.addDevice(name: device!, owner: owner)
            try report.succeed(Added(device: record.name, owner: record.owner, token: token),
                               human: "\(token)\n(the token of \(record.name), whose links become \(record.owner)'s documents; shown once)")
        case "revoke":
            guard try documents.revokeDevice(name: name!) else { throw PreviewError(.notFound, "No live device named \(name!).") }
            try report.succeed(["revoked": name!], human: "revoked \(name!)")
        default:
            let devices = try documents.devices()
            let lines = devices.map { "\($0.name)\t\($0.owner)\t\($0.revokedAt == nil ? "live" : "revoked")" }
            try report.succeed(devices, human: lines.isEmpty ? "no devices" : lines.joined(separator: "\n"))
        }
    }
}
