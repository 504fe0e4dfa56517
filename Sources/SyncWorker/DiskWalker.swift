import Foundation
import MediaProbe
import PhotoLibrary
#if canImport(Glibc)
import Glibc
#endif

/// What the disk shows under one path of a root: regular files not ignored, with their stat, and
/// directories. Symbolic links are never followed (so there are no loops); other non-regular entries are
/// reported as skipped.
struct DiskSnapshot {
    /// In the order of the walk, each path once (an array: a third of the memory of a dictionary).
    var files: [(path: String, stamp: FileStamp)] = []
    /// Directories seen (with their own stamp: device and inode identify a renamed directory).
    var directories: [String: FileStamp] = [:]
    /// Directories that could not be listed: what is mirrored under them is kept as it is.
    var unreadableDirectories: [String] = []
    var skipped: [SkippedFile] = []
    /// Sync cookie files found at the top of the root.
    var cookies: [String] = []
    /// Photosync libraries found in the tree, left out with everything below them (see ``LibraryExclusion``).
    var libraries: [String] = []

    /// Whether `path` lies under a directory that could not be listed.
    func isUnderUnreadableDirectory(_ path: String) -> Bool {
        unreadableDirectories.contains { $0.isEmpty || path.hasPrefix($0 + "/") }
    }
}

enum FileSystem {
    /// The stamp of a path without following a final symbolic link; nil when it does not exist.
    static func stamp(_ path: String) -> (FileStamp, mode: mode_t)? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        return (FileStamp(st), st.st_mode & S_IFMT)
    }

    static func join(_ directory: String, _ name: String) -> String {
        directory.isEmpty ? name : directory + "/" + name
    }

    /// The directory part of a relative path ("" for a name alone). Split at the last "/" byte, as the
    /// kernel does — not by characters, which costs a grapheme break check per character (and would not see a
    /// "/" that a combining mark follows).
    static func parent(of path: String) -> String {
        guard let slash = path.lastUTF8Index(of: UInt8(ascii: "/")) else { return "" }
        return String(path[..<slash])
    }

    /// The last component of a relative path, split at the last "/" byte (see ``parent(of:)``).
    static func name(of path: String) -> String { path.fileName }

    /// `path` itself or anything below it.
    static func isWithin(_ candidate: String, _ path: String) -> Bool {
        path.isEmpty || candidate == path || candidate.hasPrefix(path + "/")
    }
}

extension FileStamp {
    init(_ st: stat) {
        self.init(
            device: UInt64(st.st_dev), inode: UInt64(st.st_ino), size: Int64(st.st_size),
            mtimeNs: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec),
            ctimeNs: Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec))
    }
}

/// Walks a tree with `opendir`/`fstatat`, applying ignore rules as it descends (each directory's
/// `.photosyncignore` is loaded on entry) and leaving photosync libraries out (``LibraryExclusion``: one
/// `stat` per directory).
struct DiskWalker {
    static let cookiePrefix = ".photosync-sync-"
    /// Whether the built-in patterns look at names only (none holds a slash): then, while no ignore file is
    /// loaded, a decision depends on an entry's name and type alone.
    static let defaultsMatchNamesOnly = IgnoreRules.defaultPatterns.allSatisfy { !$0.contains("/") }

    let root: String
    var ignore: IgnoreRules
    let libraries: LibraryExclusion

    init(root: String, ignore: IgnoreRules, libraries: LibraryExclusion) {
        self.root = root
        self.ignore = ignore
        self.libraries = libraries
    }

    /// Whether an entry of a directory that is itself not ignored is ignored. The walk never descends
    /// into an ignored directory, so only the entry's own decision is needed (git's rule: nothing below an
    /// ignored directory can be re-included).
    func isIgnored(_ relative: String, name: String, isDirectory: Bool) -> Bool {
        if name == IgnoreRules.fileName { return true }
        // With no ignore file loaded, only the defaults decide, and they look at the name alone.
        let path = Self.defaultsMatchNamesOnly && ignore.isDefaultsOnly ? name : relative
        return ignore.decidingPattern(relativePath: path, isDirectory: isDirectory).map { !$0.isNegated } ?? false
    }

    /// Walks `start` (relative; "" for the whole root), which must be a directory.
    mutating func walk(_ start: String, into snapshot: inout DiskSnapshot) {
        var pending = [start]
        while let directory = pending.popLast() {
            if libraries.isLibrary(directory) {
                snapshot.libraries.append(directory)
                continue
            }
            let absolute = directory.isEmpty ? root : root + "/" + directory
            _ = try? ignore.loadIgnoreFile(root: root, directory: directory)
            guard let handle = opendir(absolute) else {
                snapshot.unreadableDirectories.append(directory)
                snapshot.skipped.append(SkippedFile(
                    path: directory.isEmpty ? "." : directory, reason: "directory unreadable: \(String(cString: strerror(errno)))"))
                continue
            }
            defer { closedir(handle) }
            let descriptor = dirfd(handle)
            while let entry = readdir(handle) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name == "." || name == ".." { continue }
                let relative = FileSystem.join(directory, name)
                if directory.isEmpty && name.hasPrefix(Self.cookiePrefix) {
                    snapshot.cookies.append(name)
                    continue
                }
                var st = stat()
                guard fstatat(descriptor, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { continue }  // Vanished.
                let type = st.st_mode & S_IFMT
                let isDirectory = type == S_IFDIR
                if isIgnored(relative, name: name, isDirectory: isDirectory) { continue }
                switch type {
                case S_IFDIR:
                    snapshot.directories[relative] = FileStamp(st)
                    pending.append(relative)
                case S_IFREG:
                    snapshot.files.append((relative, FileStamp(st)))
                case S_IFLNK:
                    snapshot.skipped.append(SkippedFile(path: relative, reason: "symbolic link (not followed)"))
                default:
                    snapshot.skipped.append(SkippedFile(path: relative, reason: "not a regular file"))
                }
            }
        }
    }
}
