/// The watcher's pending work: the paths its events marked and that no round has reconciled yet, in groups
/// that settle together, with what is known of the files still being written.
///
/// ## Rules
/// - An event marks its paths with the time. A path stays pending until a round takes it; each time it is
///   marked again, its group's quiet period starts over.
/// - The two paths of a rename are one group: the move's source and destination are always reconciled in
///   the same round (so a rotation of names, `mv a b; mv c a`, is two moves, never an insert and an update).
///   A rename below a pending path (a directory renamed a moment ago: the kernel already names its files by
///   the new name, the mirror still records them by the old one) joins that path's group. A renamed
///   directory carries the paths pending below its old name to its new name (later events name them there)
///   and takes them into its group, with the paths pending below the new name.
/// - A group is **ready** once it has been quiet for the settle interval and none of its files is still
///   being written: a file written (`.fileWritten`) and not closed since (`.fileClosed`) waits for its
///   writer's close; a writer that never closes holds it until it has been quiet for the open-file interval.
/// - Each path gets a sequence number when it becomes pending (kept while it stays pending): a round records
///   the last number it has seen (its horizon), and a file it finds gone is held until no path at or below
///   that number is pending any more (``HeldFiles``).
///
/// Not thread-safe: a value kept under the ``WatchQueue``'s lock.
struct PendingPaths {
    struct Entry {
        var group: Int
        /// The number of the event that made the path pending.
        var sequence: UInt64
        /// When a write was last seen, while no close has been seen since (a writer may hold the file open).
        var lastWrite: ContinuousClock.Instant?
    }

    struct Group {
        var touched: ContinuousClock.Instant
        var paths: Set<String>
    }

    private(set) var entries: [String: Entry] = [:]
    private var groups: [Int: Group] = [:]
    /// The paths with a `lastWrite`.
    private var writing: Set<String> = []
    private var nextGroup = 0
    /// The number of the last path made pending.
    private(set) var sequence: UInt64 = 0

    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }

    /// Marks a path: created, changed, appeared.
    mutating func touch(_ path: String, at now: ContinuousClock.Instant) {
        mark(path, at: now)
    }

    /// Marks again a path a round took and could not reconcile (a file still being written), with the sequence
    /// number it had when taken, `sequence` (or its own, if it is pending again with an older one): it was not
    /// reconciled, so a file held since it was pending (``HeldFiles``) stays held until it is. A new number
    /// would let the floor pass the held files' horizons at each retry, releasing them one round at a time.
    mutating func retry(_ path: String, sequence: UInt64?, at now: ContinuousClock.Instant) {
        mark(path, at: now)
        if let sequence, let current = entries[path]?.sequence, sequence < current { entries[path]?.sequence = sequence }
    }

    /// A write to a file that may still be open.
    mutating func written(_ path: String, at now: ContinuousClock.Instant) {
        mark(path, at: now)
        entries[path]?.lastWrite = now
        writing.insert(path)
    }

    /// A writer closed the file.
    mutating func closed(_ path: String, at now: ContinuousClock.Instant) {
        mark(path, at: now)
        entries[path]?.lastWrite = nil
        writing.remove(path)
    }

    /// A file or directory vanished: nothing below it is being written any more (as far as the tree goes).
    mutating func removed(_ path: String, at now: ContinuousClock.Instant) {
        mark(path, at: now)
        for written in writing where FileSystem.isWithin(written, path) {
            entries[written]?.lastWrite = nil
            writing.remove(written)
        }
    }

    /// A rename inside the tree: one group for both paths (and, for a directory, for what is pending below
    /// either name, carried to the new name).
    ///
    /// - Complexity: O(depth) for a file; O(pending paths) for a directory.
    mutating func moved(from: String, to: String, isDirectory: Bool, at now: ContinuousClock.Instant) {
        var group = merge(mark(from, at: now), mark(to, at: now))
        for path in [from, to] {
            var ancestor = path
            while !ancestor.isEmpty {
                ancestor = FileSystem.parent(of: ancestor)
                if let other = entries[ancestor]?.group { group = merge(group, other) }
            }
        }
        if isDirectory {
            let below = entries.keys.filter { $0.hasPrefix(from + "/") }
            for path in below { group = carry(path, to: to + path.dropFirst(from.count), joining: group) }
            for path in entries.keys where path.hasPrefix(to + "/") {
                if let other = entries[path]?.group { group = merge(group, other) }
            }
        } else if let write = entries[from]?.lastWrite {
            entries[from]?.lastWrite = nil
            writing.remove(from)
            entries[to]?.lastWrite = write
            writing.insert(to)
        }
    }

    /// Takes the groups that are ready (see the rules).
    ///
    /// - Parameters:
    ///   - settle: how long a group must be quiet.
    ///   - openLimit: how long a file written and not closed must be quiet (a writer that never closes).
    /// - Returns: the paths, with the sequence number of each.
    /// - Complexity: O(groups + files being written).
    mutating func takeReady(
        at now: ContinuousClock.Instant, settle: Duration, openLimit: Duration
    ) -> [(path: String, sequence: UInt64)] {
        var blocked = Set<Int>()
        for path in writing {
            guard let entry = entries[path], let write = entry.lastWrite else { continue }
            if now - write < openLimit { blocked.insert(entry.group) }
        }
        var ready: [(path: String, sequence: UInt64)] = []
        for (id, group) in groups where now - group.touched >= settle && !blocked.contains(id) {
            for path in group.paths { ready.append((path, entries[path]?.sequence ?? sequence)) }
            groups[id] = nil
        }
        for (path, _) in ready {
            entries[path] = nil
            writing.remove(path)
        }
        return ready
    }

    /// Takes everything (a barrier), with the sequence number of each path.
    mutating func takeAll() -> [(path: String, sequence: UInt64)] {
        let taken = entries.map { (path: $0.key, sequence: $0.value.sequence) }
        entries = [:]
        groups = [:]
        writing = []
        return taken
    }

    /// The oldest sequence number of the pending paths; nil when none is pending.
    ///
    /// - Complexity: O(pending paths).
    var floor: UInt64? { entries.values.lazy.map(\.sequence).min() }

    /// The pending paths.
    var paths: Set<String> { Set(entries.keys) }

    // MARK: Groups

    /// Marks one path, making it pending in a group of its own when it was not; returns its group.
    @discardableResult
    private mutating func mark(_ path: String, at now: ContinuousClock.Instant) -> Int {
        if let entry = entries[path] {
            if let touched = groups[entry.group]?.touched, touched < now { groups[entry.group]?.touched = now }
            return entry.group
        }
        sequence += 1
        nextGroup += 1
        entries[path] = Entry(group: nextGroup, sequence: sequence)
        groups[nextGroup] = Group(touched: now, paths: [path])
        return nextGroup
    }

    /// One group of two: the smaller one's paths join the larger one; quiet from the later touch.
    private mutating func merge(_ first: Int, _ second: Int) -> Int {
        guard first != second, let a = groups[first], let b = groups[second] else { return first }
        let (kept, absorbed) = a.paths.count >= b.paths.count ? (first, second) : (second, first)
        let moving = groups.removeValue(forKey: absorbed)!
        for path in moving.paths { entries[path]?.group = kept }
        groups[kept]?.paths.formUnion(moving.paths)
        groups[kept]?.touched = max(a.touched, b.touched)
        return kept
    }

    /// Moves a pending path below a renamed directory to its new name, into `group`.
    private mutating func carry(_ path: String, to newPath: String, joining group: Int) -> Int {
        guard let entry = entries.removeValue(forKey: path) else { return group }
        groups[entry.group]?.paths.remove(path)
        if groups[entry.group]?.paths.isEmpty == true { groups[entry.group] = nil }
        var joined = group
        if let existing = entries[newPath] {
            joined = merge(group, existing.group)
            entries[newPath]?.sequence = min(existing.sequence, entry.sequence)
        } else {
            entries[newPath] = Entry(group: group, sequence: entry.sequence)
            groups[group]?.paths.insert(newPath)
        }
        if let write = entry.lastWrite {
            writing.remove(path)
            entries[newPath]?.lastWrite = write
            writing.insert(newPath)
        }
        // The carried path's old group, if it had other paths, joins too: they were one move's halves.
        if groups[entry.group] != nil { joined = merge(joined, entry.group) }
        return joined
    }
}
