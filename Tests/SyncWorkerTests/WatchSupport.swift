import Foundation
import PhotoLibrary
import Testing

@testable import SyncWorker

/// Waits until `condition` holds, polling every 10 ms, for at most `timeout`; returns whether it holds.
@discardableResult
func eventually(
    timeout: Duration = .seconds(30), _ condition: () throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
        if try condition() { return true }
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(10))
    }
}

/// The directories that hold these files (at any depth), without the root, sorted.
func directoriesHolding(_ paths: some Sequence<String>) -> [String] {
    var result = Set<String>()
    for path in paths {
        var directory = FileSystem.parent(of: path)
        while !directory.isEmpty && result.insert(directory).inserted { directory = FileSystem.parent(of: directory) }
    }
    return result.sorted()
}

/// What the journal says happened to assets since a token, transaction by transaction merged.
struct AssetJournal {
    var inserted: [String] = []
    var updated: [String] = []
    var deleted: [String] = []

    init(_ library: PhotoLibrary, since token: ChangeToken) throws {
        for change in try library.fetchPersistentChanges(since: token) {
            let details = try change.changeDetails(for: .asset)
            inserted += details.insertedLocalIdentifiers.sorted()
            updated += details.updatedLocalIdentifiers.sorted()
            deleted += details.deletedLocalIdentifiers.sorted()
        }
    }
}

extension Sandbox {
    /// Changes a file's times to now, as `touch` does: metadata only.
    func touch(_ relative: String) {
        precondition(utimes(path(relative), nil) == 0, "touch \(relative): \(errno)")
    }

    /// Whether the library shows exactly these paths (relative to the root).
    func mirrorsPaths(_ expected: Set<String>) throws -> Bool {
        Set(try assetsByPath().keys) == expected
    }
}
