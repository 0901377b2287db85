import Foundation

/// What the scale tools (`index-scale`, `search-scale`, `queue-load`) share: their first argument
/// (the backend), a store folder of their own, their clock and their one-line JSON reports.
public enum ScaleRun {
    /// The PostgreSQL address of the first argument (nil for `sqlite`) and the arguments after it;
    /// without one, `usage` on stderr and exit 2.
    public static func arguments(usage: String) -> (database: String?, rest: [String]) {
        let arguments = CommandLine.arguments
        guard arguments.count >= 2 else {
            FileHandle.standardError.write(Data("usage: \(usage)\n".utf8))
            exit(2)
        }
        return (arguments[1] == "sqlite" ? nil : arguments[1], Array(arguments.dropFirst(2)))
    }

    /// A fresh folder under the temporary one, named after the tool (the caller removes it).
    public static func folder(_ tool: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("\(tool)-\(UUID().uuidString)")
    }

    /// Prints `object` as one line of JSON, keys sorted, at once.
    public static func report(_ object: [String: Any]) {
        print(String(decoding: try! JSONSerialization.data(withJSONObject: object, options: .sortedKeys), as: UTF8.self))
        fflush(nil)
    }

    /// Seconds since `start`.
    public static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = start.duration(to: .now).components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
    }
}
