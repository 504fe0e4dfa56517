import Foundation
import PhotoLibrary
import Testing

@testable import SyncWorker

/// Issue 11, item 1: two steps inside one settle window (the default, 1 s), left to the watcher's own timing —
/// no barrier between them — keep the identifier of the file they concern.
@Suite("Sync worker: identity inside one settle window")
struct WatchIdentityTests {
    enum Scenario: String, CaseIterable, CustomTestStringConvertible {
        case renameThenRenameDirectory = "mv 2024/IMG_0.jpg 2024/r.jpg; mv 2024 Renamed"
        case touchThenRenameDirectory = "touch 2024/IMG_0.jpg; mv 2024 Renamed"
        case renameDirectoryThenMoveOut = "mv 2024 Renamed; mv Renamed/IMG_0.jpg ."
        case renameThenTouch = "mv 2024/IMG_0.jpg 2024/r.jpg; touch 2024/r.jpg"

        var testDescription: String { rawValue }

        func first(_ box: Sandbox) {
            switch self {
            case .renameThenRenameDirectory, .renameThenTouch: box.move("2024/IMG_0.jpg", "2024/r.jpg")
            case .touchThenRenameDirectory: box.touch("2024/IMG_0.jpg")
            case .renameDirectoryThenMoveOut: box.move("2024", "Renamed")
            }
        }

        func second(_ box: Sandbox) {
            switch self {
            case .renameThenRenameDirectory, .touchThenRenameDirectory: box.move("2024", "Renamed")
            case .renameDirectoryThenMoveOut: box.move("Renamed/IMG_0.jpg", "IMG_0.jpg")
            case .renameThenTouch: box.touch("2024/r.jpg")
            }
        }

        /// Where IMG_0.jpg ends, and the folder of the three others.
        var destination: (file: String, others: String) {
            switch self {
            case .renameThenRenameDirectory: ("Renamed/r.jpg", "Renamed")
            case .touchThenRenameDirectory: ("Renamed/IMG_0.jpg", "Renamed")
            case .renameDirectoryThenMoveOut: ("IMG_0.jpg", "Renamed")
            case .renameThenTouch: ("2024/r.jpg", "2024")
            }
        }
    }

    // SQLite only: the subject is the watcher's timing, not the library's storage; WatchTimingModelTests runs
    // the same identity rules under random timing on both engines.
    @Test("Two steps a fraction of the settle interval apart keep the identifier: no delete, no insert", arguments: Scenario.allCases, [200, 600])
    func identityKept(scenario: Scenario, gapMilliseconds: Int) async throws {
        let box = try Sandbox()
        for index in 0..<4 { box.write("2024/IMG_\(index).jpg", Media.jpeg(index)) }
        let mirror = try box.mirror()  // the default settle interval: 1 s
        try await whileWatching(mirror) {
            try await mirror.sync()
            let before = try box.assetsByPath().mapValues(\.localIdentifier)
            let album = try #require(try box.library.fetchAssetCollections(with: .album).firstObject).localIdentifier
            let token = try box.library.currentChangeToken

            scenario.first(box)
            try await Task.sleep(for: .milliseconds(gapMilliseconds))  // the gap under test
            scenario.second(box)

            // The watcher's own rounds, no barrier: wait until the library shows the final paths.
            let (file, others) = scenario.destination
            let expected = Set([file] + (1..<4).map { "\(others)/IMG_\($0).jpg" })
            let reached = try await eventually { try box.mirrorsPaths(expected) }
            let shown = try box.assetsByPath().keys.sorted()
            #expect(reached, "the library never showed \(expected.sorted()): \(shown)")
            // Whatever is still pending is committed, then the journal tells what happened.
            try await mirror.sync()
            let after = try box.assetsByPath().mapValues(\.localIdentifier)
            #expect(after[file] == before["2024/IMG_0.jpg"], "IMG_0.jpg lost its identifier")
            for index in 1..<4 { #expect(after["\(others)/IMG_\(index).jpg"] == before["2024/IMG_\(index).jpg"]) }
            let journal = try AssetJournal(box.library, since: token)
            #expect(journal.deleted.isEmpty, "deleted: \(journal.deleted)")
            #expect(journal.inserted.isEmpty, "inserted: \(journal.inserted)")
            // The directory's album follows it.
            let albums = try box.library.fetchAssetCollections(with: .album)
            #expect(albums.contains { $0.localIdentifier == album && $0.localizedTitle == FileSystem.name(of: others) })
        }
    }
}
