@testable import PreviewCore
import Testing

/// A reel's poster among the opening's frame and its first plays' posters, and how typical of its
/// play a frame is: the rule alone, on scores and grids made here.
struct ReelPosterTests {
    static func play(_ number: Int, score: Double?) -> Play {
        Play(start: Double(number - 1) * 5, end: Double(number) * 5, poster: Double(number - 1) * 5 + 2, score: score)
    }

    @Test func aPlaysPosterThatScoresClearlyBetterReplacesTheOpenings() {
        let opening = ReelPoster(play: nil, seconds: 0.4, score: 0.3)
        let chosen = ReelPoster.choose(opening: opening, plays: [Self.play(1, score: 0.35), Self.play(2, score: 0.8), Self.play(3, score: 0.6)])
        #expect(chosen == ReelPoster(play: 2, seconds: 7, score: 0.8))
    }

    /// A near tie keeps the poster already made and served.
    @Test func aNearTieKeepsTheOpenings() {
        let opening = ReelPoster(play: nil, seconds: 0.4, score: 0.75)
        #expect(ReelPoster.choose(opening: opening, plays: [Self.play(1, score: 0.8), Self.play(2, score: 0.84)]) == opening)
    }

    /// Only the first plays are candidates: a reel puts its best first, and a great frame at the end is not its face.
    @Test func onlyTheFirstPlaysAreLookedAt() {
        let opening = ReelPoster(play: nil, seconds: 0, score: 0.2)
        let plays = [Self.play(1, score: 0.25), Self.play(2, score: 0.3), Self.play(3, score: 0.28), Self.play(4, score: 0.95)]
        #expect(ReelPoster.choose(opening: opening, plays: plays) == opening)
    }

    /// Without the opening's score (a job run again), the best play's poster; without scores, the opening's.
    @Test func whatIsMissingIsNotChosen() {
        #expect(ReelPoster.choose(opening: nil, plays: [Self.play(1, score: 0.4), Self.play(2, score: 0.5)])?.play == 2)
        let opening = ReelPoster(play: nil, seconds: 1, score: 0.1)
        #expect(ReelPoster.choose(opening: opening, plays: [Self.play(1, score: nil)]) == opening)
        #expect(ReelPoster.choose(opening: nil, plays: []) == nil)
    }

    /// The play's mean frame is as typical as a frame gets; one a fifth of the range away is not typical at all.
    @Test func typicalityFallsWithTheDistanceFromThePlaysMean() throws {
        let cells = 3 * FrameSignature.columns * FrameSignature.rows
        let frames = [100, 110, 120].map { FrameSignature(seconds: 0, cells: [UInt8](repeating: UInt8($0), count: cells)) }
        let mean = try #require(ReelPoster.mean(of: frames))
        #expect(mean.cells.allSatisfy { $0 == 110 })
        #expect(ReelPoster.typicality(frames[1], mean: mean) == 1)
        #expect(abs(ReelPoster.typicality(frames[0], mean: mean) - (1 - 10.0 / 255 / 0.2)) < 1e-9)
        let flash = FrameSignature(seconds: 0, cells: [UInt8](repeating: 250, count: cells))
        #expect(ReelPoster.typicality(flash, mean: mean) == 0)
    }
}
