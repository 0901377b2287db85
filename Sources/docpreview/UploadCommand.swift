import ArgumentParser
import AsyncHTTPClient
import Foundation
import PreviewCore

/// `docpreview upload FILE --server URL`: sends a file to a server as a resumable upload, resuming
/// after dropped connections, server restarts, and in a later run.
struct UploadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upload",
        abstract: """
            Upload a file to a DocPreview server, resumably: a dropped connection or a restarted server costs only \
            what was in flight, and running the command again for the same file resumes its upload.
            """)

    @Argument(help: "The file to upload.")
    var file: String

    @Option(help: "The server's base URL, e.g. http://127.0.0.1:8080.")
    var server: String

    @Option(help: ArgumentHelp("Read the bearer token from this file (its first line); else $DOCPREVIEW_TOKEN.", valueName: "path"))
    var tokenFile: String?

    @Option(help: "The document's owner.")
    var owner: String?

    @Option(help: "The document's type (its id in the server's rules).")
    var type: String?

    @Option(help: "The document's title (default: the file's name).")
    var title: String?

    @Option(help: "What the document is about.")
    var description: String?

    @Option(help: "The school the document is for.")
    var school: String?

    @Option(help: ArgumentHelp("Bytes per request (at most what the server allows), e.g. 16MB.", valueName: "size"))
    var chunkSize = "16MB"

    @Option(help: "Failures in a row, with no byte arriving between them, before giving up.")
    var retries = 20

    @Flag(help: "Print JSON.")
    var json = false

    func validate() throws {
        guard let chunk = Limits.parseByteCount(chunkSize), chunk >= 64 * 1024 else {
            throw ValidationError("--chunk-size takes a size of 64KB or more.")
        }
        _ = chunk
        try OptionRange.check("--retries", Double(retries), 0...1000)
        guard let url = URL(string: server), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
            throw ValidationError("--server takes an http:// or https:// URL.")
        }
    }

    func run() async throws {
        let url = URL(fileURLWithPath: file)
        let size = try (FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        var token = ProcessInfo.processInfo.environment["DOCPREVIEW_TOKEN"]
        if let tokenFile {
            guard let text = try? String(contentsOfFile: tokenFile, encoding: .utf8) else {
                throw ValidationError("Cannot read the token file \(tokenFile).")
            }
            token = text.split(separator: "\n").first.map { $0.trimmingCharacters(in: .whitespaces) }
        }
        var labels = ["filename": url.lastPathComponent]
        for (name, value) in [("owner", owner), ("type", type), ("title", title), ("description", description), ("school", school)] {
            if let value { labels[name] = value }
        }
        let base = server.hasSuffix("/") ? String(server.dropLast()) : server
        // No redirect is followed: a server that sends the upload elsewhere is refused, not obeyed.
        let http = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .init(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(10), read: .seconds(60))))
        let client = ResumableUploadClient(
            http: http, server: base, token: token, chunkBytes: Limits.parseByteCount(chunkSize)!, retries: retries,
            offload: .commandLine, note: { FileHandle.standardError.write(Data("docpreview upload: \($0)\n".utf8)) })
        let answer: [String: Any]
        do {
            answer = try await client.upload(url, size: size, labels: labels, state: ResumableUploadClient.state(for: url, size: size, server: base))
            try await http.shutdown()
        } catch {
            try? await http.shutdown()
            try CommandReport(json: json).fail(PreviewError(.unavailable, "upload of \(file) failed: \(error)"))
        }
        let printed = try JSONSerialization.data(withJSONObject: answer, options: [.sortedKeys])
        if json {
            print(String(decoding: printed, as: UTF8.self))
        } else {
            print("\(file): uploaded as document \(answer["document_id"] as? String ?? "?") (sha256 \(answer["sha256"] as? String ?? "?"))")
        }
    }
}
