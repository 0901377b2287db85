import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PreviewBackendTestSupport
import PreviewCore
import PreviewDomain
import PreviewPipeline
@testable import PreviewDocuments
@testable import PreviewServer
@testable import PreviewWeb
import PreviewTestSupport
import Testing

/// A share without downloads plays only what was made of a video; when nothing could be, its page
/// says why instead of promising a playable version that will not come.
@Suite struct ShareVideoPageTests {
    @Test func aVideoWithoutAPlayableVersionSaysWhy() throws {
        let video = Document(
            labels: DocumentLabels(owner: "ana", title: "Clip", filename: "clip.mov"), sha256: BlobHash.of(Data("clip".utf8)),
            kind: .mov, size: 4, hasRenderer: true)
        let links = PageParts.MediaLinks(documentID: video.id, offersDownload: false)
        let making = PageTemplates.render(VideoView(video, playback: nil, links: links), "video")
        #expect(making.contains("still being made") && !making.contains("<video"))
        let refused = try JSONDecoder().decode(
            PlaybackManifest.self, from: Data(#"{"renditionError": {"code": "too_long", "message": "The video is longer than 10 minutes."}}"#.utf8))
        let failed = PageTemplates.render(VideoView(video, playback: refused, links: links), "video")
        #expect(failed.contains("cannot be played here: The video is longer than 10 minutes.") && !failed.contains("still being made"), "\(failed)")
    }
}
