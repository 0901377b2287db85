/// Corpus files where our outcome knowingly differs from `../shared/corpus/manifest.tsv`, with the
/// reason. Tests pin our outcome (as `render` gives it), so any change in behaviour is noticed and reviewed.
let knownCorpusDisagreements: [String: (outcome: String, reason: String)] = [
    "037_pdf.js_poppler-742-0-fuzzed.pdf": ("corrupt", "poppler-glib 22.12's poppler_document_get_page returns NULL for its only page "
        + "(reproduced in C against the library); pdftoppm renders it through poppler's C++ API."),
].merging(officePreviewsToCome) { pinned, _ in pinned }

/// The manifest expects previews of valid office, text and CSV files; until the office renderer
/// (LibreOfficeKit, issue 14) lands they are stored without one.
private let officePreviewsToCome: [String: (outcome: String, reason: String)] = Dictionary(uniqueKeysWithValues: [
    "269_tika_testBMPfp.txt", "272_preview-gene_the_docx", "273_preview-gene_the_xlsx_no_extension", "278_file-type_fixture-2.doc.cfb",
    "288_file-type_fixture.docx", "290_magika_magika_test.pptx", "291_magika_doc.odt", "292_magika_magika_test.csv",
].map { ($0, (outcome: "no_preview", reason: "office, text and CSV previews come with the LibreOfficeKit renderer (issue 14)")) })
