#if canImport(Glibc)
import Glibc
#endif

/// The state machine behind a ``FolderWatcher``: the inotify descriptor, the tree of watched directories, the
/// pairing of renames, and the queue of events not yet sent.
///
/// Not thread-safe, by design: the initialiser's thread uses it until the watcher starts its reader thread,
/// and only that thread uses it afterwards (see ``WatchEngine/Transfer``).
final class WatchEngine {
    /// Moves the engine to the reader thread. `@unchecked Sendable` is safe because the sender never touches
    /// the engine again once it is handed over: ``FolderWatcher/init(root:options:)`` creates it, runs the
    /// initial walk, and gives it to the one thread that runs ``run()``.
    struct Transfer: @unchecked Sendable {
        let engine: WatchEngine
    }

    /// An event waiting in ``queue``: ready to send, or the first half of a rename still waiting for its pair.
    enum QueueItem {
        case event(FolderWatchEvent)
        case unpairedMove(cookie: UInt32)
    }

    /// One `inotify_event` as read.
    typealias RawEvent = InotifyReader.Record

    /// The first half of a rename (`IN_MOVED_FROM`).
    struct PendingMove {
        let path: String
        let isDirectory: Bool
        /// The watch of the directory that moved, when it is a watched directory, and where it was.
        let descriptor: Int32?
        let parent: Int32
        let name: String
        /// After this instant it counts as moved away: the end of processing the read that delivered it, plus
        /// the grace period.
        var deadline: ContinuousClock.Instant
        /// The read that delivered it.
        let batch: Int
    }

    let root: String
    let inotify: InotifyReader
    var descriptor: Int32 { inotify.descriptor }
    let options: FolderWatchOptions
    let continuation: AsyncStream<FolderWatchEvent>.Continuation
    let control: WatcherControl

    private(set) var tree = WatchTree()
    private var queue: [QueueItem] = []
    private var pendingMoves: [UInt32: PendingMove] = [:]
    /// Events read while a rename waits for its second half, replayed in order once it is resolved: until
    /// then it is unknown whether paths below the moved directory are inside the tree, and under which name.
    private var deferred: [RawEvent] = []
    private var limitReported = false
    private var lastAppended: FolderWatchEvent?
    /// When `.fileWritten` was last sent, by path (see ``FolderWatchOptions/writeReportInterval``).
    private var writeReports: [String: ContinuousClock.Instant] = [:]
    /// Events queued so far (wraps).
    private var appended = 0
    /// The last read held a write not reported (already reported within the interval).
    private var writeSuppressed = false
    /// Counts the reads processed.
    private var batch = 0
    private(set) var isFinished = false

    /// Creates the inotify instance and watches `root` (a canonical absolute path) and every directory below
    /// it that is not ignored.
    ///
    /// - Throws: ``FolderWatchError`` when inotify cannot be used or the root cannot be watched.
    /// - Complexity: O(entries of every directory of the tree).
    init(
        root: String, givenPath: String, options: FolderWatchOptions,
        continuation: AsyncStream<FolderWatchEvent>.Continuation, control: WatcherControl
    ) throws(FolderWatchError) {
        self.root = root
        self.options = options
        self.continuation = continuation
        self.control = control
        let inotify: InotifyReader
        do { inotify = try InotifyReader() } catch {
            let code = error.code
            throw FolderWatchError(
                kind: .inotifyUnavailable, path: givenPath, errno: code,
                message: code == EMFILE
                    ? "cannot create an inotify instance: the limit fs.inotify.max_user_instances "
                        + "(\(Self.readSysctl("max_user_instances").map(String.init) ?? "?")) is reached"
                    : "cannot create an inotify instance")
        }
        self.inotify = inotify
        let rootDescriptor: Int32
        do { rootDescriptor = try inotify.addWatch(root, mask: InotifyMask.directoryWatch & ~UInt32(IN_DONT_FOLLOW)) } catch {
            let code = error.code
            inotify.close()
            switch code {
            case ENOENT: throw FolderWatchError(kind: .rootMissing, path: givenPath, errno: code, message: "the folder does not exist")
            case ENOTDIR: throw FolderWatchError(kind: .notADirectory, path: givenPath, errno: code, message: "not a folder")
            case EACCES: throw FolderWatchError(kind: .rootUnreadable, path: givenPath, errno: code, message: "cannot watch the folder")
            case ENOSPC:
                throw FolderWatchError(
                    kind: .inotifyUnavailable, path: givenPath, errno: code,
                    message: "no inotify watch is left for the folder. " + Self.kernelLimitAdvice())
            default: throw FolderWatchError(kind: .inotifyUnavailable, path: givenPath, errno: code, message: "cannot watch the folder")
            }
        }
        tree.setRoot(rootDescriptor)
        walk(from: rootDescriptor, path: "", mode: .fresh)
        publishCount()
        flush()
    }

    // MARK: - The reader loop

    /// Reads and translates events until the watcher is stopped or the root is gone; then closes the inotify
    /// descriptor (which removes every watch) and finishes the stream.
    func run() {
        defer {
            inotify.close()
            control.watchedDirectories.store(0, ordering: .relaxed)
            continuation.finish()
        }
        var buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(16, options.readBufferSize), alignment: 8)
        defer { buffer.deallocate() }
        var holding = options.holdsEventsUntilResumed
        var markers: [UInt64] = []
        // After a read whose events were all writes already reported (a large file being copied), the reader
        // pauses briefly: the kernel merges the IN_MODIFY of one file while they wait in its queue, so a copy
        // costs a few reads per second instead of one per write(2).
        var pausedUntil: ContinuousClock.Instant?
        while !isFinished {
            let paused = pausedUntil.map { ContinuousClock.now < $0 } ?? false
            var fds = [
                pollfd(fd: holding || paused ? -1 : descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: control.wakeDescriptor, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&fds, 2, paused ? pauseTimeout(until: pausedUntil!) : pollTimeout())
            if ready < 0 && errno != EINTR { return }
            if fds[1].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                while read(control.wakeDescriptor, &drain, drain.count) > 0 {}
                let state = control.state.withLock { state in
                    defer { state.markers = [] }
                    return state
                }
                if state.stopRequested { return }
                if state.resumeRequested { holding = false }
                markers += state.markers
            }
            if !holding && !markers.isEmpty {
                // Everything the kernel queued before the markers were asked for, then the markers.
                while !isFinished && readOnce(&buffer) {}
                for marker in markers { append(.marker(marker)) }
                markers = []
            } else if !holding && !paused && fds[0].revents != 0 {
                let sent = appended
                _ = readOnce(&buffer)
                pausedUntil = appended == sent && writeSuppressed ? ContinuousClock.now + Self.writePause : nil
            }
            if !isFinished { resolveExpiredMoves() }
            flush()
        }
    }

    /// One read(2) of the inotify descriptor, translated; whether it returned events.
    private func readOnce(_ buffer: inout UnsafeMutableRawBufferPointer) -> Bool {
        writeSuppressed = false
        lastAppended = nil
        batch += 1  // Before the records: a rename's first half remembers the read that delivered it.
        switch inotify.read(into: &buffer, { receive($0) }) {
        case .records:
            #if DEBUG
            if tree.count <= 4096 { tree.checkInvariants() }  // Debug builds only; bounded so big trees stay usable.
            #endif
            let deadline = ContinuousClock.now + options.moveGracePeriod
            for cookie in pendingMoves.keys where pendingMoves[cookie]?.batch == batch {
                pendingMoves[cookie]?.deadline = deadline
            }
            return true
        case .bufferGrown: return true  // The next event did not fit (a long name): read again.
        case .empty: return false
        }
    }

    /// How long the reader pauses after a read that only repeated writes already reported.
    static let writePause: Duration = .milliseconds(10)

    /// The poll(2) timeout while paused: until the pause ends, or a rename's deadline if sooner.
    private func pauseTimeout(until end: ContinuousClock.Instant) -> Int32 {
        let remaining = ContinuousClock.now.duration(to: end)
        let milliseconds = Int32(clamping: max(0, remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000) + 1)
        let other = pollTimeout()
        return other < 0 ? milliseconds : min(other, milliseconds)
    }

    /// -1 (wait forever) unless a rename waits for its pair: then the milliseconds until its deadline.
    private func pollTimeout() -> Int32 {
        guard let deadline = pendingMoves.values.map(\.deadline).min() else { return -1 }
        let remaining = ContinuousClock.now.duration(to: deadline)
        if remaining <= .zero { return 0 }
        let milliseconds = remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000
        return Int32(clamping: milliseconds + 1)
    }

    // MARK: - Translating one event

    /// Handles an event now, or defers it while a rename waits for its second half (unless it is that half).
    private func receive(_ event: RawEvent) {
        guard !isFinished else { return }
        if event.mask & InotifyMask.queueOverflow != 0 {
            deferred.removeAll()  // Everything is rescanned after an overflow.
            handleOverflow()
            return
        }
        if !pendingMoves.isEmpty {
            guard event.mask & InotifyMask.movedTo != 0, pendingMoves[event.cookie] != nil else {
                deferred.append(event)
                return
            }
        }
        handle(watch: event.watch, mask: event.mask, cookie: event.cookie, name: event.name)
        replayDeferredIfResolved()
    }

    /// Replays the deferred events once no rename waits any more (they may defer again, in order).
    private func replayDeferredIfResolved() {
        guard pendingMoves.isEmpty, !deferred.isEmpty, !isFinished else { return }
        let events = deferred
        deferred.removeAll()
        for event in events { receive(event) }
    }

    private func handle(watch: Int32, mask: UInt32, cookie: UInt32, name: String) {
        guard let directoryPath = tree.path(of: watch) else { return }  // a watch already removed
        let selfMask = InotifyMask.deleteSelf | InotifyMask.moveSelf | InotifyMask.unmount | InotifyMask.ignored
        if watch == tree.rootDescriptor {
            if mask & selfMask != 0 {
                rootGone()
                return
            }
        } else if mask & InotifyMask.unmount != 0 {
            handleUnmount(of: watch, path: directoryPath)
            return
        } else if mask & InotifyMask.ignored != 0 {
            // The directory was deleted (its parent reports that) or its watch was removed.
            removeWatches(tree.removeSubtree(watch).dropFirst())
            publishCount()
            return
        } else if mask & (InotifyMask.deleteSelf | InotifyMask.moveSelf) != 0 {
            return  // Reported through the parent's IN_DELETE / IN_MOVED_FROM.
        }
        guard !name.isEmpty else { return }
        let path = directoryPath.isEmpty ? name : directoryPath + "/" + name
        let isDirectory = mask & InotifyMask.isDirectory != 0
        let ignored = options.isIgnored(path, isDirectory)

        if mask & InotifyMask.movedFrom != 0 {
            guard !ignored else { return }  // An ignored source: its IN_MOVED_TO counts as a move in.
            pendingMoves[cookie] = PendingMove(
                path: path, isDirectory: isDirectory,
                descriptor: isDirectory ? tree.child(of: watch, named: name) : nil, parent: watch, name: name,
                deadline: ContinuousClock.now + options.moveGracePeriod, batch: batch)
            queue.append(.unpairedMove(cookie: cookie))
            lastAppended = nil
        } else if mask & InotifyMask.movedTo != 0 {
            if let source = pendingMoves.removeValue(forKey: cookie) {
                completeMove(source, cookie: cookie, into: watch, name: name, path: path, ignored: ignored)
            } else if !ignored {
                arrived(in: watch, name: name, path: path, isDirectory: isDirectory)
            }
        } else if ignored {
            return
        } else if mask & InotifyMask.create != 0 {
            arrived(in: watch, name: name, path: path, isDirectory: isDirectory)
        } else if mask & (InotifyMask.modify | InotifyMask.closeWrite | InotifyMask.attributes) != 0 {
            if !isDirectory {
                fileWritten(mask: mask, path: path)
            } else if tree.child(of: watch, named: name) == nil {
                // A directory that could not be watched before (permissions) may be watchable now.
                arrived(in: watch, name: name, path: path, isDirectory: true)
            }
        } else if mask & InotifyMask.delete != 0 {
            if isDirectory, let child = tree.child(of: watch, named: name) {
                // The kernel drops the deleted directory's own watch; anything left below it is stale.
                removeWatches(tree.removeSubtree(child).dropFirst())
                publishCount()
            }
            append(.removed(path))
        }
    }

    /// A file's content or attributes changed: written (maybe still open), closed after writing, or its
    /// attributes changed.
    private func fileWritten(mask: UInt32, path: String) {
        if mask & InotifyMask.closeWrite != 0 {
            append(.fileClosed(path))
        } else if mask & InotifyMask.modify != 0 {
            let now = ContinuousClock.now
            if let last = writeReports[path], now - last < options.writeReportInterval {
                writeSuppressed = true
                return
            }
            append(.fileWritten(path))
            writeReports[path] = now
            if writeReports.count > 256 { pruneWriteReports() }
        } else {
            append(.fileChanged(path))
        }
    }

    /// Something appeared at `path`: created, or moved in from outside the tree (or from an ignored name).
    private func arrived(in parent: Int32, name: String, path: String, isDirectory: Bool) {
        if isDirectory {
            watchAppearedDirectory(in: parent, name: name, path: path)
        } else {
            append(.fileChanged(path))
        }
    }

    /// Watches a directory that appeared, and everything below it, then reports it. Past the watch limit it
    /// is reported as `.rescanNeeded`: the consumer scans it once, later changes inside it are not reported.
    private func watchAppearedDirectory(in parent: Int32, name: String, path: String) {
        switch addWatch(parent: parent, name: name, path: path) {
        case .added(let child):
            walk(from: child, path: path, mode: .fresh)
            publishCount()
            append(.directoryAppeared(path))
        case .limited:
            append(.rescanNeeded(path, reason: "this new folder is not watched: the watch limit is reached"))
        case .known, .failed:
            break
        }
    }

    /// The second half of a rename whose first half was seen: a move inside the tree.
    private func completeMove(
        _ source: PendingMove, cookie: UInt32, into parent: Int32, name: String, path: String, ignored: Bool
    ) {
        let resolution: FolderWatchEvent
        if ignored {
            // Renamed to an ignored name: gone, as far as the consumer is concerned.
            resolution = .removed(source.path)
            if let moved = source.descriptor, tree.child(of: source.parent, named: source.name) == moved {
                removeWatches(tree.removeSubtree(moved))
                publishCount()
            }
        } else {
            resolution = .moved(from: source.path, to: path, isDirectory: source.isDirectory)
        }
        if let index = queue.firstIndex(where: { if case .unpairedMove(cookie) = $0 { true } else { false } }) {
            queue[index] = .event(resolution)
        } else {
            append(resolution)
        }
        guard source.isDirectory, !ignored else { return }
        if let moved = source.descriptor, tree.child(of: source.parent, named: source.name) == moved,
            !tree.isAncestor(moved, of: parent)
        {
            // One re-link moves every watch below it; then the rules are applied at the new place.
            removeWatches(tree.move(moved, to: parent, name: name))
            walk(from: moved, path: path, mode: .afterMove)
            publishCount()
        } else {
            watchAppearedDirectory(in: parent, name: name, path: path)
        }
    }

    /// First halves of renames whose pair did not come in time: moved out of the tree.
    ///
    /// A deadline only counts once the kernel's queue is drained (the pair may be in the next read), or
    /// half a second after it, so a flood of events cannot hold the queue forever.
    private func resolveExpiredMoves(force: Bool = false) {
        guard !pendingMoves.isEmpty else { return }
        let now = ContinuousClock.now
        var expired = pendingMoves.filter { _, move in force || move.deadline <= now }
        guard !expired.isEmpty else { return }
        if !force {
            var readable = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            if poll(&readable, 1, 0) > 0 {
                expired = expired.filter { _, move in move.deadline + .milliseconds(500) <= now }
            }
        }
        for (cookie, move) in expired {
            pendingMoves[cookie] = nil
            if let moved = move.descriptor, tree.child(of: move.parent, named: move.name) == moved {
                removeWatches(tree.removeSubtree(moved))
                publishCount()
            }
            if let index = queue.firstIndex(where: { if case .unpairedMove(cookie) = $0 { true } else { false } }) {
                queue[index] = .event(.removed(move.path))
            }
        }
        if !force { replayDeferredIfResolved() }
    }

    // MARK: - Special events

    private func handleOverflow() {
        resolveExpiredMoves(force: true)
        // Directories may have come and gone unseen: walk the whole tree again, keeping the watches that are
        // still right, adding the missing ones and dropping the ones whose directory is gone.
        var visited: Set<Int32> = [tree.rootDescriptor]
        walk(from: tree.rootDescriptor, path: "", mode: .resync, visited: &visited)
        for stale in tree.nodes.keys where !visited.contains(stale) && tree.contains(stale) {
            removeWatches(tree.removeSubtree(stale))
        }
        publishCount()
        let limit = Self.readSysctl("max_queued_events").map(String.init) ?? "?"
        append(.rescanNeeded("", reason: "the kernel's inotify event queue overflowed (fs.inotify.max_queued_events = \(limit)); events were lost"))
    }

    /// A file system mounted below the root was unmounted: watch the directory underneath instead.
    private func handleUnmount(of watch: Int32, path: String) {
        let node = tree.nodes[watch]
        tree.removeSubtree(watch)
        if let parent = node?.parent, tree.contains(parent), let name = node?.name {
            if case .added(let child) = addWatch(parent: parent, name: name, path: path) {
                walk(from: child, path: path, mode: .fresh)
            }
        }
        publishCount()
        append(.rescanNeeded(path, reason: "the file system mounted here was unmounted"))
    }

    private func rootGone() {
        resolveExpiredMoves(force: true)
        append(.rootGone)
        isFinished = true
        flush()
        control.requestStop()
    }

    private func reportLimit(kernel: Bool) {
        guard !limitReported else { return }
        limitReported = true
        let message: String
        if kernel {
            message = "inotify watch limit reached: \(tree.count) folders are watched; changes in the others are "
                + "only found by periodic rescans. " + Self.kernelLimitAdvice()
        } else {
            message = "the configured maximum of \(options.maximumWatchCount ?? 0) watched folders is reached; changes "
                + "in the others are only found by periodic rescans. Raise maximumWatchCount, and if the kernel's "
                + "limit is lower, fs.inotify.max_user_watches (currently "
                + "\(Self.readSysctl("max_user_watches").map(String.init) ?? "unknown"))."
        }
        append(.watchLimitReached(watchedDirectories: tree.count, message: message))
    }

    /// Names the sysctl, its current value, the command that raises it and how to keep it after a reboot.
    static func kernelLimitAdvice() -> String {
        let current = readSysctl("max_user_watches")
        var suggested = 524_288
        if let current { while suggested <= current * 2 { suggested *= 2 } }
        return "fs.inotify.max_user_watches is \(current.map(String.init) ?? "unknown"); raise it with "
            + "`sudo sysctl fs.inotify.max_user_watches=\(suggested)` and make it permanent with "
            + "`echo fs.inotify.max_user_watches=\(suggested) | sudo tee /etc/sysctl.d/90-photosync-inotify.conf`."
    }

    /// Reads /proc/sys/fs/inotify/`name`.
    static func readSysctl(_ name: String) -> Int? {
        guard let file = fopen("/proc/sys/fs/inotify/" + name, "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 64)
        guard fgets(&line, Int32(line.count), file) != nil else { return nil }
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return Int(text.trimmingSpaces)
    }

    // MARK: - Watches

    enum AddResult {
        /// A new watch, or a known one that was found at another place and moved here: list it.
        case added(Int32)
        /// Already watched at exactly this place.
        case known(Int32)
        /// Not watched: the watch limit is reached.
        case limited
        case failed
    }

    /// Watches one directory (not its subdirectories).
    private func addWatch(parent: Int32, name: String, path: String) -> AddResult {
        if let maximum = options.maximumWatchCount, tree.count >= maximum, tree.child(of: parent, named: name) == nil {
            reportLimit(kernel: false)
            return .limited
        }
        let watch: Int32
        do { watch = try inotify.addWatch(absolutePath(path), mask: InotifyMask.directoryWatch) } catch {
            let code = error.code
            switch code {
            case ENOSPC:
                reportLimit(kernel: true)
                return .limited
            case ENOENT, ENOTDIR, ELOOP:
                break  // Gone or replaced since: its own events follow.
            default:
                append(.rescanNeeded(path, reason: "cannot watch this folder: \(String(cString: strerror(code)))"))
            }
            return .failed
        }
        if tree.contains(watch) {
            if tree.child(of: parent, named: name) == watch { return .known(watch) }
            // The same directory is already watched at another place. Below itself it is a bind mount loop:
            // not followed. Elsewhere, its old place is stale (a rename whose halves were lost): move it.
            if tree.isAncestor(watch, of: parent) { return .failed }
            removeWatches(tree.move(watch, to: parent, name: name))
            return .added(watch)
        }
        removeWatches(tree.insert(watch, parent: parent, name: name))
        return .added(watch)
    }

    /// How ``walk(from:path:mode:visited:)`` treats the directories it finds.
    enum WalkMode {
        /// Below a directory just watched: watch every directory that is not ignored.
        case fresh
        /// Below a directory just moved inside the tree, where the ignore rules may decide differently: drop the
        /// watches of directories ignored at their new place, watch (and report as `.directoryAppeared`) the
        /// directories no longer ignored, keep the rest.
        case afterMove
        /// After an overflow: check every directory again, keeping right watches, adding missing ones, and
        /// collecting every watched one in `visited`.
        case resync
    }

    /// Walks the directories below `start` (not following symbolic links), watching them as `mode` says.
    ///
    /// - Complexity: O(entries of the directories listed).
    private func walk(from start: Int32, path: String, mode: WalkMode) {
        var visited: Set<Int32> = []
        walk(from: start, path: path, mode: mode, visited: &visited)
    }

    private func walk(from start: Int32, path: String, mode: WalkMode, visited: inout Set<Int32>) {
        var stack = [(start, path)]
        while let (directory, directoryPath) = stack.popLast() {
            guard let names = listSubdirectories(directoryPath) else { continue }
            for name in names {
                let childPath = directoryPath.isEmpty ? name : directoryPath + "/" + name
                let known = tree.child(of: directory, named: name)
                if options.isIgnored(childPath, true) {
                    if let known { removeWatches(tree.removeSubtree(known)) }
                    continue
                }
                switch mode {
                case .fresh:
                    if case .added(let child) = addWatch(parent: directory, name: name, path: childPath) {
                        stack.append((child, childPath))
                    }
                case .afterMove:
                    if let known {
                        stack.append((known, childPath))
                    } else if case .added(let child) = addWatch(parent: directory, name: name, path: childPath) {
                        walk(from: child, path: childPath, mode: .fresh)
                        append(.directoryAppeared(childPath))
                    }
                case .resync:
                    switch addWatch(parent: directory, name: name, path: childPath) {
                    case .added(let child), .known(let child):
                        visited.insert(child)
                        stack.append((child, childPath))
                    case .limited, .failed:
                        break
                    }
                }
            }
        }
    }

    /// The names of the subdirectories of `path` (symbolic links are not directories here), or nil when it
    /// cannot be listed (reported as `.rescanNeeded` unless it is simply gone).
    private func listSubdirectories(_ path: String) -> [String]? {
        let absolute = absolutePath(path)
        guard let directory = opendir(absolute) else {
            let code = errno
            if code != ENOENT && code != ENOTDIR {
                append(.rescanNeeded(path, reason: "cannot list this folder: \(String(cString: strerror(code)))"))
            }
            return nil
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let type = Int(entry.pointee.d_type)
            guard type == DT_DIR || type == DT_UNKNOWN else { continue }
            let name = withUnsafeBytes(of: &entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            if type == DT_UNKNOWN {
                var info = stat()
                guard lstat(absolute + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { continue }
            }
            names.append(name)
        }
        return names
    }

    private func removeWatches(_ descriptors: some Sequence<Int32>) {
        for watch in descriptors { inotify.removeWatch(watch) }
    }

    private func absolutePath(_ path: String) -> String {
        path.isEmpty ? root : (root == "/" ? "/" + path : root + "/" + path)
    }

    private func publishCount() {
        control.watchedDirectories.store(tree.count, ordering: .relaxed)
    }

    // MARK: - Sending

    /// Queues an event; a file event equal to the one queued just before it in the same read is dropped.
    private func append(_ event: FolderWatchEvent) {
        switch event {
        case .fileChanged(let path), .fileClosed(let path), .removed(let path):
            if event == lastAppended { return }
            forgetWriteReport(path)
        case .moved(let from, let to, _):
            forgetWriteReport(from)
            forgetWriteReport(to)
        case .fileWritten:
            if event == lastAppended { return }
        default:
            break
        }
        queue.append(.event(event))
        lastAppended = event
        appended &+= 1
    }

    /// After another event about `path`, its next write is reported at once. (Entries older than the interval
    /// are pruned when the table grows past 256, so it holds only the files written lately.)
    private func forgetWriteReport(_ path: String) {
        if !writeReports.isEmpty { writeReports[path] = nil }
    }

    private func pruneWriteReports() {
        let now = ContinuousClock.now
        writeReports = writeReports.filter { now - $0.value < options.writeReportInterval }
    }

    /// Sends the queued events up to the first rename still waiting for its pair, so order is kept.
    private func flush() {
        var sent = 0
        for item in queue {
            guard case .event(let event) = item else { break }
            continuation.yield(event)
            sent += 1
        }
        queue.removeFirst(sent)
    }
}

extension String {
    fileprivate var trimmingSpaces: Substring {
        let utf8 = self.utf8
        let start = utf8.firstIndex { $0 != 0x20 && $0 != 0x0A && $0 != 0x09 } ?? utf8.endIndex
        let end = utf8.lastIndex { $0 != 0x20 && $0 != 0x0A && $0 != 0x09 }.map { utf8.index(after: $0) } ?? start
        return self[start..<max(start, end)]
    }
}
