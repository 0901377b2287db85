/// Where one shot ends and the next begins in a highlight reel: hard cuts (one frame to the next)
/// and transitions of up to ``maxTransitionSeconds`` (dissolves, fades through a colour), found
/// in the frames' ``FrameSignature``s alone. A cut is a change that stands out from the change
/// around it, so a pan or fast action (every frame changes) is not cut at every frame, and one
/// that lasts, so a flash is not a cut either.
package enum PlayCuts {
    /// How a cut was found.
    package enum Kind: String, Sendable, Codable {
        case hard, dissolve, fade
    }

    package struct Cut: Sendable, Equatable {
        /// Where the next shot starts: the first frame after a hard cut, a dissolve's middle, a fade's darkest (or lightest) frame.
        package var seconds: Double
        package var kind: Kind
        /// How different the shots are across the cut, 0–1.
        package var strength: Double
    }

    /// The longest transition looked for.
    package static let maxTransitionSeconds = 1.0
    /// Shots shorter than this are merged into their neighbour (a cut within it is the weaker's).
    package static let minShotSeconds = 1.0
    /// A hard cut changes at least this much from one frame to the next (the mean cell steps by
    /// 5 % of the range; motion inside a shot measured 0–3 %, cuts 6–28 %)…
    static let hardChange = 0.05
    /// …at least this many times the typical change beside it (the median over ``contextSeconds``
    /// before it, or after it, whichever is calmer)…
    static let hardRatio = 3.0
    static let contextSeconds = 0.75
    /// …and what follows stays at least this share of the change away from what came before, and
    /// the new picture as far from the few before (a flash comes back).
    static let lasting = 0.6
    /// A transition changes at least this much across ``maxTransitionSeconds`` + 0.2 s (real
    /// footage from a grey car park to a white room measured 5.4 %: grey scenes change luma only)…
    static let transitionChange = 0.045
    /// …at or near (this share of) the most that any span within it changes…
    static let nearPeak = 0.95
    /// …at least this many times the typical change across such spans over ±``transitionContextSeconds``
    /// (a steady pan changes as much everywhere)…
    static let transitionRatio = 2.0
    static let transitionContextSeconds = 3.0
    /// …and is a dissolve: each frame between is a blend of its ends, to within this share of their difference.
    static let blendResidual = 0.35
    /// A pan over smooth ground can look like a blend on so coarse a grid; it is motion when
    /// shifting each frame by a few cells explains at least this share of the change to the frame
    /// ``motionGapSeconds`` later (pans measured 0.86–0.88, dissolves 0–0.15).
    static let motionShare = 0.5
    static let motionGapSeconds = 0.2
    /// A fade passes through black or white: frames whose grid deviates less than
    /// ``flatDeviation``, darker than ``blackest`` or lighter than ``whitest``, between two pictures
    /// that differ by at least ``transitionChange``.
    static let flatDeviation = 6.0
    static let blackest = 40.0
    static let whitest = 215.0

    /// A cut found, with the frames it lies between (a hard cut's two, a transition's span).
    struct Found {
        var cut: Cut
        var frames: ClosedRange<Int>
    }

    /// The cuts in `frames` (in time order), earliest first.
    package static func cuts(in frames: [FrameSignature]) -> [Cut] {
        guard frames.count >= 3 else { return [] }
        let hard = hardCuts(in: frames)
        // A span that holds a hard cut carrying the change (a jump of more than half of it) is that
        // cut; a hard step inside a fade's span is part of the fade.
        // A fade's halves are blends too (with black or white): the fade is the cut.
        let fades = fades(in: frames)
        let dissolves = transitions(in: frames).filter { dissolve in !fades.contains { $0.frames.overlaps(dissolve.frames) } }
        let gradual = (dissolves + fades).filter { transition in
            !hard.contains { cut in
                transition.frames.contains(cut.frames.lowerBound) && transition.frames.contains(cut.frames.upperBound)
                    && share(frames[cut.frames.upperBound], of: transition.frames, in: frames)
                        - share(frames[cut.frames.lowerBound], of: transition.frames, in: frames) > 0.5
            }
        }
        let found = (hard.filter { cut in !gradual.contains { $0.frames.contains(cut.frames.upperBound) } } + gradual)
            .map(\.cut).sorted { $0.seconds < $1.seconds }
        // Keep the stronger of two cuts closer than a shot.
        var kept: [Cut] = []
        for cut in found {
            if let last = kept.last, cut.seconds - last.seconds < minShotSeconds {
                if cut.strength > last.strength { kept[kept.count - 1] = cut }
                continue
            }
            kept.append(cut)
        }
        let start = frames[0].seconds
        return kept.filter { $0.seconds - start >= minShotSeconds / 2 }
    }

    /// The frames within `seconds` of frame `index`, as a range of indexes. A frame exactly that
    /// far is in it wherever the video's clock stands (timestamps far from 0 round differently).
    static func window(around index: Int, seconds: Double, in frames: [FrameSignature]) -> ClosedRange<Int> {
        let reach = seconds + 1e-6
        var low = index
        var high = index
        while low > 0, frames[index].seconds - frames[low - 1].seconds <= reach { low -= 1 }
        while high < frames.count - 1, frames[high + 1].seconds - frames[index].seconds <= reach { high += 1 }
        return low...high
    }

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }

    /// Cuts from one frame to the next: a change that stands out from its neighbours' and lasts.
    static func hardCuts(in frames: [FrameSignature]) -> [Found] {
        var steps = [0.0]
        for index in 1..<frames.count { steps.append(frames[index - 1].change(to: frames[index])) }
        var cuts: [Found] = []
        for index in 1..<frames.count where steps[index] >= hardChange {
            // The calmer side's typical step: a cut from a still shot into a busy one still stands out.
            let around = window(around: index, seconds: contextSeconds, in: frames)
            let before = median((max(1, around.lowerBound)..<index).map { steps[$0] })
            let typical = min(before, median(((index + 1)..<(around.upperBound + 1)).map { steps[$0] }))
            guard steps[index] >= hardRatio * typical else { continue }
            // A flash or a dropped frame comes back: what follows must stay away from what came
            // before, and the new picture must not be the one shown just before (a flash's end).
            let after = (index + 1)..<min(frames.count, index + 4)
            guard after.allSatisfy({ frames[index - 1].change(to: frames[$0]) >= lasting * steps[index] }) else { continue }
            let earlier = max(0, index - 4)...max(0, index - 2)
            guard index < 2 || earlier.allSatisfy({ frames[$0].change(to: frames[index]) >= lasting * steps[index] }) else { continue }
            cuts.append(Found(cut: Cut(seconds: frames[index].seconds, kind: .hard, strength: steps[index]), frames: (index - 1)...index))
        }
        return cuts
    }

    /// Dissolves: the change across a span just longer than a transition peaks, stands out from
    /// the change across such spans around it, and the frames between are a blend of the ends (and
    /// not a pan).
    static func transitions(in frames: [FrameSignature]) -> [Found] {
        let half = (maxTransitionSeconds + 0.2) / 2
        var spans: [ClosedRange<Int>] = []
        var across: [Double] = []
        for index in frames.indices {
            let span = window(around: index, seconds: half, in: frames)
            spans.append(span)
            across.append(frames[span.lowerBound].change(to: frames[span.upperBound]))
        }
        var cuts: [Found] = []
        for index in frames.indices where across[index] >= transitionChange {
            let span = spans[index]
            // The peak, or near it: over a clip that changes on every frame (an automaton) the
            // peak's own span may not read as a blend where its neighbour's does.
            guard span.count >= 3, let peak = span.map({ across[$0] }).max(), across[index] >= nearPeak * peak else { continue }
            let context = window(around: index, seconds: transitionContextSeconds, in: frames)
            guard across[index] >= transitionRatio * median(context.map { across[$0] }) else { continue }
            if let middle = blendMiddle(frames, span), motionShare(frames, span) < motionShare {
                cuts.append(Found(cut: Cut(seconds: middle, kind: .dissolve, strength: across[index]), frames: span))
            }
        }
        return cuts
    }

    /// The share of the change across `span` (between frames ``motionGapSeconds`` apart) that
    /// shifting the earlier frame's grid by up to 8 cells across and 3 down explains: near 1 for a
    /// pan, near 0 for a dissolve.
    static func motionShare(_ frames: [FrameSignature], _ span: ClosedRange<Int>) -> Double {
        var (still, moved) = (0.0, 0.0)
        var index = span.lowerBound
        while index < span.upperBound {
            var next = index
            while next < span.upperBound, frames[next].seconds - frames[index].seconds < motionGapSeconds { next += 1 }
            still += frames[index].shiftedChange(to: frames[next], across: 0, down: 0)
            var best = Double.infinity
            for down in -3...3 {
                for across in -8...8 { best = min(best, frames[index].shiftedChange(to: frames[next], across: across, down: down)) }
            }
            moved += best
            index = next
        }
        return still > 0 ? (still - moved) / still : 0
    }

    /// Fades through black or white: a run of blank frames no longer than a transition, between
    /// two pictures (``maxTransitionSeconds`` / 2 before and after it) that differ as a
    /// transition's ends do; cut at the run's middle. A flash between two frames of one shot, or a
    /// fade out and back into it, is none.
    static func fades(in frames: [FrameSignature]) -> [Found] {
        var cuts: [Found] = []
        var index = 0
        while index < frames.count {
            guard frames[index].isBlank else {
                index += 1
                continue
            }
            var end = index
            while end + 1 < frames.count, frames[end + 1].isBlank { end += 1 }
            defer { index = end + 1 }
            guard frames[end].seconds - frames[index].seconds <= maxTransitionSeconds else { continue }
            let before = window(around: index, seconds: maxTransitionSeconds / 2, in: frames).lowerBound
            let after = window(around: end, seconds: maxTransitionSeconds / 2, in: frames).upperBound
            guard before < index, after > end, !frames[before].isBlank, !frames[after].isBlank else { continue }
            let change = frames[before].change(to: frames[after])
            guard change >= transitionChange else { continue }
            let middle = (frames[index].seconds + frames[end].seconds) / 2
            cuts.append(Found(cut: Cut(seconds: middle, kind: .fade, strength: change), frames: before...after))
        }
        return cuts
    }

    /// How far `frame` lies from the first end of `span` towards its last, as a share of the way.
    static func share(_ frame: FrameSignature, of span: ClosedRange<Int>, in frames: [FrameSignature]) -> Double {
        let (first, last) = (frames[span.lowerBound].values, frames[span.upperBound].values)
        let values = frame.values
        var (projection, length): (Float, Float) = (0, 0)
        for cell in first.indices {
            let difference = last[cell] - first[cell]
            projection += (values[cell] - first[cell]) * difference
            length += difference * difference
        }
        return length > 0 ? Double(projection / length) : 0
    }

    /// When each frame inside `span` is (to within ``blendResidual``) a blend of its two ends whose
    /// share of the last end grows through the span, the time that share passes one half; else nil.
    static func blendMiddle(_ frames: [FrameSignature], _ span: ClosedRange<Int>) -> Double? {
        let (first, last) = (frames[span.lowerBound].values, frames[span.upperBound].values)
        var difference: [Float] = []
        var length: Float = 0
        for cell in first.indices {
            difference.append(last[cell] - first[cell])
            length += difference[cell] * difference[cell]
        }
        guard length > 0 else { return nil }
        var shares: [(seconds: Double, share: Double)] = []
        var residuals: [Double] = []
        for index in span {
            let luma = frames[index].values
            var projection: Float = 0
            for cell in first.indices { projection += (luma[cell] - first[cell]) * difference[cell] }
            let share = projection / length
            var residual: Float = 0
            for cell in first.indices {
                let off = luma[cell] - first[cell] - share * difference[cell]
                residual += off * off
            }
            shares.append((frames[index].seconds, Double(share)))
            residuals.append(Double((residual / length).squareRoot()))
        }
        guard median(residuals) <= blendResidual, residuals.max()! <= 2 * blendResidual else { return nil }
        // The share grows, gradually: never falls back by more than a tenth, and never leaps by half
        // the way from one frame to the next (that is a hard cut, or a flash at the span's end).
        var highest = -Double.infinity
        if zip(shares, shares.dropFirst()).contains(where: { $1.share - $0.share > 0.5 }) { return nil }
        for share in shares {
            if share.share < highest - 0.1 { return nil }
            highest = max(highest, share.share)
        }
        guard let crossing = shares.indices.first(where: { shares[$0].share >= 0.5 }), crossing > 0 else { return nil }
        let (before, after) = (shares[crossing - 1], shares[crossing])
        let fraction = (0.5 - before.share) / max(1e-6, after.share - before.share)
        return before.seconds + fraction * (after.seconds - before.seconds)
    }

    /// The plays `cuts` divide a video of `duration` seconds into, each with a poster (its time
    /// and score) chosen by `poster` given the play's bounds, in order.
    package static func plays(
        between cuts: [Cut], duration: Double, poster: (ClosedRange<Double>) -> (seconds: Double, score: Double)? = { _ in nil }
    ) -> [Play] {
        let bounds = [0] + cuts.map(\.seconds).filter { $0 > 0 && $0 < duration } + [duration]
        return zip(bounds, bounds.dropFirst()).map { start, end in
            guard let chosen = poster(start...end) else { return Play(start: start, end: end, poster: start + min(1, (end - start) / 3)) }
            return Play(start: start, end: end, poster: chosen.seconds, score: chosen.score)
        }
    }
}

/// One play of a highlight reel: the stretch between two cuts, and the time of its poster frame.
package struct Play: Sendable, Codable, Equatable {
    package var start: Double
    package var end: Double
    package var poster: Double
    /// How well the poster serves, 0–1 (``ReelPoster``'s measure); nil when no frame inside was looked at.
    package var score: Double?

    package init(start: Double, end: Double, poster: Double, score: Double? = nil) {
        self.start = start
        self.end = end
        self.poster = poster
        self.score = score
    }
}
