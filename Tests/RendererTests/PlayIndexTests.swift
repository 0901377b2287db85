import Foundation
import PreviewCore
@testable import PreviewRenderers
import PreviewTestSupport
import Testing

/// The play index on reels the ffmpeg CLI joins from 6–12 clips with hard cuts, dissolves and
/// fades through black or white, whose clips pan, zoom and move on every frame: most cuts are
/// found where they were made, and motion inside a clip is not cut.
@Suite(.blocking) struct PlayIndexTests {
    typealias Clip = HighlightReel.Clip

    static let reels: [String: HighlightReel] = [
        "hard cuts": HighlightReel([
            Clip(.fractal, seconds: 5), Clip(.pattern, seconds: 4), Clip(.field, seconds: 5), Clip(.otherField, seconds: 4),
            Clip(.photoPan, seconds: 6), Clip(.life, seconds: 4), Clip(.fractalElsewhere, seconds: 5), Clip(.automaton, seconds: 4)
        ]),
        "transitions": HighlightReel([
            Clip(.pattern, seconds: 5), Clip(.fractal, seconds: 5, join: .transition("fade", seconds: 0.5)),
            Clip(.photoZoom, seconds: 5, join: .transition("fadeblack", seconds: 1)), Clip(.field, seconds: 5),
            Clip(.life, seconds: 5, join: .transition("fade", seconds: 1)),
            Clip(.otherField, seconds: 5, join: .transition("fadewhite", seconds: 0.6)),
            Clip(.photoFastPan, seconds: 5, join: .transition("fade", seconds: 0.3)), Clip(.automaton, seconds: 5),
            Clip(.fractalElsewhere, seconds: 5, join: .transition("fade", seconds: 0.8)),
            Clip(.pattern, seconds: 4, join: .transition("fadeblack", seconds: 0.4))
        ]),
        "pans": HighlightReel([
            Clip(.photoPan, seconds: 8), Clip(.field, seconds: 7, join: .transition("fade", seconds: 0.7)),
            Clip(.photoFastPan, seconds: 6), Clip(.photoZoom, seconds: 8, join: .transition("fade", seconds: 1)),
            Clip(.otherField, seconds: 7), Clip(.photoPan, seconds: 8, join: .transition("fadeblack", seconds: 0.8))
        ]),
        // Real camera footage (`Samples/footage`): people walking, cars crossing while the exposure
        // follows them, hands moving bottles; pans across each, slow and fast; two cuts within one room.
        "real footage": HighlightReel([
            Clip(.footage("people", from: 0), seconds: 6), Clip(.footage("cars", from: 3), seconds: 6),
            Clip(.footagePan("bottles", from: 8, speed: 0.2), seconds: 5, join: .transition("fade", seconds: 0.5)),
            Clip(.footagePan("people", from: 10, speed: 0.2), seconds: 6), Clip(.footage("people", from: 24), seconds: 5),
            Clip(.footagePan("cars", from: 12, speed: 0.5), seconds: 5, join: .transition("fadeblack", seconds: 0.6)),
            Clip(.footage("bottles", from: 0), seconds: 6), Clip(.footagePan("people", from: 2, speed: 1), seconds: 5),
            Clip(.footage("cars", from: 14), seconds: 6, join: .transition("fade", seconds: 1))
        ])
    ]

    /// Within ±0.2 s of where it was made.
    static let tolerance = 0.2

    @Test func cutsAreFoundWhereTheyWereMadeAndMotionIsNotCut() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var (made, found, falseCuts, minutes) = (0, 0, 0, 0.0)
        for (name, reel) in Self.reels.sorted(by: { $0.key < $1.key }) {
            let file = folder.url.appendingPathComponent("\(name).mp4")
            // With B-frames (x264's veryfast has three), as phones and editors write them: the skimming decode skips them.
            try reel.write(to: file, preset: "veryfast")
            let index = try PlayIndexer(limits: Limits(), timeoutSeconds: 120).index(file.path, kind: .mp4)
            var unmatched = index.cuts
            var missed: [Double] = []
            for cut in reel.cuts {
                if let match = unmatched.indices.min(by: { abs(unmatched[$0].seconds - cut) < abs(unmatched[$1].seconds - cut) }),
                    abs(unmatched[match].seconds - cut) <= Self.tolerance
                {
                    unmatched.remove(at: match)
                } else {
                    missed.append(cut)
                }
            }
            made += reel.cuts.count
            found += reel.cuts.count - missed.count
            falseCuts += unmatched.count
            minutes += reel.seconds / 60
            print("\(name): made \(reel.cuts), found \(index.cuts.map { "\($0.seconds)/\($0.kind)" }), missed \(missed), false \(unmatched)")
            // Plays tile the reel.
            #expect(index.plays.first?.start == 0 && index.plays.count == index.cuts.count + 1)
            #expect(zip(index.plays, index.plays.dropFirst()).allSatisfy { $0.end == $1.start })
            #expect(index.plays.allSatisfy { $0.poster >= $0.start && $0.poster <= $0.end })
        }
        #expect(Double(found) >= 0.9 * Double(made), "found \(found) of \(made) cuts")
        #expect(Double(falseCuts) <= minutes, "\(falseCuts) false cuts in \(minutes) min")
    }

    /// Real footage as shot, no cut in it (the ffmpeg CLI's `scdet` finds none): people walking in
    /// and out, a camera's exposure following a car, hands moving bottles. None of it is cut.
    @Test(arguments: ["people", "cars", "bottles"]) func realFootageIsNotCut(_ name: String) throws {
        let index = try PlayIndexer(limits: Limits(), timeoutSeconds: 120).index(Fixtures.sample("footage/\(name).mp4").path, kind: .mp4)
        #expect(index.cuts.isEmpty, "\(name): cut at \(index.cuts.map(\.seconds))")
        #expect(index.plays.count == 1)
    }
}
