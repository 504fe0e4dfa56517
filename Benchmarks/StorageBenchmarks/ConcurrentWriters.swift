// Many library handles committing at once into one library, and the check that every change landed once.
import Foundation
import PhotoLibrary

/// `writers` handles on one library, each committing `commits` one-asset transactions as fast as it can, all
/// at once (`performChanges`: each handle commits on its own queue).
struct ConcurrentWriters {
    let handles: [PhotoLibrary]
    let commits: Int
    /// Distinguishes this run's assets from earlier runs' in the same library.
    let run: Int

    /// Runs the writers, checks the journal, and returns the time from the first commit's start to the last's end.
    ///
    /// - Throws: the library's errors; ``ConcurrentWritersError`` when a change is missing, repeated or out of order.
    func measure() async throws -> Duration {
        let start = try handles[0].currentChangeToken
        let began = ContinuousClock.now
        let committed = try await withThrowingTaskGroup(of: (Int, [String]).self) { group in
            for (writer, handle) in handles.enumerated() {
                group.addTask { (writer, try await commit(writer: writer, on: handle)) }
            }
            return try await group.reduce(into: [Int: [String]]()) { $0[$1.0] = $1.1 }
        }
        let elapsed = ContinuousClock.now - began
        try check(since: start, committed: committed)
        return elapsed
    }

    /// One writer's commits, in order: the identifier of the asset each created.
    private func commit(writer: Int, on library: PhotoLibrary) async throws -> [String] {
        var identifiers: [String] = []
        for index in 0..<commits {
            let hash = String(format: "%08x%08x%016x", run, writer, index)
            identifiers.append(try await library.performChanges(author: "writer-\(writer)") {
                let request = AssetChangeRequest.creationRequestForAsset(
                    fromFileAt: URL(fileURLWithPath: "/writers/\(hash).jpg"),
                    options: AssetCreationOptions(storage: .referenced, contentHash: hash, fileSize: 1))
                return request.placeholderForCreatedAsset!.localIdentifier
            })
        }
        return identifiers
    }

    /// Reads the journal since `start` as a client would: one change per commit, each asset inserted once, in
    /// every writer's own order, tokens increasing; and every asset fetched.
    private func check(since start: ChangeToken, committed: [Int: [String]]) throws {
        let reader = handles[0]
        var seen: [Int: [String]] = [:]
        var previous = start.sequence
        var changes = 0
        for change in try reader.fetchPersistentChanges(since: start) {
            guard change.changeToken.sequence > previous else { throw ConcurrentWritersError("token went backwards at \(change.changeToken.sequence)") }
            previous = change.changeToken.sequence
            let inserted = try change.changeDetails(for: .asset).insertedLocalIdentifiers
            guard inserted.count == 1, let writer = Int(change.author.dropFirst("writer-".count)) else {
                throw ConcurrentWritersError("an unexpected change: \(change.author), \(inserted.count) assets")
            }
            seen[writer, default: []].append(inserted.first!)
            changes += 1
        }
        guard changes == handles.count * commits, seen == committed else {
            throw ConcurrentWritersError(
                "the journal holds \(changes) changes for \(handles.count * commits) commits, or not each writer's in its order")
        }
        let all = committed.values.flatMap { $0 }
        guard try reader.fetchAssets(withLocalIdentifiers: all).count == all.count else {
            throw ConcurrentWritersError("not every committed asset is fetched")
        }
    }
}

struct ConcurrentWritersError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
