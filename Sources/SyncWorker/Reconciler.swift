import PhotoLibrary

/// The one rule set of scan and watch, as pure functions: from what the disk shows for a scope and what
/// the mirror recorded for it, to what must change.
///
/// ## Rules
/// 1. Same path, same stamp (device, inode, size, mtime and ctime to the nanosecond): unchanged, not read.
/// 2. A recorded path gone from disk whose (device, inode, size, mtime) reappears at another path: a move
///    (rename, move across folders, case-only rename, whole-directory rename), recognised without reading
///    the file.
/// 3. Everything else on disk is hashed (stat before and after; a file that changed meanwhile is still
///    being written and is retried later). Then:
///    - a recorded path whose hash is the same: only its stamp is refreshed;
///    - a recorded path with a new hash: a content update (same asset, `assetContentChanged`);
///    - a new path whose hash is that of a recorded path gone from disk: a move;
///    - any other new path: an insert. Identical content at two paths is two assets.
/// 4. Recorded paths gone and not moved: deletes — except under a directory that could not be listed, and
///    files that exist but cannot be read, which are kept.
enum Reconciler {
    struct Plan {
        var unchanged = 0
        /// Paths to hash, by path order, with their stamp before hashing.
        var toHash: [(path: String, stamp: FileStamp)] = []
        /// Moves found by stamp, without reading.
        var stampMoves: [(from: MirroredFile, to: String, stamp: FileStamp)] = []
        /// Recorded files that lost their path (gone, or displaced by a file moved over them) and were not
        /// claimed by a stamp move: deleted unless their hash reappears.
        var vanished: [MirroredFile] = []
    }

    /// A file's identity in a stamp, whatever its path: device, inode, size and modification time.
    private struct Identity: Hashable {
        let device: UInt64, inode: UInt64, size: Int64, mtimeNs: Int64
        init(_ stamp: FileStamp) { (device, inode, size, mtimeNs) = (stamp.device, stamp.inode, stamp.size, stamp.mtimeNs) }
    }

    /// Compares a scope's disk snapshot with the mirror's records for the same scope.
    ///
    /// - Parameters:
    ///   - disk: the files on disk in the scope (each path once); its storage becomes the plan's list of
    ///     files to hash.
    ///   - recorded: the mirrored files in the scope.
    ///   - isKept: recorded paths to keep even when the disk does not show them (under unreadable
    ///     directories).
    /// - Complexity: O(*n* log *n*) in the files of the scope. The files to hash are filtered in place from
    ///   `disk` (no second copy); a set of the disk's paths is made only when recorded files are gone.
    static func plan(
        disk: consuming [(path: String, stamp: FileStamp)], recorded: some RecordedFiles, isKept: (String) -> Bool
    ) -> Plan {
        var plan = Plan()
        var found = 0
        var unchanged = [Bool](repeating: false, count: disk.count)
        for (index, entry) in disk.enumerated() {
            if let old = recorded.stamp(at: entry.path) {
                found += 1
                if old == entry.stamp { unchanged[index] = true }
            }
        }
        var gone: [MirroredFile] = []
        // Every recorded path was found on disk: nothing is gone (the common rescan needs no second pass).
        if found < recorded.count {
            let onDisk = Set(disk.lazy.map(\.path))
            recorded.forEachFile { file in
                if !onDisk.contains(file.relativePath) && !isKept(file.relativePath) { gone.append(file) }
            }
        }
        var kept = 0
        for index in disk.indices where !unchanged[index] {
            if kept != index { disk[kept] = disk[index] }
            kept += 1
        }
        plan.unchanged = disk.count - kept
        disk.removeLast(disk.count - kept)
        unchanged = []
        disk.sort { $0.path < $1.path }
        plan.toHash = consume disk
        // Nothing gone: no move, and every candidate is hashed (the initial scan).
        if gone.isEmpty { return plan }
        gone.sort { $0.relativePath < $1.relativePath }
        // Moves by stamp: the file itself (same inode, size, mtime) at another path.
        var goneByIdentity: [Identity: Int] = [:]
        for (index, file) in gone.enumerated() { goneByIdentity[Identity(file.stamp)] = index }
        var claimed = Set<Int>()
        // Candidates that are moves leave the array in place; the others keep their path order.
        var toHash = 0
        for position in plan.toHash.indices {
            let candidate = plan.toHash[position]
            if let index = goneByIdentity[Identity(candidate.stamp)], !claimed.contains(index) {
                claimed.insert(index)
                plan.stampMoves.append((gone[index], candidate.path, candidate.stamp))
                if let displaced = recorded[path: candidate.path] { plan.vanished.append(displaced) }
            } else {
                if toHash != position { plan.toHash[toHash] = candidate }
                toHash += 1
            }
        }
        plan.toHash.removeLast(plan.toHash.count - toHash)
        plan.vanished += gone.enumerated().filter { !claimed.contains($0.offset) }.map(\.element)
        return plan
    }

    /// What to do with one hashed file.
    enum Action: Equatable {
        /// Same content at the same path: refresh the stamp only.
        case restamp(MirroredFile)
        /// New content at a recorded path.
        case update(MirroredFile)
        /// A recorded file gone from its path, found again by content.
        case move(from: MirroredFile)
        case insert
    }

    /// Decides for a hashed file, claiming a vanished file of the same content for a move.
    ///
    /// - Parameter vanishedByHash: vanished files by content hash; a claimed one is removed.
    static func decide(
        path: String, hash: String, recorded: MirroredFile?, vanishedByHash: inout [String: [MirroredFile]]
    ) -> Action {
        if let recorded {
            return recorded.contentHash == hash ? .restamp(recorded) : .update(recorded)
        }
        guard var sources = vanishedByHash[hash], !sources.isEmpty else { return .insert }
        // Prefer a file of the same name (a move across folders), else the first by path.
        let name = FileSystem.name(of: path)
        let index = sources.firstIndex { FileSystem.name(of: $0.relativePath) == name } ?? 0
        let source = sources.remove(at: index)
        vanishedByHash[hash] = sources.isEmpty ? nil : sources
        return .move(from: source)
    }
}
