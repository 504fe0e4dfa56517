import Foundation
import PostgresTestSupport
import Testing


/// The test browser's own launch: what it inherits from the test process.
@Suite struct ChromiumLaunchTests {
    /// The browser runs for as long as its test. A descriptor it inherited — another test's file, opened for
    /// writing by Foundation (which sets no O_CLOEXEC) at the instant of the spawn — stayed open for writing
    /// all that time, and the sync worker held that file as still being written (a CI failure).
    @Test("The browser inherits no descriptor of the test process but its pipes and standard streams")
    func inheritsNothing() async throws {
        try #require(Chromium.isInstalled, "Debian's chromium is needed")
        let leaked = try InheritableWriter(prefix: "photosync-chromium")
        let browser = try Chromium.launch(profile: leaked.directory.appending(path: "profile"))
        leaked.close()
        let targets = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(browser.pid)/fd").compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(browser.pid)/fd/\($0)")
        }
        await browser.close()
        #expect(!targets.isEmpty)
        #expect(!targets.contains(leaked.path), "\(targets)")
    }
}
