import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import PreviewBackendTestSupport
import PreviewTestSupport
import Testing

/// A `docpreview serve` child process on a loopback port.
final class ServerProcess {
    let process = Process()
    let port: Int
    let store: String
    /// The bearer token `get` and `upload` send, when the server was started with one.
    let token: String?

    init(
        store: String, workers: Int = 2, extra: [String] = [], environment: [String: String] = [:], token: String? = nil,
        port: Int? = nil
    ) throws {
        self.store = store
        self.token = token
        self.port = port ?? LoopbackPort.free()
        process.executableURL = DocPreviewProcess.binary
        process.arguments = ["serve", "--store", store, "--host", "127.0.0.1", "--port", "\(self.port)", "--workers", "\(workers)"] + extra
        process.environment = ProcessInfo.processInfo.environment.merging(environment.merging(token.map { ["DOCPREVIEW_TOKEN": $0] } ?? [:]) { $1 }) {
            $1
        }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        try waitUntil("the server to listen on \(self.port)") {
            guard process.isRunning else {
                throw CocoaError(
                    .featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "the server exited with status \(process.terminationStatus)"])
            }
            return (try? get("/healthz").status) == 200
        }
    }

    /// Document `id` once its `status` is one of `statuses`.
    @discardableResult
    func document(_ id: String, reaching statuses: Set<String> = ["done", "failed"]) throws -> [String: Any] {
        try waitFor("document \(id) to be \(statuses.sorted().joined(separator: " or "))") {
            guard let document = try get("/v1/documents/\(id)").json, statuses.contains(document["status"] as? String ?? "") else { return nil }
            return document
        }
    }

    /// The server's renderer children now: each one's process id and whether it serves background calls.
    var renderers: [(pid: pid_t, background: Bool)] {
        let server = process.processIdentifier
        return ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { entry in
            guard let pid = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let name = stat.lastIndex(of: ")"), Int32(stat[stat.index(name, offsetBy: 4)...].prefix { $0 != " " }) == server,
                let command = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline")
            else { return nil }
            let arguments = command.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            guard arguments.dropFirst().first == "render-child" else { return nil }
            return (pid, arguments.contains("--background"))
        }
    }

    /// Whether the process exited within `timeout`.
    func exits(within timeout: Duration = .seconds(120)) -> Bool {
        (try? waitUntil("the server to exit", timeout: timeout) { !process.isRunning }) != nil
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    var base: String { "http://127.0.0.1:\(port)" }

    func get(_ path: String) throws -> (status: Int, json: [String: Any]?) {
        try Self.send(authorized(URLRequest(url: URL(string: base + path)!)))
    }

    func upload(_ bytes: Data, query: String) throws -> (status: Int, json: [String: Any]?) {
        var request = URLRequest(url: URL(string: base + "/v1/documents?" + query)!)
        request.httpMethod = "POST"
        request.httpBody = bytes
        return try Self.send(authorized(request))
    }

    /// `request` with the server's token, if it has one.
    func authorized(_ request: URLRequest) -> URLRequest {
        var request = request
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        return request
    }

    static func send(_ request: URLRequest) throws -> (status: Int, json: [String: Any]?) {
        let box = ResultBox()
        let done = DispatchSemaphore(value: 0)
        var request = request
        request.timeoutInterval = 30
        URLSession.shared.dataTask(with: request) { data, response, error in
            box.set(data: data, status: (response as? HTTPURLResponse)?.statusCode, error: error)
            done.signal()
        }.resume()
        done.wait()
        return try box.get()
    }
}

final class ResultBox: @unchecked Sendable {  // written once by URLSession's callback, read after the semaphore
    private var data: Data?
    private var status: Int?
    private var error: (any Error)?

    func set(data: Data?, status: Int?, error: (any Error)?) {
        self.data = data
        self.status = status
        self.error = error
    }

    func get() throws -> (status: Int, json: [String: Any]?) {
        if let error { throw error }
        let json = data.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
        return (status ?? 0, json)
    }
}

/// What the serve tests read of a server process and its store.
extension ServeCommandTests {
    /// Waits until `count` uploads are being staged in the store's `tmp/` (0: every staged file removed).
    static func waitForStaging(_ folder: TemporaryFolder, count: Int) throws {
        let tmp = folder.url.path + "/store/tmp"
        try waitUntil("\(count) files staged in \(tmp)") { ((try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? []).count == count }
    }

    /// A date as the CLI's JSON writes it (ISO 8601, with or without fractions of a second).
    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions.insert(.withFractionalSeconds)
        return formatter.date(from: text)
    }

    /// The process's peak resident memory (VmHWM), in MB.
    static func peakResidentMegabytes(_ pid: Int32) -> Int {
        residentMegabytes(pid, field: "VmHWM:")
    }

    static func residentMegabytes(_ pid: Int32, field: String = "VmRSS:") -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix(field) } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
    }

    /// The server's established TCP connections on `port` (its side of them), from /proc/net/tcp.
    static func establishedConnections(port: Int) -> Int {
        // Read to the end: /proc files report no size, and a sized read stops after the first page.
        let table = String(decoding: FileHandle(forReadingAtPath: "/proc/net/tcp")?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        let local = String(format: ":%04X", port)
        return table.split(separator: "\n").dropFirst().count { line in
            let fields = line.split(separator: " ")
            return fields.count > 3 && fields[1].hasSuffix(local) && fields[3] == "01"
        }
    }
}

final class Acknowledged: @unchecked Sendable {  // guarded by its lock
    private let lock = NSLock()
    private var ids: [String: String] = [:]

    func add(title: String, id: String) {
        lock.lock()
        ids[title] = id
        lock.unlock()
    }

    var all: [String: String] {
        lock.lock()
        defer { lock.unlock() }
        return ids
    }
}
