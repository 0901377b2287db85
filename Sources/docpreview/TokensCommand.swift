import ArgumentParser
import PreviewCore
import PreviewDocuments

/// `docpreview tokens add --device NAME [--owner O] | list | revoke NAME`: the tokens phones send links with.
struct TokensCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokens", abstract: "Add, list or revoke the tokens devices send links with (POST /api/v1/download).",
        discussion: """
            A device token opens the download routes (/api/v1/) and nothing else; revoking it takes effect at once, \
            without changing the service token. add prints the token once: only its SHA-256 is kept.
            """,
        subcommands: [Add.self, List.self, Revoke.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a device's token and print it, once.")

        @Option(help: "The device's name (e.g. \"Ana's iPhone\").")
        var device: String

        @Option(help: "Who the device's downloads belong to (default: its name).")
        var owner: String?

        @OptionGroup var storeOptions: StoreOptions

        @Flag(help: "Print JSON.")
        var json = false

        struct Added: Encodable {
            var device: String
            var owner: String
            var token: String
        }

        func run() async throws {
            let (record, token) = try await storeOptions.documents().addDevice(name: device, owner: owner)
            try CommandReport(json: json).succeed(
                Added(device: record.name, owner: record.owner, token: token),
                human: "\(token)\n(the token of \(record.name), whose links become \(record.owner)'s documents; shown once)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the devices, live and revoked.")

        @OptionGroup var storeOptions: StoreOptions

        @Flag(help: "Print JSON.")
        var json = false

        func run() async throws {
            let devices = try await storeOptions.documents().devices()
            let lines = devices.map { "\($0.name)\t\($0.owner)\t\($0.revokedAt == nil ? "live" : "revoked")" }
            try CommandReport(json: json).succeed(devices, human: lines.isEmpty ? "no devices" : lines.joined(separator: "\n"))
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "End a device's token at once.")

        @Argument(help: "The device's name.")
        var name: String

        @OptionGroup var storeOptions: StoreOptions

        @Flag(help: "Print JSON.")
        var json = false

        func run() async throws {
            guard try await storeOptions.documents().revokeDevice(name: name) else { throw PreviewError(.notFound, "No live device named \(name).") }
            try CommandReport(json: json).succeed(["revoked": name], human: "revoked \(name)")
        }
    }
}
