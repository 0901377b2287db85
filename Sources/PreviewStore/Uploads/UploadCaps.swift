/// How many uploads may be open at once, and how many bytes they may stage, per owner and per client.
package struct UploadCaps: Sendable, Equatable {
    package var sessionsPerOwner = 20
    package var sessionsPerClient = 20
    /// An open upload counts its declared length, or the largest file allowed while it has none.
    package var stagedBytesPerOwner = 4 << 30
    package var stagedBytesPerClient = 4 << 30
    /// How long an upload that has received no byte counts against the caps.
    package var emptySeconds = 600

    package init() {}
}
