import Foundation

/// A highlight reel made by the ffmpeg CLI for the play index's tests and benchmark: clips of
/// different kinds (fractal zooms, test patterns, cellular automata, a field with a runner, pans
/// and zooms over photographs, real camera footage and pans across it) joined by hard cuts and
/// transitions, with the times of the cuts it made. The clips hold the motion a cut finder must
/// not cut at: camera pans, zooms, a pattern that changes every frame, two fields of almost the
/// same green, people walking in and out, a camera's exposure following a car.
package struct HighlightReel {
    package enum Source: Equatable {
        case fractal, fractalElsewhere, pattern, life, automaton, field, otherField, photoPan, photoFastPan, photoZoom
        /// `Samples/footage/NAME.mp4` from `from` seconds, as shot.
        case footage(String, from: Double)
        /// A pan across that footage: a window of the reel's size moving `speed` of its width a
        /// second across the footage scaled to twice the reel's width.
        case footagePan(String, from: Double, speed: Double)
    }

    package enum Join: Equatable {
        case hard
        /// ffmpeg's `xfade` transition (`fade` is a dissolve; `fadeblack`, `fadewhite` pass through a colour) lasting `seconds`.
        case transition(String, seconds: Double)
    }

    package struct Clip {
        package var source: Source
        package var seconds: Double
        /// How it joins the clip before it (ignored for the first).
        package var join: Join

        package init(_ source: Source, seconds: Double, join: Join = .hard) {
            self.source = source
            self.seconds = seconds
            self.join = join
        }
    }

    package var clips: [Clip]
    package var width = 640
    package var height = 360

    package init(_ clips: [Clip], width: Int = 640, height: Int = 360) {
        self.clips = clips
        self.width = width
        self.height = height
    }

    /// A reel opening on a grey car park (real footage, lit and with some contrast: the opening's
    /// rule takes its first frame), then a room a person walks into, then a fractal zoom: its
    /// poster moves to a later play once its plays are known.
    package static let carParkOpening = HighlightReel([
        Clip(.footage("cars", from: 3), seconds: 4), Clip(.footage("people", from: 2), seconds: 4), Clip(.fractal, seconds: 4)
    ])

    /// Where each cut is: a hard cut at the next clip's first frame, a dissolve at its middle, a
    /// fade through black or white at its blackest (or whitest) frame, which FFmpeg's `xfade`
    /// reaches a fifth of the way through (the first clip fades out over its first fifth, the next
    /// fades in over the rest).
    package var cuts: [Double] {
        var length = clips.first?.seconds ?? 0
        var cuts: [Double] = []
        for clip in clips.dropFirst() {
            switch clip.join {
            case .hard:
                cuts.append(length)
                length += clip.seconds
            case .transition(let name, let seconds):
                let start = length - seconds
                cuts.append(start + seconds * (name == "fade" ? 0.5 : 0.2))
                length += clip.seconds - seconds
            }
        }
        return cuts
    }

    /// The reel's length in seconds.
    package var seconds: Double {
        clips.enumerated().reduce(0) { total, item in
            if item.offset > 0, case .transition(_, let seconds) = item.element.join { return total + item.element.seconds - seconds }
            return total + item.element.seconds
        }
    }

    /// Writes the reel as H.264 at 30 fps (`preset` x264's) to `file`.
    package func write(to file: URL, preset: String = "ultrafast") throws {
        let size = "\(width)x\(height)"
        var inputs: [String] = []
        var graph: [String] = []
        for (index, clip) in clips.enumerated() {
            let number = inputNumber(inputs)
            let tail =
                "trim=duration=\(clip.seconds),setpts=PTS-STARTPTS,fps=30,scale=\(width):\(height),setsar=1,format=yuv420p,settb=AVTB[c\(index)]"
            let lavfi = { (source: String) in inputs += ["-f", "lavfi", "-i", source] }
            let still = { (photo: String) in inputs += ["-loop", "1", "-framerate", "30", "-i", Fixtures.sample("scans/photos/\(photo).jpg").path] }
            switch clip.source {
            case .fractal: lavfi("mandelbrot=size=\(size):rate=30")
            case .fractalElsewhere: lavfi("mandelbrot=size=\(size):rate=30:start_x=-0.7436438870:start_y=0.1318259042:start_scale=0.05")
            case .pattern: lavfi("testsrc2=size=\(size):rate=30")
            case .life: lavfi("life=size=\(width / 4)x\(height / 4):rate=30:mold=10:ratio=0.3:life_color=#c0ff40:death_color=#402010")
            case .automaton: lavfi("cellauto=size=\(width / 2)x\(height / 2):rate=30:rule=110")
            case .field, .otherField:
                // A runner (a small moving pattern) crossing a green field; the other field is another
                // camera's: a lighter green with yard lines, the runner going the other way.
                let other = clip.source == .otherField
                lavfi("color=c=\(other ? "0x43a047" : "0x2e7d32"):size=\(size):rate=30" + (other ? ",drawgrid=w=\(width / 5):h=ih:t=4:c=white" : ""))
                lavfi("testsrc=size=\(width / 16)x\(height / 6):rate=30")
                let (x, y) = other ? ("W-w-t*\(width / 6)", "\(height / 4)") : ("t*\(width / 8)", "\(height / 2)")
                graph.append("[\(number)][\(number + 1)]overlay=x='\(x)':y='\(y)',\(tail)")
                continue
            case .photoPan, .photoFastPan:
                still(clip.source == .photoPan ? "typewriter-hand" : "boxscore-desk")
                let speed = clip.source == .photoPan ? width / 5 : width
                graph.append("[\(number)]scale=\(width * 3):-2,crop=\(width):\(height):x='min(t*\(speed),iw-\(width))':y='ih/3',\(tail)")
                continue
            case .footage(let name, let from):
                inputs += ["-ss", "\(from)", "-i", Fixtures.sample("footage/\(name).mp4").path]
            case .footagePan(let name, let from, let speed):
                inputs += ["-ss", "\(from)", "-i", Fixtures.sample("footage/\(name).mp4").path]
                let pixels = Int(Double(width) * speed)
                graph.append("[\(number)]scale=\(width * 2):-2,crop=\(width):\(height):x='min(t*\(pixels),iw-\(width))':y='(ih-\(height))/2',\(tail)")
                continue
            case .photoZoom:
                still("linn-desk")
                graph.append(
                    "[\(number)]scale=\(width * 2):-2,zoompan=z='1+0.004*on':d=1:x='iw/2-iw/zoom/2':y='ih/2-ih/zoom/2':s=\(size):fps=30,\(tail)")
                continue
            }
            graph.append("[\(number)]\(tail)")
        }
        var joined = "c0"
        var length = clips.first?.seconds ?? 0
        for (index, clip) in clips.enumerated().dropFirst() {
            let output = "j\(index)"
            switch clip.join {
            case .hard:
                graph.append("[\(joined)][c\(index)]concat=n=2:v=1[\(output)]")
                length += clip.seconds
            case .transition(let name, let seconds):
                graph.append("[\(joined)][c\(index)]xfade=transition=\(name):duration=\(seconds):offset=\(length - seconds)[\(output)]")
                length += clip.seconds - seconds
            }
            joined = output
        }
        try MediaTools.ffmpeg(
            inputs + [
                "-filter_complex", graph.joined(separator: ";"), "-map", "[\(joined)]", "-c:v", "libx264", "-preset", preset,
                "-pix_fmt", "yuv420p", file.path
            ])
    }

    /// The number ffmpeg gives the next input: one for each `-i` so far.
    private func inputNumber(_ arguments: [String]) -> Int {
        arguments.filter { $0 == "-i" }.count
    }
}
