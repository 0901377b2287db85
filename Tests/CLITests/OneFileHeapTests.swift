import Foundation
import PreviewTestSupport
import Testing

/// `render` draws a page into heap that transparent huge pages back (`OneFileHeap`): seen from
/// outside, in the running process's memory map, while it works on a page that takes long.
@Suite(.blocking) struct OneFileHeapTests {
    /// No sanitizer's allocator stands in for malloc's heap (`scripts/sanitize` sets their options).
    static let applies: Bool = {
        let environment = ProcessInfo.processInfo.environment
        return environment["ASAN_OPTIONS"] == nil && environment["TSAN_OPTIONS"] == nil && !TestSkips.skips("hugepages")
    }()

    @Test(.enabled(if: applies)) func aRenderingPageLivesInHugePageHeap() throws {
        let setting = Self.contents(of: "/sys/kernel/mm/transparent_hugepage/enabled") ?? "[never]"
        guard !setting.contains("[never]") else {
            Issue.record("\(TestSkips.missing("hugepages", "transparent huge pages are off on this machine (\(setting))"))")
            return
        }
        // The corpus's decompression bomb: Poppler draws it for minutes, its bitmap allocated first.
        let bomb = Fixtures.corpus.appendingPathComponent("files/067_pdf.js_bomb_giant.pdf")
        try #require(FileManager.default.fileExists(atPath: bomb.path))
        let process = try QuietProcess.start(DocPreviewProcess.binary, ["render", bomb.path, "-o", "/dev/null", "--timeout", "20"])
        defer { process.killAndWait() }
        var hugePages = 0
        try? waitUntil("the page's heap to hold huge pages", timeout: .seconds(60), interval: .milliseconds(50)) {
            hugePages = Self.heapHugePageKilobytes(of: process.processIdentifier)
            return hugePages > 0 || !process.isRunning
        }
        #expect(hugePages >= 2048, "the heap holds at least one 2 MiB page (\(hugePages) kB)")
    }

    /// A file's text, read to its end (files under /proc and /sys report no size).
    static func contents(of path: String) -> String? {
        guard let file = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? file.close() }
        return (try? file.readToEnd()).map { String(decoding: $0, as: UTF8.self) }
    }

    /// AnonHugePages of the process's heap mappings, in kB.
    static func heapHugePageKilobytes(of pid: Int32) -> Int {
        guard let maps = contents(of: "/proc/\(pid)/smaps") else { return 0 }
        var inHeap = false
        var total = 0
        for line in maps.split(separator: "\n") {
            if let first = line.first, first.isHexDigit, line.contains("-") {
                inHeap = line.hasSuffix("[heap]")
            } else if inHeap, line.hasPrefix("AnonHugePages:") {
                total += Int(line.split(separator: " ")[1]) ?? 0
            }
        }
        return total
    }
}
