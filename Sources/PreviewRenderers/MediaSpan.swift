/// A part of a video, in seconds from its start: a clip's, or one of a teaser's.
public struct MediaSpan: Sendable, Codable, Equatable {
    public var start: Double
    public var end: Double

    public init(start: Double, end: Double) {
        (self.start, self.end) = (start, end)
    }
}
