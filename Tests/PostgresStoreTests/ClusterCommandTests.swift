import Foundation
@testable import PostgresTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("The test cluster's commands")
struct ClusterCommandTests {
    /// `pg_ctl start` leaves the server running for the rest of the test process. A descriptor it inherited —
    /// another test's file, opened for writing by Foundation (which sets no O_CLOEXEC) at the instant of the
    /// spawn — stayed open for writing in the server, and the sync worker then held that file as still being
    /// written (a CI failure). A command started by the cluster inherits its three standard streams, no more.
    @Test("a command inherits no descriptor of the test process beyond its standard streams")
    func inheritsNothing() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "photosync-cluster-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appending(path: "being-written.jpg").path
        let leaked = open(path, O_WRONLY | O_CREAT, 0o644)  // no O_CLOEXEC, as Foundation opens files
        try #require(leaked >= 0)
        defer { close(leaked) }
        let listing = try PostgresCluster.run("/bin/ls", ["-l", "/proc/self/fd/"], as: nil, in: directory)
        #expect(!listing.contains(path), "\(listing)")
        #expect(listing.contains(" 2 -> "), "the standard streams are there: \(listing)")
    }
}
