import PhotoLibrary

/// Recorded files a watch round found gone and did not delete yet, because paths that were pending when they
/// vanished are still to be reconciled, and one of them may be where the file went (a file moved out of the
/// tree and back in, a rename whose two halves the kernel could not pair, a move whose destination settles
/// later than its source).
///
/// A held file stays what it was — in the engine's model and in the library, asset and mirror state — and is
/// offered to every later round as the source of a move (by stamp identity and by content), whatever that
/// round's scope. It is deleted once every path pending when it vanished has been reconciled, at a barrier,
/// by a full scan (which sees it gone and judges it with everything else), or ``limit(settle:)`` after it
/// vanished, so that perpetual activity elsewhere (a file written for hours) cannot hold it forever — unless
/// the file itself is at a path still pending (the same inode: renamed, then touched or written on, or only
/// not reconciled yet on a starved machine), whose round will claim it.
///
/// "Pending when it vanished" includes the events still on their way: the round that finds a file gone asks
/// the watcher for a marker (``WatchRound/requestMarker``), and the file's horizon is the sequence number
/// of the pending work when that marker arrives — every event about a change made before the file was found
/// gone (where it went) has a number up to it. The file is deleted once no pending path has a number up to
/// its horizon (``WatchRound/pendingFloor``).
///
/// Memory only: a crash forgets the hold, and the next pass finds the file gone (the library still records
/// it) and judges it then. A held file whose path shows something again, or that the model no longer records
/// (moved, deleted by another pass), is simply dropped.
struct HeldFiles {
    struct Entry {
        let file: MirroredFile
        /// The marker asked for when the file was found gone.
        let marker: UInt64
        /// The sequence number of the pending work when that marker (or a later one) arrived: nil until then.
        var horizon: UInt64?
        let since: ContinuousClock.Instant
    }

    private(set) var entries: [String: Entry] = [:]

    var isEmpty: Bool { entries.isEmpty }

    /// How long a file is held at most: ten settle intervals, and at least 10 s. Paired renames never need it
    /// (the watcher reconciles both halves in one round); it bounds how late a deletion is committed while
    /// other paths stay busy.
    static func limit(settle: Duration) -> Duration { max(settle * 10, .seconds(10)) }

    /// The held files a round may claim besides those in its scope: still missing from disk, still recorded as
    /// they were, and not under `scope` (the round finds those itself) nor under a path left to another round.
    /// Drops the entries that are no longer valid.
    mutating func sources(outside scope: [String], isKept: (String) -> Bool, model: MirrorModel, root: String) -> [MirroredFile] {
        var result: [MirroredFile] = []
        for (path, entry) in entries {
            guard Self.isValid(entry, model: model, root: root) else {
                entries[path] = nil
                continue
            }
            if scope.contains(where: { FileSystem.isWithin(path, $0) }) || isKept(path) { continue }
            result.append(entry.file)
        }
        return result.sorted { $0.relativePath < $1.relativePath }
    }

    /// Takes a round's vanished files (gone, claimed by nobody) and says which recorded files to delete now:
    /// those whose path holds something that is not media (they are not missing: nothing can come back there
    /// unseen), and every held file the round releases.
    ///
    /// - Complexity: O(held files + vanished files), plus one `lstat` per vanished or held file, and
    ///   `pendingInodes` once when a held file reaches the limit.
    mutating func settle(
        vanished: [MirroredFile], round: WatchRound, model: MirrorModel, root: String, limit: Duration,
        pendingInodes: () -> Set<FileInode>
    ) -> [MirroredFile] {
        var deletions: [MirroredFile] = []
        for (path, entry) in entries where !Self.isValid(entry, model: model, root: root) { entries[path] = nil }
        var marker: UInt64?
        for file in vanished {
            if round.isBarrier || FileSystem.stamp(root + "/" + file.relativePath) != nil {
                entries[file.relativePath] = nil
                deletions.append(file)
            } else if entries[file.relativePath] == nil {
                if marker == nil { marker = round.requestMarker() }
                entries[file.relativePath] = Entry(file: file, marker: marker!, since: round.now)
            }
        }
        var inodesPending: Set<FileInode>?
        for (path, var entry) in entries {
            if entry.horizon == nil, let last = round.lastMarker, last.id >= entry.marker {
                entry.horizon = last.sequence
                entries[path] = entry
            }
            let pendingDone = entry.horizon.map { horizon in round.pendingFloor.map { horizon < $0 } ?? true } ?? false
            var expired = false
            if !round.isBarrier, !pendingDone, round.now - entry.since >= limit {
                if inodesPending == nil { inodesPending = pendingInodes() }
                expired = !inodesPending!.contains(FileInode(entry.file.stamp))
            }
            if round.isBarrier || pendingDone || expired {
                deletions.append(entry.file)
                entries[path] = nil
            }
        }
        return deletions.sorted { $0.relativePath < $1.relativePath }
    }

    private static func isValid(_ entry: Entry, model: MirrorModel, root: String) -> Bool {
        guard let now = model[path: entry.file.relativePath], now.assetIdentifier == entry.file.assetIdentifier,
            now.contentHash == entry.file.contentHash
        else { return false }
        return FileSystem.stamp(root + "/" + entry.file.relativePath) == nil
    }
}
