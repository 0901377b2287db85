/// Corpus files where our outcome knowingly differs from `../shared/corpus/manifest.tsv`, with the
/// reason. Tests pin our outcome (as `render` gives it), so any change in behaviour is noticed and reviewed.
let knownCorpusDisagreements: [String: (outcome: String, reason: String)] = [
    "037_pdf.js_poppler-742-0-fuzzed.pdf": ("corrupt", "poppler-glib 22.12's poppler_document_get_page returns NULL for its only page "
        + "(reproduced in C against the library); pdftoppm renders it through poppler's C++ API."),
]
