import PhotoLibrary

/// The one rule set of scan and watch, as pure functions: from what the disk shows for a scope and what
/// the mirror recorded for it, to what must change.
///
/// ## Rules
/// 1. Same path, same stamp (device, inode, size, mtime and ctime to the nanosecond): unchanged, not read.
/// 2. A recorded file that left its path — the path is gone from disk, or holds another file (another inode)
///    — and whose (device, inode, size, mtime) is found at another path: a move (rename, move across
///    folders, case-only rename, whole-directory rename, a file renamed over another one, rotations and
///    swaps of names), recognised without reading the file.
/// 3. Everything else on disk is hashed (stat before and after; a file that changed meanwhile is still
///    being written and is retried later). Then:
///    - a recorded path holding the same file (inode): same hash → only its stamp is refreshed; a new hash
///      → a content update (same asset, `assetContentChanged`);
///    - a new path whose inode and hash are those of a recorded file that left its path: a move (the file
///      renamed and touched);
///    - a recorded path holding another file whose recorded file did not move away (an atomic save: a new
///      file renamed over it): an update, as above;
///    - a new path (or a path whose recorded file moved away) whose hash is that of a recorded file gone
///      from disk: a move (a copy, then the original deleted);
///    - anything else: an insert. Identical content at two paths is two assets.
/// 4. Recorded files gone and not moved: deletes — except under a directory that could not be listed, and
///    files that exist but cannot be read, which are kept. A recorded file whose path now holds a file moved
///    there (rule 2) is deleted in the same transaction as that move.
enum Reconciler {
    /// How a file on disk relates to what is recorded at its path.
    enum Kind: Equatable {
        /// Nothing recorded at its path.
        case new
        /// The recorded file itself (same device and inode), changed or touched.
        case sameFile(MirroredFile)
        /// Another file than the recorded one (another inode): renamed over it, or an atomic save.
        case replacing(MirroredFile)

        init(stamp: FileStamp, recorded: MirroredFile?) {
            guard let recorded else {
                self = .new
                return
            }
            let same = recorded.stamp.device == stamp.device && recorded.stamp.inode == stamp.inode
            self = same ? .sameFile(recorded) : .replacing(recorded)
        }
    }

    /// A move recognised by its stamp, without reading.
    struct StampMove {
        let from: MirroredFile
        let to: String
        let stamp: FileStamp
    }

    struct Plan {
        var unchanged = 0
        /// Paths to hash, with their stamp before hashing, in the order to hash them: new paths that may be a
        /// source's file touched since first, then the others by path, paths holding a file that replaces the
        /// recorded one last (the engine decides those together, once everything else is).
        var toHash: [(path: String, stamp: FileStamp)] = []
        /// Moves found by stamp onto paths where no recorded file stays: committed first, together.
        var stampMoves: [StampMove] = []
        /// Moves found by stamp onto a path whose recorded file has not moved away: committed at the end, in one
        /// transaction with that recorded file's deletion, unless a later claim has moved it away meanwhile.
        var deferredMoves: [StampMove] = []
        /// What the files at new paths can be moves of.
        var sources = MoveSources()

        /// The recorded files gone from disk that no stamp move claimed (yet): deleted unless their content
        /// reappears.
        var vanished: [MirroredFile] { sources.unclaimedGone }
    }

    /// Compares a scope's disk snapshot with the mirror's records for the same scope.
    ///
    /// - Parameters:
    ///   - disk: the files on disk in the scope (each path once); its storage becomes the plan's list of
    ///     files to hash.
    ///   - recorded: the mirrored files in the scope.
    ///   - extraSources: recorded files outside the scope known to have left their path (a watch round's held
    ///     files), offered as move sources too.
    ///   - reservedInodes: inodes of files outside the scope (still pending for a later round): sources with
    ///     one of them are left to that file, never claimed by content alone.
    ///   - outside: finds, for a file at a new path, a recorded file outside the scope with its device and
    ///     inode whose path no longer holds it (a watch round that sees a file before the event of its move);
    ///     nil for a full scan.
    ///   - isKept: recorded paths to keep even when the disk does not show them (under unreadable
    ///     directories).
    /// - Complexity: O(*n* log *n*) in the files of the scope. The files to hash are filtered in place from
    ///   `disk` (no second copy); a set of the disk's paths is made only when recorded files are gone.
    static func plan(
        disk: consuming [(path: String, stamp: FileStamp)], recorded: some RecordedFiles, extraSources: [MirroredFile] = [],
        reservedInodes: Set<FileInode> = [], outside: ((FileStamp, String) -> MirroredFile?)? = nil, isKept: (String) -> Bool
    ) -> Plan {
        var plan = Plan()
        var found = 0
        var unchanged = [Bool](repeating: false, count: disk.count)
        var replaced: [MirroredFile] = []
        for (index, entry) in disk.enumerated() {
            if let old = recorded.stamp(at: entry.path) {
                found += 1
                if old == entry.stamp {
                    unchanged[index] = true
                } else if old.device != entry.stamp.device || old.inode != entry.stamp.inode, let file = recorded[path: entry.path] {
                    replaced.append(file)
                }
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
        // Nothing gone or replaced: no move, and every candidate is hashed (the initial scan).
        if gone.isEmpty && replaced.isEmpty && extraSources.isEmpty && outside == nil { return plan }
        gone.append(contentsOf: extraSources)
        gone.sort { $0.relativePath < $1.relativePath }
        plan.sources = MoveSources(gone: gone, replaced: replaced)
        if let outside {
            for candidate in plan.toHash where !plan.sources.contains(inodeOf: candidate.stamp) {
                if case .sameFile = Kind(stamp: candidate.stamp, recorded: recorded[path: candidate.path]) { continue }
                if let file = outside(candidate.stamp, candidate.path), recorded.stamp(at: file.relativePath) == nil {
                    plan.sources.add(file, origin: .outside)
                }
            }
            if plan.sources.isEmpty { return plan }
        }
        plan.sources.reserve(inodes: reservedInodes)
        plan.sources.reserve(inodesOf: plan.toHash.lazy.filter {
            if case .sameFile = Kind(stamp: $0.stamp, recorded: recorded[path: $0.path]) { false } else { true }
        })
        matchStamps(&plan, recorded: recorded)
        return plan
    }

    /// Rule 2: moves by stamp identity; then the order in which the rest is read.
    private static func matchStamps(_ plan: inout Plan, recorded: some RecordedFiles) {
        var moves: [(move: StampMove, replacing: Bool)] = []
        // Candidates that are moves leave the array in place; the others keep their path order.
        var toHash = 0
        for position in plan.toHash.indices {
            let candidate = plan.toHash[position]
            let kind = Kind(stamp: candidate.stamp, recorded: recorded[path: candidate.path])
            if case .sameFile = kind {
                // The recorded file itself: never the target of a move.
            } else if let source = plan.sources.claim(identityOf: candidate.stamp, at: candidate.path) {
                moves.append((StampMove(from: source, to: candidate.path, stamp: candidate.stamp), kind != .new))
                continue
            }
            if toHash != position { plan.toHash[toHash] = candidate }
            toHash += 1
        }
        plan.toHash.removeLast(plan.toHash.count - toHash)
        // A move onto a path whose recorded file moved away too is a plain move; otherwise it waits for the end.
        for (move, replacing) in moves {
            if replacing && !plan.sources.isClaimed(path: move.to) {
                plan.deferredMoves.append(move)
            } else {
                plan.stampMoves.append(move)
            }
        }
        // The files that may be a source's file touched since are read first, so that their claim comes before
        // any claim by content alone; files replacing a recorded one last.
        let sources = plan.sources
        func rank(_ candidate: (path: String, stamp: FileStamp)) -> Int {
            switch Kind(stamp: candidate.stamp, recorded: recorded[path: candidate.path]) {
            case .new: sources.hasUnclaimed(inodeOf: candidate.stamp) ? 0 : 1
            case .sameFile: 1
            case .replacing: 2
            }
        }
        let ranks = plan.toHash.map(rank)
        if ranks.contains(where: { $0 != 1 }) {
            plan.toHash = plan.toHash.indices.sorted { (ranks[$0], $0) < (ranks[$1], $1) }.map { plan.toHash[$0] }
        }
    }

    /// What to do with one hashed file.
    enum Action: Equatable {
        /// Same content at the same path: refresh the stamp only.
        case restamp(MirroredFile)
        /// New content at a recorded path.
        case update(MirroredFile)
        /// A recorded file that left its path, found again here.
        case move(from: MirroredFile)
        case insert
    }

    /// Decides for a hashed file that does not replace a recorded one (rule 3), claiming the source it is a
    /// move of: the same file touched (inode and content), else the same content.
    static func decide(_ path: String, stamp: FileStamp, hash: String, kind: Kind, sources: inout MoveSources) -> Action {
        switch kind {
        case .sameFile(let recorded), .replacing(let recorded):
            return recorded.contentHash == hash ? .restamp(recorded) : .update(recorded)
        case .new:
            let source = sources.claim(sameFileAs: stamp, hash: hash)
                ?? sources.claim(hash: hash, name: FileSystem.name(of: path), inode: FileInode(stamp))
            return source.map { .move(from: $0) } ?? .insert
        }
    }

    /// A hashed file at a path where another file is recorded (another inode).
    struct Replacing {
        let path: String
        let stamp: FileStamp
        let hash: String
        /// What the mirror records at the path now (nil when it moved away in an earlier batch of the pass).
        let recorded: MirroredFile?
    }

    /// Decides together the files that replace a recorded one, once every other file of the pass is decided:
    /// first those that are a source's file renamed over the path (inode and content: a rotation or a swap of
    /// names, with the files touched); then, at each path whose recorded file did not move away, an atomic
    /// save (an update, or a restamp); at the others, a new file (a move by content, or an insert).
    ///
    /// - Returns: one action per file, in the order given.
    static func decide(replacing files: [Replacing], sources: inout MoveSources) -> [(path: String, action: Action)] {
        var actions: [String: Action] = [:]
        for file in files {
            if let source = sources.claim(sameFileAs: file.stamp, hash: file.hash) { actions[file.path] = .move(from: source) }
        }
        for file in files where actions[file.path] == nil {
            if let recorded = file.recorded, !sources.isClaimed(path: file.path) {
                actions[file.path] = recorded.contentHash == file.hash ? .restamp(recorded) : .update(recorded)
            } else {
                actions[file.path] = decide(file.path, stamp: file.stamp, hash: file.hash, kind: .new, sources: &sources)
            }
        }
        return files.map { ($0.path, actions[$0.path] ?? .insert) }
    }
}
