import ArgumentParser
import Foundation
import PreviewCore

/// Prints a command's result as JSON or for people, and turns failures into the contract's exit codes.
struct CommandReport {
    var json: Bool

    /// Prints the error (object or line) and exits with its code.
    func fail(_ error: PreviewError) throws -> Never {
        if json {
            print(try Self.encode(ErrorEnvelope(error)))
        } else {
            FileHandle.standardError.write(Data(Self.forPeople("\(error.code): \(error.message)\n").utf8))
        }
        throw ExitCode(error)
    }

    /// What `body` returns; a ``PreviewError`` it throws is reported, and the command exits with its code.
    func attempt<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PreviewError {
            try fail(error)
        }
    }

    /// ``attempt(_:)`` of work that awaits (the store's).
    func attempt<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as PreviewError {
            try fail(error)
        }
    }

    func succeed(_ value: some Encodable, human: String) throws {
        print(json ? try Self.encode(value) : Self.forPeople(human))
    }

    /// `text` for a terminal, line by line and column by column: names from files and uploads
    /// cannot move the cursor, colour the screen or reorder a line (``SafeText/terminal(_:)``); the
    /// tabs between columns stay (a command that prints a stranger's text in a column neutralises
    /// that text's own tabs first, with ``SafeText/terminal(_:)``).
    static func forPeople(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.split(separator: "\t", omittingEmptySubsequences: false).map { SafeText.terminal(String($0)) }.joined(separator: "\t")
        }.joined(separator: "\n")
    }

    /// Stable JSON as the API writes it: sorted keys in snake_case, no escaped slashes.
    static func encode(_ value: some Encodable) throws -> String {
        String(decoding: try StableJSON.encode(value, keys: .snakeCase), as: UTF8.self)
    }
}
