import Foundation
import LibraryTestSupport
import SeededRandom
@testable import PhotoLibrary

/// A temporary directory removed when the test ends.
final class TemporaryDirectory {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory.appending(path: "photosync-tests-\(UUID().uuidString)", directoryHint: .isDirectory)
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// Writes a file with these bytes and returns its URL.
    func file(_ name: String, bytes: [UInt8]) -> URL {
        let file = url.appending(path: name)
        try! FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try! Data(bytes).write(to: file)
        return file
    }

    /// Writes a file of pseudo-random bytes (distinct per seed).
    func file(_ name: String, seed: UInt64, size: Int = 1024) -> URL {
        var generator = SplitMix64(seed: seed)
        return file(name, bytes: (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }
}

/// A library in a temporary directory.
struct TestLibrary {
    let directory: TemporaryDirectory
    let library: PhotoLibrary
    /// The PostgreSQL database of a library kept there (nil: a SQLite library).
    let postgres: URL?

    init(options: PhotoLibrary.Options = PhotoLibrary.Options()) throws {
        directory = TemporaryDirectory()
        library = try PhotoLibrary(url: directory.url.appending(path: "Library.photosync"), options: options)
        postgres = nil
    }

    init(directory: TemporaryDirectory, library: PhotoLibrary, postgres: URL) {
        self.directory = directory
        self.library = library
        self.postgres = postgres
    }

    /// Another handle on the same library, on the same engine (what another process opens).
    func openAnother(options: PhotoLibrary.Options = PhotoLibrary.Options()) throws -> PhotoLibrary {
        guard let postgres else { return try PhotoLibrary(url: library.url, options: options) }
        return try PhotoLibrary(postgres: postgres, directory: library.url, options: options)
    }

    /// Creates `count` assets referencing in-memory facts (no file I/O) and returns them in creation order.
    @discardableResult
    func makeAssets(
        _ count: Int, author: String = "tests", configure: @escaping (Int, AssetChangeRequest) -> Void = { _, _ in }
    ) throws -> [Asset] {
        var placeholders: [String] = []
        try library.performChangesAndWait(author: author) {
            for index in 0..<count {
                let file = directory.file("media/\(UUID().uuidString).jpg", seed: UInt64(index) &+ 7, size: 64)
                let request = AssetChangeRequest.creationRequestForAsset(fromFileAt: file, options: AssetCreationOptions(storage: .referenced))
                configure(index, request)
                placeholders.append(request.placeholderForCreatedAsset!.localIdentifier)
            }
        }
        return Array(try library.fetchAssets(withLocalIdentifiers: placeholders))
    }
}

extension Date {
    /// A UTC instant from components, for readable tests.
    static func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 12, _ minute: Int = 0) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute))!
    }
}

/// Polls `condition` every millisecond until it holds or `timeout` passes; whether it held. The way tests wait
/// for something to happen, instead of sleeping a fixed time.
func waitUntil(timeout: Duration = .seconds(30), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return try await condition()
}

extension PhotoLibrary.Options {
    /// Options whose waiters are woken by commit notifications only, never by the once-a-second re-check:
    /// what a test of the notifications needs, so that it fails when they don't arrive.
    static var notificationsOnly: PhotoLibrary.Options {
        var options = PhotoLibrary.Options()
        options.commitPollInterval = nil
        return options
    }
}

