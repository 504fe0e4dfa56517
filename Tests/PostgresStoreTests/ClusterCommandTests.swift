import Foundation
@testable import PostgresTestSupport
import Testing


@Suite("The test cluster's commands")
struct ClusterCommandTests {
    /// `pg_ctl start` leaves the server running for the rest of the test process. A descriptor it inherited —
    /// another test's file, opened for writing by Foundation (which sets no O_CLOEXEC) at the instant of the
    /// spawn — stayed open for writing in the server, and the sync worker then held that file as still being
    /// written (a CI failure). A command started by the cluster inherits its three standard streams, no more.
    @Test("a command inherits no descriptor of the test process beyond its standard streams")
    func inheritsNothing() throws {
        let leaked = try InheritableWriter(prefix: "photosync-cluster")
        let listing = try PostgresCluster.run("/bin/ls", ["-l", "/proc/self/fd/"], as: nil, in: leaked.directory)
        #expect(!listing.contains(leaked.path), "\(listing)")
        #expect(listing.contains(" 2 -> "), "the standard streams are there: \(listing)")
    }
}
