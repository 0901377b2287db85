/// Corpus files where our outcome knowingly differs from `../shared/corpus/manifest.tsv`, with the
/// reason. Tests pin our outcome (as `render` gives it), so any change in behaviour is noticed and reviewed.
let knownCorpusDisagreements: [String: (outcome: String, reason: String)] = [
    "037_pdf.js_poppler-742-0-fuzzed.pdf": ("corrupt", "poppler-glib 22.12's poppler_document_get_page returns NULL for its only page "
        + "(reproduced in C against the library); pdftoppm renders it through poppler's C++ API."),
    "255_pocs_pdf_zip_pe.pdf": ("corrupt", "The stored file is a 196-byte PDF without xref or trailer; the ZIP and PE the note "
        + "describes are not in its bytes, and Poppler cannot open it."),
    "279_thumbor_image": ("ok", "A plain JFIF JPEG without an extension; DESIGN §3 judges such files by their bytes alone, "
        + "as the corpus itself does for 226 (.noext) and 272/273 (no extension)."),
]
