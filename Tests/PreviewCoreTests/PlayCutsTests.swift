@testable import PreviewCore
import Testing

/// The cut rule on frames made here, cell by cell: what is and is not a cut, whatever a decoder does.
struct PlayCutsTests {
    static let cells = 3 * FrameSignature.columns * FrameSignature.rows

    /// A textured frame: cells that vary with their place and `seed`.
    static func picture(_ seed: Int) -> [UInt8] {
        (0..<cells).map { UInt8(40 + (($0 * 7919 + seed * 104_729) % 173)) }
    }

    /// 30 frames a second of `pictures`, each held for its seconds.
    static func frames(_ pictures: [(cells: [UInt8], seconds: Double)]) -> [FrameSignature] {
        var frames: [FrameSignature] = []
        for (cells, seconds) in pictures {
            for _ in 0..<Int(seconds * 30) { frames.append(FrameSignature(seconds: Double(frames.count) / 30, cells: cells)) }
        }
        return frames
    }

    @Test func aHardCutIsFoundOnItsFirstFrame() {
        let cuts = PlayCuts.cuts(in: Self.frames([(Self.picture(1), 3), (Self.picture(2), 3)]))
        #expect(cuts.map(\.seconds) == [3] && cuts.first?.kind == .hard, "\(cuts)")
    }

    /// A flash (one white frame, or two) comes back to the same picture: no cut.
    @Test func aFlashIsNoCut() {
        let white = [UInt8](repeating: 250, count: Self.cells)
        for length in [1.0 / 30, 2.0 / 30] {
            let cuts = PlayCuts.cuts(in: Self.frames([(Self.picture(1), 3), (white, length), (Self.picture(1), 3)]))
            #expect(cuts.isEmpty, "\(cuts)")
        }
    }

    /// A dissolve of 0.6 s is cut at its middle.
    @Test func aDissolveIsCutAtItsMiddle() {
        let (first, second) = (Self.picture(1), Self.picture(2))
        var frames = Self.frames([(first, 3)])
        for step in 1...18 {
            let share = Float(step) / 19
            frames.append(
                FrameSignature(
                    seconds: Double(frames.count) / 30,
                    cells: zip(first, second).map { UInt8((Float($0) + share * (Float($1) - Float($0))).rounded()) }))
        }
        for _ in 0..<90 { frames.append(FrameSignature(seconds: Double(frames.count) / 30, cells: second)) }
        let cuts = PlayCuts.cuts(in: frames)
        #expect(cuts.count == 1 && abs((cuts.first?.seconds ?? 0) - 3.3) <= 0.05 && cuts.first?.kind == .dissolve, "\(cuts)")
    }

    /// The plays between cuts tile the video, each poster inside its play.
    @Test func playsTileTheVideo() {
        let cuts = [PlayCuts.Cut(seconds: 4, kind: .hard, strength: 1), PlayCuts.Cut(seconds: 9, kind: .fade, strength: 1)]
        let plays = PlayCuts.plays(between: cuts, duration: 12)
        #expect(plays.map(\.start) == [0, 4, 9] && plays.map(\.end) == [4, 9, 12])
        #expect(plays.allSatisfy { ($0.start...$0.end).contains($0.poster) })
        #expect(PlayCuts.cuts(in: []).isEmpty && PlayCuts.cuts(in: Self.frames([(Self.picture(1), 0.05)])).isEmpty)
    }
}
