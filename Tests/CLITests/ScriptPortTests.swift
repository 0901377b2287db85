import Foundation
import PreviewTestSupport
import Testing

/// The scripts that start SeaweedFS give it ports that all exist (issue 65, item 16): its gRPC ports
/// are its ports plus 10,000, so a free port from the kernel above 55,530 failed about one run in five.
@Suite struct ScriptPortTests {
    @Test func seaweedfsPortsLeaveRoomForItsGRPCPorts() throws {
        let draws = try DocPreviewProcess.run(
            [
                "-c",
                """
                import sys; sys.path.insert(0, sys.argv[1]); import benchlib
                print(" ".join(str(benchlib.free_seaweedfs_port()) for _ in range(50)))
                """, Fixtures.packageRoot.appendingPathComponent("scripts").path
            ], executable: URL(fileURLWithPath: "/usr/bin/python3"))
        #expect(draws.status == 0, "\(draws.stderr)")
        let ports = draws.stdout.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        #expect(ports.count == 50 && ports.allSatisfy { $0 >= 1024 && $0 + 10_005 <= 65_535 }, "\(ports)")
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let refused = try DocPreviewProcess.run(
            ["start", folder.url.appendingPathComponent("weed").path, "60000"],
            executable: Fixtures.packageRoot.appendingPathComponent("scripts/seaweedfs"))
        #expect(refused.status == 2 && refused.stderr.contains("past 65535"), "\(refused.stderr)")
    }
}
