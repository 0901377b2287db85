import PreviewCore

extension Offload {
    /// The lanes the tests' stores and services share: wide enough that no test waits on another's
    /// blocking work, as a server's are for its renders in flight.
    package static let forTests = Offload(reads: 8, writes: 8, renders: 8)
}
