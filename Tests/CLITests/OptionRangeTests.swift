import Foundation
import PreviewTestSupport
import Testing

/// Every size, count and time a person or a config file gives: out of range, negative, NaN or
/// infinite is a usage error (exit 2) with a message, never a trap (`--max-size infB` crashed).
@Suite(.blocking) struct OptionRangeTests {
    @Test func absurdNumbersAreUsageErrors() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let sample = Fixtures.sample("image.webp").path
        let store = ["--store", folder.url.appendingPathComponent("store").path]
        func config(_ limits: String) throws -> String {
            try folder.file("config-\(UUID().uuidString).json", Array(#"{"limits": \#(limits)}"#.utf8)).path
        }
        var cases: [[String]] = []
        for size in ["infB", "infMB", "nanGB", "1e30GB", "-5", "-1KB", "99999999999999999999999", "2e15MB"] {
            cases.append(["info", sample, "--max-size", size])
        }
        for seconds in ["inf", "nan", "-1", "0", "1e300"] {
            cases.append(["info", sample, "--timeout", seconds])
            cases.append(["gc", "--grace", seconds == "0" ? "-0.5" : seconds] + store)
        }
        for limits in [
            #"{"job_seconds": 1e308}"#, #"{"job_seconds": -3}"#, #"{"renderer_memory_bytes": -1}"#,
            #"{"max_file_bytes": -5}"#, #"{"max_file_bytes": 0}"#, #"{"max_pixels": 0}"#,
            #"{"max_file_bytes": 9223372036854775807}"#
        ] {
            cases.append(["info", sample, "--config", try config(limits)])
        }
        cases += [
            ["render", sample, "-o", "/dev/null", "--width", "0"], ["render", sample, "-o", "/dev/null", "--quality", "1000"],
            ["render", sample, "-o", "/dev/null", "--page", "-1"],
            ["batch", Fixtures.samples.path, "--jobs", "0"] + store, ["batch", Fixtures.samples.path, "--jobs", "99999999999"] + store,
            ["serve", "--port", "70000"] + store, ["serve", "--port", "-1"] + store, ["serve", "--workers", "-1"] + store,
            ["serve", "--workers", "100000"] + store, ["serve", "--idle-timeout", "9223372036854775807"] + store,
            ["serve", "--idle-timeout", "0"] + store, ["serve", "--max-renders", "0"] + store, ["serve", "--max-queued", "-1"] + store,
            ["worker", "--concurrency", "0"] + store, ["worker", "--concurrency", "9223372036854775807"] + store,
            ["tokens", "add"] + store, ["tokens", "revoke"] + store, ["tokens", "forget", "x"] + store
        ]
        for arguments in cases {
            let result = try DocPreviewProcess.run(arguments, timeout: 30)
            #expect(result.status == 2, "\(arguments): exit \(result.status), \(result.stderr.suffix(300))")
            #expect(!result.stderr.isEmpty, "\(arguments): no message")
        }
    }
}
