import Foundation

/// Locates test inputs from this file's own path, never from the working directory.
package enum Fixtures {
    /// The package root (the folder holding Package.swift).
    package static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `Samples/`, the small committed samples.
    package static let samples = packageRoot.appendingPathComponent("Samples")

    /// `../shared/corpus/` beside the project, when present.
    package static let corpus = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")

    /// A committed sample by file name.
    package static func sample(_ name: String) -> URL { samples.appendingPathComponent(name) }

    /// The 5-page sample PDF, still valid, carrying the renderer children's test-hook `marker`
    /// (`hang`, `crash`, `garbage`: a child started with `DOCPREVIEW_TEST_HOOKS=1` acts on it).
    package static func hookPDF(_ marker: String) throws -> Data {
        var pdf = try Data(contentsOf: sample("document-5-pages.pdf"))
        let newline = pdf.firstIndex(of: 0x0A) ?? pdf.startIndex
        pdf.insert(contentsOf: Data("%docpreview-test-\(marker)\n".utf8), at: newline + 1)
        return pdf
    }

    /// A transcript's lines, for pages of text that OCR reads (``LinesPDF``, ``PhonePhoto``).
    package static let transcriptLines = [
        "Official Transcript of Academic Record",
        "Student: Jordan Alvarez   Graduation: June 2026",
        "AP Biology 5   AP Chemistry 4   Calculus BC 5",
        "English Literature A   World History A-   Spanish IV B+",
        "Cumulative GPA 3.87   Class rank 12 of 412",
        "Varsity soccer captain, 40-yard dash 4.52 seconds"
    ]
}
