// The contract between the Poppler shim library (PopplerSplash) and its lazy callers (CPoppler): only
// the header in include/. SwiftPM wants a source file in a C target; nothing is defined here.
