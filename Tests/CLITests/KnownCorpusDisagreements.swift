/// The job limit of the tests that run the whole corpus through `render`, `ingest`, `batch` and `serve`. Long enough for
/// `011_pdf.js_issue16263.pdf`, whose 40 small arrows are huge image masks that Splash decodes in full
/// (10–13 s here, as in pdftoppm); short enough that the decompression bombs end as `timeout` quickly.
let corpusJobSeconds = 40

/// Corpus files where our outcome knowingly differs from `../shared/corpus/manifest.tsv`, with the
/// reason. Tests pin our outcome (as `render` gives it), so any change in behaviour is noticed and reviewed.
/// None today: the last one (a fuzzed PDF whose only page poppler-glib could not load) renders since
/// pages are drawn by Splash, as pdftoppm draws them.
let knownCorpusDisagreements: [String: (outcome: String, reason: String)] = [:]
