import ArgumentParser
import Foundation
import PreviewServer

/// `docpreview tls-init --out DIR`: a self-signed certificate for a private server, and its pin.
struct TLSInitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tls-init", abstract: "Make a self-signed TLS certificate and key for serve --tls-cert/--tls-key; print the pin clients check.",
        discussion: """
            Writes DIR/cert.pem and DIR/key.pem (readable by this user only) for the names and addresses given with --name \
            (default: localhost, 127.0.0.1, ::1 and this host's name), valid for 825 days. Prints the SHA-256 pin of its \
            public key (base64, and as curl's --pinnedpubkey takes it): what a mobile client pins instead of trusting a CA.
            """)

    @Option(help: ArgumentHelp("The folder for cert.pem and key.pem.", valueName: "dir"))
    var out: String

    @Option(help: ArgumentHelp("A host name or IP address clients reach the server by (repeatable).", valueName: "name"))
    var name: [String] = []

    @Flag(help: "Print JSON.")
    var json = false

    func run() throws {
        let names = name.isEmpty ? ["localhost", "127.0.0.1", "::1", ProcessInfo.processInfo.hostName] : name
        let made = try SelfSignedCertificate(names: names.reduce(into: []) { if !$0.contains($1) { $0.append($1) } })
        let folder = URL(fileURLWithPath: out)
        let (certificate, key) = (folder.appendingPathComponent("cert.pem"), folder.appendingPathComponent("key.pem"))
        guard !FileManager.default.fileExists(atPath: key.path) else {
            throw ValidationError("\(key.path) exists; a new key would change the pin clients check. Remove it first if that is what you want.")
        }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            guard FileManager.default.createFile(atPath: key.path, contents: Data(made.privateKeyPEM.utf8), attributes: [.posixPermissions: 0o600])
            else {
                throw CocoaError(.fileWriteNoPermission)
            }
            try Data(made.certificatePEM.utf8).write(to: certificate)
        } catch {
            throw ValidationError("Cannot write to \(folder.path): \(error.localizedDescription)")
        }
        try CommandReport(json: json).succeed(
            TLSInitReport(certificate: certificate.path, key: key.path, pin: made.pin, curlPin: "sha256//\(made.pin)"),
            human: "\(certificate.path)\n\(key.path)\npin (SHA-256 of the public key): \(made.pin)\n"
                + "curl --cacert \(certificate.path) --pinnedpubkey sha256//\(made.pin) https://localhost:8080/healthz")
    }
}

/// What `tls-init --json` prints.
struct TLSInitReport: Encodable {
    var certificate: String
    var key: String
    var pin: String
    /// The pin as curl's `--pinnedpubkey` takes it.
    var curlPin: String
}
