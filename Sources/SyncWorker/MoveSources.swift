import PhotoLibrary

/// A file's identity in a stamp, whatever its path: device, inode, size and modification time. Two stamps
/// with the same identity are the same file, untouched (a rename changes none of the four).
struct FileIdentity: Hashable {
    let device: UInt64, inode: UInt64, size: Int64, mtimeNs: Int64

    init(_ stamp: FileStamp) { (device, inode, size, mtimeNs) = (stamp.device, stamp.inode, stamp.size, stamp.mtimeNs) }
}

/// The file system object of a stamp: device and inode. The same inode with another size or modification time
/// is the same file touched or written since (or, rarely, a freed inode number reused by a new file: so it is
/// only trusted together with the content hash).
struct FileInode: Hashable {
    let device: UInt64, inode: UInt64

    init(_ stamp: FileStamp) { (device, inode) = (stamp.device, stamp.inode) }
}

/// The recorded files of one pass that left their path, offered to the files found at other paths as the
/// origins of moves; each can be claimed once.
///
/// A source is **gone** (its path is missing from disk, or holds something that is not media any more, or it
/// was held from an earlier watch round), **replaced** (its path holds another file now: another inode), or
/// **outside** the pass's scope (see ``Origin/outside``).
///
/// Claims, strongest first:
/// 1. ``claim(identityOf:at:)``: the same identity (device, inode, size, mtime) — the file itself, renamed.
///    Any source.
/// 2. ``claim(sameFileAs:hash:)``: the same inode and the same content hash — the file itself, renamed and
///    touched. Any source.
/// 3. ``claim(hash:name:inode:)``: the same content hash — a copy, or the file touched after the move: only
///    a gone source (a replaced one keeps its path: its new file there is an atomic save, an update), and not
///    one whose inode is at another path of the pass (``reserve(inodesOf:)``), which only that file claims.
///    Among several, one of the same file name, else the first by path.
struct MoveSources {
    enum Origin {
        case gone
        case replaced
        /// Recorded outside the pass's scope, its path no longer holding its inode (a watch round found the file
        /// at a new path before the event of its move came): claimed by identity only (1 or 2), and left alone
        /// when nobody claims it.
        case outside
    }

    private struct Source {
        var file: MirroredFile
        var origin: Origin
        var claimed = false
        /// Another file of the pass has its inode: only that file's claim (1 or 2) takes it.
        var reserved = false
    }

    private var sources: [Source] = []
    private var byIdentity: [FileIdentity: [Int]] = [:]
    private var byInode: [FileInode: [Int]] = [:]
    private var byHash: [String: [Int]] = [:]
    private var byPath: [String: Int] = [:]

    init() {}

    /// - Parameters:
    ///   - gone: recorded files whose path is missing from disk (in path order, for the tie-break).
    ///   - replaced: recorded files whose path holds another inode now.
    init(gone: [MirroredFile], replaced: [MirroredFile]) {
        for file in gone { add(file, origin: .gone) }
        for file in replaced { add(file, origin: .replaced) }
    }

    var isEmpty: Bool { sources.isEmpty }

    /// Adds a source (a path found to hold no media any more while the pass runs is a gone one).
    mutating func add(_ file: MirroredFile, origin: Origin) {
        if let known = byPath[file.relativePath] {
            // Offered twice (an earlier round's held file inside this round's scope): one source.
            if origin == .gone { sources[known].origin = .gone }
            return
        }
        let index = sources.count
        sources.append(Source(file: file, origin: origin))
        byIdentity[FileIdentity(file.stamp), default: []].append(index)
        byInode[FileInode(file.stamp), default: []].append(index)
        byHash[file.contentHash, default: []].append(index)
        byPath[file.relativePath] = index
    }

    /// Reserves the sources whose inode is found at another path of the pass, for that file's claim.
    mutating func reserve(inodesOf candidates: some Sequence<(path: String, stamp: FileStamp)>) {
        for candidate in candidates {
            for index in byInode[FileInode(candidate.stamp)] ?? [] where sources[index].file.relativePath != candidate.path {
                sources[index].reserved = true
            }
        }
    }

    /// Reserves the sources with these inodes (files still pending elsewhere, for a later round's claim).
    mutating func reserve(inodes: Set<FileInode>) {
        guard !inodes.isEmpty else { return }
        for (inode, indexes) in byInode where inodes.contains(inode) {
            for index in indexes { sources[index].reserved = true }
        }
    }

    /// Claims the source that is this very file (same identity), renamed to `path`.
    mutating func claim(identityOf stamp: FileStamp, at path: String) -> MirroredFile? {
        guard let candidates = byIdentity[FileIdentity(stamp)] else { return nil }
        return take(candidates.first { !sources[$0].claimed && sources[$0].file.relativePath != path })
    }

    /// Whether a source has this file's inode, claimed or not.
    func contains(inodeOf stamp: FileStamp) -> Bool { byInode[FileInode(stamp)] != nil }

    /// Whether an unclaimed source has this file's inode (its claim by ``claim(sameFileAs:hash:)`` should come
    /// before any claim by hash alone).
    func hasUnclaimed(inodeOf stamp: FileStamp) -> Bool {
        byInode[FileInode(stamp)]?.contains { !sources[$0].claimed } ?? false
    }

    /// Claims the source with this file's inode and content: the file itself, renamed and touched.
    mutating func claim(sameFileAs stamp: FileStamp, hash: String) -> MirroredFile? {
        guard let candidates = byInode[FileInode(stamp)] else { return nil }
        return take(candidates.first { !sources[$0].claimed && sources[$0].file.contentHash == hash })
    }

    /// Claims a gone source with this content for a file at a new path named `name`: one of the same name,
    /// else the first by path. Sources reserved for another inode are left alone.
    mutating func claim(hash: String, name: String, inode: FileInode) -> MirroredFile? {
        guard let candidates = byHash[hash] else { return nil }
        let open = candidates.filter { index in
            let source = sources[index]
            return !source.claimed && source.origin == .gone && (!source.reserved || FileInode(source.file.stamp) == inode)
        }
        let chosen = open.first { FileSystem.name(of: sources[$0].file.relativePath) == name }
            ?? open.min { sources[$0].file.relativePath < sources[$1].file.relativePath }
        return take(chosen)
    }

    /// Whether the source recorded at `path` has been claimed (its file moved elsewhere).
    func isClaimed(path: String) -> Bool {
        byPath[path].map { sources[$0].claimed } ?? false
    }

    /// The gone sources nobody claimed, by path: deleted (or held, by a watch round).
    var unclaimedGone: [MirroredFile] {
        sources.filter { !$0.claimed && $0.origin == .gone }.map(\.file).sorted { $0.relativePath < $1.relativePath }
    }

    private mutating func take(_ index: Int?) -> MirroredFile? {
        guard let index else { return nil }
        sources[index].claimed = true
        return sources[index].file
    }
}
