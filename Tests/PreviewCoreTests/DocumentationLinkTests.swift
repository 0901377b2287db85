import Foundation
import PreviewTestSupport
import Testing

/// Every relative link in the repository's Markdown names a file of the repository (and a heading
/// of it, when it has an anchor): a clone reads as it was written, with nothing pointing outside.
@Suite struct DocumentationLinkTests {
    @Test func everyRelativeLinkResolvesInsideTheRepository() throws {
        let root = Fixtures.packageRoot.standardizedFileURL
        var problems: [String] = []
        var checked = 0
        for file in try MarkdownLinks.files(under: root) {
            let text = try String(contentsOf: file, encoding: .utf8)
            for link in MarkdownLinks.links(in: text) {
                checked += 1
                if let problem = try MarkdownLinks.problem(with: link, in: file, root: root) {
                    problems.append("\(file.path.dropFirst(root.path.count + 1)): \(link): \(problem)")
                }
            }
        }
        #expect(checked > 30, "the links were found")
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test func aBrokenLinkIsFound() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let root = folder.url.standardizedFileURL
        try FileManager.default.createDirectory(at: root.appendingPathComponent("docs"), withIntermediateDirectories: true)
        let page = try folder.file("docs/page.md", Array("# A page\n\n## Zoom: IIIF Image API 3.0\n".utf8))
        let text = """
            [fine](../docs/page.md#zoom-iiif-image-api-30) [here](#a-page) `[code](nowhere.md)`
            [gone](missing.md) [outside](../../shared/DESIGN.md) [anchor](page.md#nothing) [web](https://iiif.io/api/image/3.0/)
            ```
            [fenced](nowhere.md)
            ```
            """
        let links = MarkdownLinks.links(in: text)
        #expect(
            links == [
                "../docs/page.md#zoom-iiif-image-api-30", "#a-page", "missing.md", "../../shared/DESIGN.md",
                "page.md#nothing", "https://iiif.io/api/image/3.0/"
            ])
        let found = try links.map { try MarkdownLinks.problem(with: $0, in: page, root: root) }
        #expect(found[0] == nil && found[1] == nil && found[5] == nil)
        #expect(found[2] == "no such file" && found[3] == "leaves the repository" && found[4] == "no such heading")
    }
}

/// Finding and checking the links of Markdown files, as GitHub renders them.
enum MarkdownLinks {
    /// The Markdown files of the repository, outside hidden folders (`.build`, `.git`, the test tools).
    static func files(under root: URL) throws -> [URL] {
        let walk = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil, options: [.skipsHiddenFiles])
        var found: [URL] = []
        while let url = walk?.nextObject() as? URL {
            if url.pathExtension == "md" { found.append(url) }
        }
        return found.sorted { $0.path < $1.path }
    }

    /// The targets of `[label](target)` links outside code.
    static func links(in text: String) -> [String] {
        let prose = withoutCode(text)
        let pattern = /\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^)\s]+)\)/
        return prose.matches(of: pattern).map { String($0.output.1) }
    }

    /// What is wrong with `link` in `file`, or nil.
    static func problem(with link: String, in file: URL, root: URL) throws -> String? {
        if link.range(of: #"^[a-z][a-z0-9+.-]*:"#, options: .regularExpression) != nil { return nil }
        let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(parts[0]).removingPercentEncoding ?? String(parts[0])
        let target = path.isEmpty ? file : file.deletingLastPathComponent().appendingPathComponent(path).standardizedFileURL
        guard target.path == root.path || target.path.hasPrefix(root.path + "/") else { return "leaves the repository" }
        guard FileManager.default.fileExists(atPath: target.path) else { return "no such file" }
        guard parts.count == 2, target.pathExtension == "md" else { return nil }
        let headings = try headingAnchors(of: String(contentsOf: target, encoding: .utf8))
        return headings.contains(String(parts[1])) ? nil : "no such heading"
    }

    /// The anchors GitHub gives a file's headings.
    static func headingAnchors(of text: String) -> Set<String> {
        Set(
            withoutCode(text, keepingInline: true).split(separator: "\n").compactMap { line -> String? in
                guard let heading = line.firstMatch(of: /^#{1,6} +(.*)$/) else { return nil }
                return anchor(String(heading.output.1))
            })
    }

    /// GitHub's anchor of a heading: its text without link targets and code marks, lower case,
    /// punctuation dropped, spaces as hyphens.
    static func anchor(_ heading: String) -> String {
        let text = heading.replacing(/\[([^\]]*)\]\([^)]*\)/) { String($0.output.1) }.lowercased()
        let kept = text.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) || $0 == " " || $0 == "-" || $0 == "_" }
        return String(String.UnicodeScalarView(kept)).replacingOccurrences(of: " ", with: "-")
    }

    /// `text` without fenced code blocks and, unless `keepingInline`, without inline code spans.
    private static func withoutCode(_ text: String, keepingInline: Bool = false) -> String {
        var inFence = false
        var lines: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                inFence.toggle()
                continue
            }
            if !inFence { lines.append(line) }
        }
        let prose = lines.joined(separator: "\n")
        return keepingInline ? prose : prose.replacing(/`[^`\n]*`/, with: "")
    }
}
