import Foundation
import PreviewCore
import PreviewRenderers
import PreviewTestSupport
import PreviewVips
import Testing

/// Decodes an encoded preview back into pixels for property checks (never byte comparisons).
private func decode(_ image: RenderedImage) throws -> PixelBuffer {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let file = try folder.file("out.\(image.format.fileExtension)", image.bytes)
    let load: VipsLoad =
        switch image.format {
        case .jpeg: .jpeg;
        case .png: .png;
        case .webp: .webp
        }
    return try VipsImageRef.header(path: file.path, load: load).pixels()
}

/// Mean absolute difference per sample between two same-sized images, 0–255.
private func difference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
    precondition(a.width == b.width && a.height == b.height && a.bands == b.bands)
    var total = 0
    for i in stride(from: 0, to: a.bytes.count, by: 7) { total += abs(Int(a.bytes[i]) - Int(b.bytes[i])) }
    return Double(total) / Double((a.bytes.count + 6) / 7)
}

private let renderers = Renderers()
private func render(_ sample: String, _ request: RenderRequest = RenderRequest()) throws -> RenderedImage {
    try renderers.renderer(for: Validator().validate(fileAt: Fixtures.sample(sample)).kind)!.render(Fixtures.sample(sample).path, request)
}

@Suite(.blocking) struct VideoRendererTests {
    @Test func firstFrameFitsTheBoxAndReportsFacts() throws {
        let image = try render("video-h264.mp4")
        #expect((image.width, image.height) == (512, 288))
        #expect(image.facts.codec == "h264")
        #expect(image.facts.durationSeconds.map { abs($0 - 3) < 0.1 } == true)
        #expect((image.facts.width, image.facts.height) == (640, 360))
        #expect(image.facts.frameSeconds == 0)
        #expect(try decode(image).lumaStatistics().deviation > 30)
    }

    @Test func rotationMetadataMakesAPortraitThumbnail() throws {
        let image = try render("video-rotated-90.mp4")
        #expect((image.width, image.height) == (288, 512))
        #expect(image.facts.rotation == 90)
        #expect((image.facts.width, image.facts.height) == (360, 640))
        // testsrc2's bars run left to right (red first); turned clockwise, red is on top.
        let pixels = try decode(image)
        let top = Array(pixels.bytes[((20 * pixels.width) + 140) * 3..<((20 * pixels.width) + 141) * 3])
        #expect(top[0] > 200 && top[1] < 60 && top[2] < 60, "top pixel \(top)")
    }

    @Test func blackOpeningIsSkipped() throws {
        let image = try render("video-black-start.mp4")
        #expect(image.facts.frameSeconds.map { $0 >= 1.4 && $0 <= 1.6 } == true, "chose \(String(describing: image.facts.frameSeconds))")
        let luma = try decode(image).lumaStatistics()
        #expect(luma.deviation > 30 && luma.mean > 40, "\(luma)")
    }

    @Test func nonSquareBoxAndSmallSources() throws {
        #expect(try render("video-h264.mp4", RenderRequest(width: 100, height: 100)).width == 100)
        let small = try render("video-mpeg4.avi", .preview)
        #expect((small.width, small.height) == (320, 240), "never enlarged")
    }

    @Test(arguments: [("audio-only.m4a", "no_video_stream"), ("bad-truncated.mov", "corrupt")])
    func badVideos(sample: String, code: String) {
        #expect { try render(sample) } throws: { ($0 as? PreviewError)?.code.rawValue == code }
    }
}

@Suite(.blocking) struct PDFRendererTests {
    @Test func pageCountWithoutRendering() throws {
        let facts = try renderers.pdf.probe(Fixtures.sample("document-5-pages.pdf").path)
        #expect(facts.pages == 5)
        #expect((facts.width, facts.height) == (612, 792))
    }

    @Test func defaultWidthAndRequestedBox() throws {
        let page = try render("document-5-pages.pdf")
        #expect((page.width, page.height) == (1024, 1325))
        let boxed = try render("document-5-pages.pdf", RenderRequest(width: 300, height: 300))
        #expect((boxed.width, boxed.height) == (232, 300))
        let capped = try render("document-5-pages.pdf", RenderRequest(height: 4096))
        #expect(max(capped.width, capped.height) <= RenderRequest.maxEdge)
    }

    @Test func pageThreeDiffersFromPageOne() throws {
        let first = try decode(render("document-5-pages.pdf", RenderRequest(page: 1, width: 400)))
        let third = try decode(render("document-5-pages.pdf", RenderRequest(page: 3, width: 400)))
        let again = try decode(render("document-5-pages.pdf", RenderRequest(page: 1, width: 400)))
        #expect(difference(first, third) > 1, "pages 1 and 3 look the same")
        #expect(difference(first, again) == 0)
        #expect(first.lumaStatistics().mean > 200, "white background")
    }

    @Test func errors() {
        #expect { try render("document-5-pages.pdf", RenderRequest(page: 6)) } throws: {
            ($0 as? PreviewError)?.code == .pageOutOfRange && ($0 as? PreviewError)?.message == "The document has 5 pages; page 6 does not exist."
        }
        #expect { try render("bad-encrypted.pdf") } throws: { ($0 as? PreviewError)?.code == .encrypted }
        #expect { try renderers.pdf.render(Fixtures.sample("bad-zip-named.pdf").path, RenderRequest()) } throws: {
            ($0 as? PreviewError)?.code == .corrupt
        }
    }
}

@Suite(.blocking) struct ImageRendererTests {
    @Test func exifOrientationIsApplied() throws {
        let image = try render("photo-exif-orientation-6.jpg")
        #expect((image.width, image.height) == (384, 512))
        #expect(image.facts.rotation == 90)
        #expect((image.facts.width, image.facts.height) == (480, 640))
    }

    @Test func alphaIsFlattenedOnWhiteForJPEGAndKeptForPNG() throws {
        let jpeg = try decode(render("image-alpha.png"))
        #expect(jpeg.bands == 3)
        let rightEdge = Array(jpeg.bytes[(100 * jpeg.width + jpeg.width - 2) * 3..<(100 * jpeg.width + jpeg.width - 1) * 3])
        #expect(rightEdge.allSatisfy { $0 > 240 }, "transparent side should be white, got \(rightEdge)")
        #expect(try decode(render("image-alpha.png", RenderRequest(format: .png))).bands == 4)
    }

    @Test(arguments: ["image-cmyk.jpg", "image-16bit.png", "image.heic", "image.tiff", "image.webp", "image-animated.gif"])
    func convertsToEightBitSRGB(sample: String) throws {
        for format in RenderRequest.Format.allCases {
            let pixels = try decode(render(sample, RenderRequest(format: format)))
            #expect(pixels.bands >= 3, "\(sample) \(format)")
            #expect(pixels.lumaStatistics().deviation > 10, "\(sample) \(format) looks blank")
        }
    }

    @Test func cmykColoursSurvive() throws {
        // testsrc2 has saturated bars; CMYK→sRGB must keep them saturated, not grey or inverted.
        let pixels = try decode(render("image-cmyk.jpg"))
        let reds = stride(from: 0, to: pixels.bytes.count, by: 3).filter {
            pixels.bytes[$0] > 180 && pixels.bytes[$0 + 1] < 80 && pixels.bytes[$0 + 2] < 80
        }
        #expect(reds.count > pixels.width * pixels.height / 50)
    }

    @Test func pixelLimitBeforeDecoding() throws {
        var limits = Limits()
        limits.maxPixels = 100_000
        #expect { try ImageRenderer(limits: limits).render(Fixtures.sample("image.webp").path, RenderRequest()) } throws: {
            ($0 as? PreviewError)?.code == .tooManyPixels
                && ($0 as? PreviewError)?.message == "The image is 640×480 (0.3 megapixels); the limit is 0.1 megapixels."
        }
    }

    @Test func truncatedImageIsCorrupt() {
        #expect { try render("bad-truncated.jpg") } throws: { ($0 as? PreviewError)?.code == .corrupt }
    }
}

/// Same input and parameters → byte-identical output, for every kind and format.
@Suite(.blocking) struct ReproducibilityTests {
    @Test(arguments: ["video-h264.mp4", "document-5-pages.pdf", "photo-exif-orientation-6.jpg", "image-alpha.png"])
    func identicalBytes(sample: String) throws {
        for format in RenderRequest.Format.allCases {
            let request = RenderRequest(width: 200, height: 200, format: format)
            #expect(try render(sample, request).bytes == render(sample, request).bytes, "\(sample) \(format)")
        }
    }
}

/// Every sample with a renderer outcome gets it through the renderers.
@Suite struct SampleRenderTests {
    @Test(arguments: try ExpectationManifest.samples().entries.filter { !$0.expected.isDisjoint(with: renderOutcomes) })
    func sampleOutcome(entry: ExpectationManifest.Entry) async throws {
        let verdict = try Validator().validate(fileAt: entry.url)
        var outcome = verdict.refusal?.code.rawValue ?? "ok"
        if verdict.isAccepted, let renderer = renderers.renderer(for: verdict.kind, on: .forTests) {
            do {
                _ = try await renderer.render(entry.url.path, .thumbnail)
            } catch {
                outcome = error.code.rawValue
            }
        }
        #expect(entry.expected.contains(outcome), "\(entry.file): \(outcome)")
    }
}

/// Highlight videos open with fades and blank leaders of several seconds, at any frame rate: the
/// thumbnail is the first frame with something in it within 10 s, found without decoding every frame.
@Suite(.blocking) struct VideoOpeningTests {
    /// A video of `black` seconds of black, then 2 s of a test pattern, at `fps` (or black only).
    private static func video(
        black: Double, fps: Int, pattern: Bool = true, keyframeEvery: Int? = nil,
        in folder: TemporaryFolder
    ) throws -> URL {
        let output = folder.url.appendingPathComponent("open-\(black)-\(fps).mp4")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        var arguments = ["-v", "error", "-y", "-f", "lavfi", "-i", "color=black:size=160x90:rate=\(fps):duration=\(black)"]
        if pattern {
            arguments += ["-f", "lavfi", "-i", "testsrc2=size=160x90:rate=\(fps):duration=2", "-filter_complex", "[0][1]concat=n=2:v=1"]
        }
        process.arguments =
            arguments + ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"]
            + (keyframeEvery.map { ["-g", "\($0)"] } ?? []) + [output.path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "ffmpeg could not make the video")
        return output
    }

    @Test(arguments: [2.0, 5.0, 9.0], [24, 30, 60])
    func blankOpeningsAreLookedPast(black: Double, fps: Int) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = try Self.video(black: black, fps: fps, in: folder)
        let image = try Renderers().renderer(for: .mp4)!.render(file.path, RenderRequest())
        let chosen = try #require(image.facts.frameSeconds)
        #expect(chosen >= black - 0.05 && chosen <= black + 2.5, "\(black) s black at \(fps) fps: chose \(chosen) s")
        #expect(try decode(image).lumaStatistics().deviation > 30, "\(black) s black at \(fps) fps: a blank thumbnail")
    }

    /// With a keyframe every second (as phones write them) the opening is crossed by seeking.
    @Test(arguments: [(5.0, 24), (9.0, 60)])
    func blankOpeningsAreCrossedBySeeking(black: Double, fps: Int) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = try Self.video(black: black, fps: fps, keyframeEvery: fps, in: folder)
        let image = try Renderers().renderer(for: .mp4)!.render(file.path, RenderRequest())
        let chosen = try #require(image.facts.frameSeconds)
        #expect(chosen >= black - 0.05 && chosen <= black + 2.5, "chose \(chosen) s")
        #expect(try decode(image).lumaStatistics().deviation > 30)
    }

    @Test func aVideoBlackThroughoutFallsBackToItsFirstFrame() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = try Self.video(black: 14, fps: 30, pattern: false, in: folder)
        let image = try Renderers().renderer(for: .mp4)!.render(file.path, RenderRequest())
        #expect(image.facts.frameSeconds == 0)
        #expect(try decode(image).lumaStatistics().mean < 20)
    }
}
