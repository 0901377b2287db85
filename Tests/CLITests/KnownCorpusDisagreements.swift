/// The job limit of the tests that run the whole corpus through `render`, `ingest`, `batch` and `serve`: a
/// wall-clock deadline, so long enough for `011_pdf.js_issue16263.pdf` (its 40 small arrows are huge image masks that
/// Splash decodes in full: 10–13 s of CPU here, as in pdftoppm) on a machine whose cores are all busy, where 40 s
/// was not (`scripts/test --under-load` read `timeout`); the decompression bomb, the one file that uses it up, may
/// end as `timeout`, `corrupt` or `ok`.
let corpusJobSeconds = 120

/// Corpus files where our outcome knowingly differs from `../shared/corpus/manifest.tsv`, with the
/// reason. Tests pin our outcome (as `render` gives it), so any change in behaviour is noticed and reviewed.
/// None today: the last one (a fuzzed PDF whose only page poppler-glib could not load) renders since
/// pages are drawn by Splash, as pdftoppm draws them.
let knownCorpusDisagreements: [String: (outcome: String, reason: String)] = [:]
