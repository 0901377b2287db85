import Foundation

/// Locates test inputs from this file's own path, never from the working directory.
public enum Fixtures {
    /// The package root (the folder holding Package.swift).
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `Samples/`, the small committed samples.
    public static let samples = packageRoot.appendingPathComponent("Samples")

    /// `../shared/corpus/` beside the project, when present.
    public static let corpus = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")

    /// A committed sample by file name.
    public static func sample(_ name: String) -> URL { samples.appendingPathComponent(name) }
}
