import Foundation

/// NUL-terminated copies of strings for a C call that takes an array of them (`char *const argv[]`),
/// the array ending in a null pointer as `argv` and `envp` do, freed when the call returns.
package enum CStrings {
    package static func with<T>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> T) -> T {
        let copies = strings.map { strdup($0) } + [nil]
        defer { copies.forEach { free($0) } }
        return body(copies)
    }
}
