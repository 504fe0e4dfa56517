import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The test browser's own launch: what it inherits from the test process.
@Suite struct ChromiumLaunchTests {
    /// The browser runs for as long as its test. A descriptor it inherited — another test's file, opened for
    /// writing by Foundation (which sets no O_CLOEXEC) at the instant of the spawn — stayed open for writing
    /// all that time, and the sync worker held that file as still being written (a CI failure).
    @Test("The browser inherits no descriptor of the test process but its pipes and standard streams")
    func inheritsNothing() async throws {
        try #require(Chromium.isInstalled, "Debian's chromium is needed")
        let directory = FileManager.default.temporaryDirectory.appending(path: "photosync-chromium-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appending(path: "being-written.jpg").path
        let leaked = open(path, O_WRONLY | O_CREAT, 0o644)  // no O_CLOEXEC, as Foundation opens files
        try #require(leaked >= 0)
        let browser = try Chromium.launch(profile: directory.appending(path: "profile"))
        close(leaked)
        let targets = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(browser.pid)/fd").compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(browser.pid)/fd/\($0)")
        }
        await browser.close()
        #expect(!targets.isEmpty)
        #expect(!targets.contains(path), "\(targets)")
    }
}
