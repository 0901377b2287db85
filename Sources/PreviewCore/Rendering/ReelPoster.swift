/// A highlight reel's poster once its plays are known: the best of the frame the opening's rule
/// chose (``FrameQuality/isPoster``, made before the plays were indexed) and the posters of the
/// first ``firstPlays`` plays (a reel puts its best plays first). Each is scored by its look
/// (``FrameQuality/score``) times how typical it is of its play (``typicality(_:mean:)``), so a
/// flash, a whip pan or a transition's remnant loses to a frame that shows the play.
package struct ReelPoster: Sendable, Codable, Equatable {
    /// The play (1-based) whose poster it is; nil when the opening's frame stays the poster.
    package var play: Int?
    package var seconds: Double
    /// 0–1: look × typicality.
    package var score: Double

    /// The plays whose posters are candidates.
    static let firstPlays = 3
    /// A play's poster replaces the opening's frame when it scores this much more: a near tie keeps
    /// the poster already made and served.
    static let margin = 0.1
    /// A frame this far (``FrameSignature/change(to:)``) from its play's mean frame is not typical of it at all.
    static let typicalDistance = 0.2

    package init(play: Int?, seconds: Double, score: Double) {
        self.play = play
        self.seconds = seconds
        self.score = score
    }

    /// The mean frame of `frames` (a play's frames looked at), cell by cell; nil for none.
    package static func mean(of frames: [FrameSignature]) -> FrameSignature? {
        guard let first = frames.first else { return nil }
        let alike = frames.filter { $0.cells.count == first.cells.count }
        var sums = [Double](repeating: 0, count: first.cells.count)
        for frame in alike {
            for cell in sums.indices { sums[cell] += Double(frame.cells[cell]) }
        }
        return FrameSignature(seconds: first.seconds, cells: sums.map { UInt8(($0 / Double(alike.count)).rounded()) })
    }

    /// 1 for a frame that looks like its play's `mean` frame, falling to 0 at ``typicalDistance`` from it.
    package static func typicality(_ frame: FrameSignature, mean: FrameSignature) -> Double {
        max(0, 1 - frame.change(to: mean) / typicalDistance)
    }

    /// The poster: the best scored of the first plays' posters when it beats `opening` (the
    /// opening's frame, scored the same way) by ``margin``, else `opening`; nil without either.
    package static func choose(opening: ReelPoster?, plays: [Play]) -> ReelPoster? {
        let candidates = plays.prefix(firstPlays).enumerated().compactMap { number, play in
            play.score.map { ReelPoster(play: number + 1, seconds: play.poster, score: $0) }
        }
        guard let best = candidates.max(by: { $0.score < $1.score }) else { return opening }
        guard let opening else { return best }
        return best.score >= opening.score + margin ? best : opening
    }
}
