import ArgumentParser
@testable import docpreview
import PreviewCore
import Testing

/// `render`'s own reading of its command line (`RenderJob(commandLine:)`) against ArgumentParser's:
/// the same job whenever it reads one, and nothing (so ArgumentParser reads it) otherwise.
@Suite struct RenderCommandLineTests {
    /// What ArgumentParser makes of `arguments`, or nil where it refuses them or asks for help.
    private func parsed(_ arguments: [String]) -> RenderJob? {
        (try? DocPreview.parseAsRoot(arguments) as? RenderCommand)?.job
    }

    static let plain: [[String]] = [
        ["render", "in.pdf", "-o", "out.jpg"],
        ["render", "-o", "out.png", "in.pdf"],
        ["render", "in.pdf", "--output", "out.webp", "--json"],
        ["render", "in.pdf", "--output=out.jpg", "--page", "1500"],
        ["render", "in.pdf", "-o", "out.jpg", "--page=3", "--width", "600", "--height=400", "--format", "png"],
        ["render", "in.pdf", "-o", "out.jpg", "--quality", "55", "--type", "resume", "--config", "rules.json"],
        ["render", "--max-size", "100MB", "--timeout", "2.5", "in.mov", "-o", "frame.jpg"],
        ["render", "in.pdf", "-o", "out.bin", "--format=webp", "--quality=100"],
        ["render", "in.pdf", "-o", "out.jpg", "--type=-odd"],
        ["render", "", "-o", "out.jpg"]
    ]

    @Test(arguments: plain)
    func readsThePlainFormAsArgumentParserDoes(arguments: [String]) throws {
        let job = try #require(RenderJob(commandLine: arguments), "the plain form is read without ArgumentParser")
        #expect(job == parsed(arguments))
    }

    static let leftToArgumentParser: [[String]] = [
        ["render"],
        ["render", "in.pdf"],
        ["render", "--help"],
        ["render", "-h"],
        ["render", "in.pdf", "-o", "a.jpg", "--help"],
        ["render", "in.pdf", "-o"],
        ["render", "in.pdf", "-o", "a.jpg", "--page"],
        ["render", "in.pdf", "-o", "a.jpg", "--page", "0"],
        ["render", "in.pdf", "-o", "a.jpg", "--page", "-1"],
        ["render", "in.pdf", "-o", "a.jpg", "--page=-1"],
        ["render", "in.pdf", "-o", "a.jpg", "--page", "two"],
        ["render", "in.pdf", "-o", "a.jpg", "--width", "0"],
        ["render", "in.pdf", "-o", "a.jpg", "--width", "5000"],
        ["render", "in.pdf", "-o", "a.jpg", "--quality", "101"],
        ["render", "in.pdf", "-o", "a.jpg", "--format", "gif"],
        ["render", "in.pdf", "-o", "a.jpg", "--timeout", "soon"],
        ["render", "in.pdf", "-o", "a.jpg", "--page", "2", "--page", "3"],
        ["render", "in.pdf", "-o", "a.jpg", "--json", "--json"],
        ["render", "in.pdf", "-o", "a.jpg", "--jsonx"],
        ["render", "in.pdf", "-o", "a.jpg", "--json=true"],
        ["render", "in.pdf", "-o=a.jpg"],
        ["render", "in.pdf", "-oa.jpg"],
        ["render", "in.pdf", "second.pdf", "-o", "a.jpg"],
        ["render", "in.pdf", "-o", "a.jpg", "--", "-odd.pdf"],
        ["render", "in.pdf", "-o", "a.jpg", "--store", "s"],
        ["info", "in.pdf", "-o", "a.jpg"],
        ["help", "render"],
        []
    ]

    @Test(arguments: leftToArgumentParser)
    func leavesEverythingElseToArgumentParser(arguments: [String]) {
        #expect(RenderJob(commandLine: arguments) == nil)
    }

    /// Every option `render` declares is one the plain reading knows: an option added to the command
    /// but not here would quietly send every use of it down the slower path.
    @Test func knowsEveryOptionTheCommandDeclares() throws {
        let declared = Set(
            RenderCommand.helpMessage(columns: 400).split(whereSeparator: { " ,\n".contains($0) })
                .filter { $0.hasPrefix("-") && $0 != "-h" && $0 != "--help" }
                .map { String($0.split(separator: "=")[0]) })
        #expect(declared.count > 5, "the help lists the options")
        for option in declared where option != "--json" {
            #expect(RenderArgument(name: option[...]) != nil, "\(option)")
        }
    }
}
