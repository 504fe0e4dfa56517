#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One line of a `.photosyncignore` file (or a built-in default), parsed.
public struct IgnorePattern: Sendable, Hashable, CustomStringConvertible {
    /// The line as written (trailing spaces removed).
    public let line: String
    /// The directory whose ignore file holds it, relative to the root, without slashes at either end
    /// (empty for the root and for built-in defaults).
    public let directory: String
    /// The 1-based line number in its file (0 for built-in defaults).
    public let lineNumber: Int
    /// `!pattern`: re-includes what an earlier pattern excluded.
    public let isNegated: Bool
    /// `pattern/`: matches directories only.
    public let isDirectoryOnly: Bool
    /// Contains a slash (leading or in the middle): matched against the whole path relative to
    /// ``directory``; otherwise matched against the last path component at any depth.
    public let isAnchored: Bool
    /// Whether it is one of ``IgnoreRules/defaultPatterns``.
    public let isDefault: Bool

    let matcher: Wildmatch

    public var description: String {
        isDefault ? "<default>:\(line)" : "\(directory.isEmpty ? "" : directory + "/")\(IgnoreRules.fileName):\(lineNumber):\(line)"
    }

    func matches(relativePath: [UInt8], basename: [UInt8], isDirectory: Bool) -> Bool {
        if isDirectoryOnly && !isDirectory { return false }
        return matcher.matches(bytes: isAnchored ? relativePath : basename)
    }

    /// Whether a one-component path whose first and last bytes are these may match: false means it cannot.
    func admits(first: UInt8, last: UInt8, isDirectory: Bool) -> Bool {
        !(isDirectoryOnly && !isDirectory) && matcher.admits(first: first, last: last)
    }
}

/// gitignore-style rules deciding which files and directories of the watched tree the sync worker skips.
///
/// ## Syntax (as git's `.gitignore`)
/// - Blank lines match nothing; lines starting with `#` are comments (`\#` for a literal `#`).
/// - Trailing spaces are removed unless escaped with a backslash; a trailing CR is removed too.
/// - `!` negates (re-includes); `\!` is a literal `!`.
/// - A trailing `/` matches directories only.
/// - A slash at the start or in the middle anchors the pattern to the directory of its ignore file;
///   without one, the pattern matches the file or directory name at any depth below that directory.
/// - `*`, `?`, `[abc]`, `[a-z]`, `[!a]`, `**/`, `/**`, `/**/` as ``Wildmatch`` describes. Case-sensitive.
/// - Within one file the last matching line wins. Ignore files in subdirectories hold patterns relative to
///   their directory and take precedence over those of their ancestors; built-in defaults come last.
/// - A path inside an ignored directory is ignored: a file cannot be re-included when a parent directory is
///   excluded (so walkers need not descend into ignored directories).
///
/// The ignore file itself (``fileName``) is always ignored, whatever the patterns say.
public struct IgnoreRules: Sendable {
    /// The name of ignore files: `.photosyncignore`.
    public static let fileName = ".photosyncignore"

    /// Built-in patterns, applied with the lowest precedence (an ignore file can re-include with `!`):
    /// - `.*`: hidden files and directories (`.DS_Store`, `._*` AppleDouble files, `.Trashes`, `.Trash-1000`,
    ///   `.Spotlight-V100`, `.fseventsd`, `.thumbnails`, `.git`, `.stfolder`, `.sync`, `.photosyncignore`…);
    /// - NAS and OS bookkeeping: `@eaDir` (Synology thumbnails), `#recycle` and `#snapshot` (Synology),
    ///   `$RECYCLE.BIN`, `System Volume Information`, `lost+found`, `Thumbs.db`, `ehthumbs.db`,
    ///   `desktop.ini`, `Icon\r` (macOS folder icons);
    /// - files being written or partial downloads: `*.tmp`, `*.temp`, `*.part`, `*.partial`, `*.crdownload`,
    ///   `*.download`, `*.!ut`, `*.swp`, `*~`, `~$*` (in any letter case where relevant).
    public static let defaultPatterns: [String] = [
        ".*",
        "@eaDir",
        "\\#recycle",
        "\\#snapshot",
        "$RECYCLE.BIN",
        "System Volume Information",
        "lost+found",
        "[Tt]humbs.db",
        "[Ee]hthumbs.db",
        "[Dd]esktop.ini",
        "Icon\r",
        "*.[Tt][Mm][Pp]",
        "*.[Tt][Ee][Mm][Pp]",
        "*.[Pp][Aa][Rr][Tt]",
        "*.[Pp][Aa][Rr][Tt][Ii][Aa][Ll]",
        "*.[Cc][Rr][Dd][Oo][Ww][Nn][Ll][Oo][Aa][Dd]",
        "*.[Dd][Oo][Ww][Nn][Ll][Oo][Aa][Dd]",
        "*.!ut",
        "*.swp",
        "*~",
        "~$*",
    ]

    private var defaults: [IgnorePattern]
    /// Patterns by the directory of their ignore file ("" for the root).
    private var byDirectory: [String: [IgnorePattern]] = [:]

    /// Creates rules with only the built-in defaults (or none).
    public init(includeDefaults: Bool = true) {
        defaults = includeDefaults
            ? Self.defaultPatterns.compactMap { Self.parseLine($0, directory: "", lineNumber: 0, isDefault: true) }
            : []
    }

    /// Whether no pattern at all is loaded.
    public var isEmpty: Bool { defaults.isEmpty && byDirectory.isEmpty }

    /// Whether no ignore file has patterns: only the built-in defaults (if any) decide.
    public var isDefaultsOnly: Bool { byDirectory.isEmpty }

    /// The directories (relative, "" for the root) whose ignore files were added.
    public var directoriesWithRules: [String] { byDirectory.keys.sorted() }

    /// Adds the contents of the ignore file of a directory (replacing what that directory had).
    ///
    /// - Parameters:
    ///   - contents: the file's text.
    ///   - directory: the directory holding the file, relative to the root ("" for the root).
    public mutating func setIgnoreFile(contents: String, inDirectory directory: String = "") {
        let directory = Self.normalize(directory)
        var patterns: [IgnorePattern] = []
        // Lines are split on bytes: in Swift "\r\n" is one Character, and git works on bytes anyway.
        var bytes = Array(contents.utf8)[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        for (index, rawLine) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            var line = rawLine
            if line.last == 0x0D { line = line.dropLast() }
            let text = String(decoding: line, as: UTF8.self)
            if let pattern = Self.parseLine(text, directory: directory, lineNumber: index + 1, isDefault: false) {
                patterns.append(pattern)
            }
        }
        byDirectory[directory] = patterns
    }

    /// Reads `root/directory/.photosyncignore` if it exists and adds it. Returns whether there was one.
    ///
    /// For a recursive walk: call this when entering each directory that is not ignored, before asking
    /// about its entries.
    @discardableResult
    public mutating func loadIgnoreFile(root: String, directory: String = "") throws(ProbeError) -> Bool {
        let directory = Self.normalize(directory)
        let path = (directory.isEmpty ? root : root + "/" + directory) + "/" + Self.fileName
        guard let bytes = try Self.readSmallFile(path) else { return false }
        setIgnoreFile(contents: String(decoding: bytes, as: UTF8.self), inDirectory: directory)
        return true
    }

    /// Loads the ignore files of a whole tree: the root's, then those of every directory that is not ignored,
    /// recursively (symbolic links are not followed).
    public static func load(root: String, includeDefaults: Bool = true) throws(ProbeError) -> IgnoreRules {
        var rules = IgnoreRules(includeDefaults: includeDefaults)
        var pending = [""]
        var visited = 0
        while let directory = pending.popLast(), visited < 1_000_000 {
            visited += 1
            try rules.loadIgnoreFile(root: root, directory: directory)
            let path = directory.isEmpty ? root : root + "/" + directory
            for (name, isDirectory) in listDirectory(path) where isDirectory {
                let child = directory.isEmpty ? name : directory + "/" + name
                if !rules.isIgnored(relativePath: child, isDirectory: true) { pending.append(child) }
            }
        }
        return rules
    }

    /// Whether a path is ignored.
    ///
    /// - Parameters:
    ///   - relativePath: the path relative to the watched root, `/`-separated (leading `./` or `/` and a
    ///     trailing `/` are ignored).
    ///   - isDirectory: whether the path is a directory (patterns ending in `/` match only directories).
    public func isIgnored(relativePath: String, isDirectory: Bool) -> Bool {
        let components = Self.normalize(relativePath).split(separator: "/").map(String.init)
        guard !components.isEmpty else { return false }
        if !isDirectory, components.last == Self.fileName { return true }
        // A path inside an ignored directory is ignored.
        for depth in 1..<components.count where decide(components[0..<depth], isDirectory: true) == true {
            return true
        }
        return decide(components[...], isDirectory: isDirectory) ?? false
    }

    /// The pattern that decides a path itself (the last one matching it, negated or not), ignoring its
    /// parent directories; nil if none matches. Useful to explain a decision, like `git check-ignore -v`.
    public func decidingPattern(relativePath: String, isDirectory: Bool) -> IgnorePattern? {
        // A name alone (what a walk asks about most) is its own one component.
        if !relativePath.isEmpty, relativePath != ".", !relativePath.utf8.contains(UInt8(ascii: "/")) {
            return byDirectory.isEmpty
                ? decidingDefault(name: relativePath, isDirectory: isDirectory)
                : decidingPattern([relativePath], isDirectory: isDirectory)
        }
        let components = Self.normalize(relativePath).split(separator: "/").map(String.init)
        guard !components.isEmpty else { return nil }
        return decidingPattern(components[...], isDirectory: isDirectory)
    }

    /// The default pattern deciding a name when no ignore file has patterns. A walk asks this of every entry:
    /// most names are ruled out by each pattern's first and last bytes, with nothing allocated.
    private func decidingDefault(name: String, isDirectory: Bool) -> IgnorePattern? {
        guard let first = name.utf8.first, let last = name.utf8.last else { return nil }
        var bytes: [UInt8]?
        for index in defaults.indices.reversed() where defaults[index].admits(first: first, last: last, isDirectory: isDirectory) {
            if bytes == nil { bytes = Array(name.utf8) }
            if defaults[index].matcher.matchesExhaustively(bytes: bytes!) { return defaults[index] }
        }
        return nil
    }

    /// true: ignored, false: re-included, nil: no pattern matches.
    private func decide(_ components: ArraySlice<String>, isDirectory: Bool) -> Bool? {
        decidingPattern(components, isDirectory: isDirectory).map { !$0.isNegated }
    }

    private func decidingPattern(_ components: ArraySlice<String>, isDirectory: Bool) -> IgnorePattern? {
        let basename = Array(components.last!.utf8)
        // From the deepest ignore file containing the path up to the root's, then the defaults.
        for depth in stride(from: components.count - 1, through: 0, by: -1) where !byDirectory.isEmpty {
            let directory = components.prefix(depth).joined(separator: "/")
            guard let patterns = byDirectory[directory], !patterns.isEmpty else { continue }
            let relative = Array(components.dropFirst(depth).joined(separator: "/").utf8)
            for pattern in patterns.reversed()
            where pattern.matches(relativePath: relative, basename: basename, isDirectory: isDirectory) {
                return pattern
            }
        }
        let whole = components.count == 1 ? basename : Array(components.joined(separator: "/").utf8)
        for pattern in defaults.reversed()
        where pattern.matches(relativePath: whole, basename: basename, isDirectory: isDirectory) {
            return pattern
        }
        return nil
    }

    // MARK: Parsing

    static func parseLine(_ rawLine: some StringProtocol, directory: String, lineNumber: Int, isDefault: Bool)
        -> IgnorePattern?
    {
        var bytes = Array(rawLine.utf8)
        if bytes.first == UInt8(ascii: "#") { return nil }
        // Trailing spaces go, unless escaped by a backslash.
        while bytes.last == UInt8(ascii: " ") {
            var backslashes = 0
            var index = bytes.count - 2
            while index >= 0, bytes[index] == UInt8(ascii: "\\") {
                backslashes += 1
                index -= 1
            }
            if backslashes % 2 == 1 { break }
            bytes.removeLast()
        }
        guard !bytes.isEmpty else { return nil }
        let line = String(decoding: bytes, as: UTF8.self)
        var negated = false
        if bytes.first == UInt8(ascii: "!") {
            negated = true
            bytes.removeFirst()
        }
        var directoryOnly = false
        if bytes.last == UInt8(ascii: "/") {
            directoryOnly = true
            bytes.removeLast()
        }
        guard !bytes.isEmpty else { return nil }
        let anchored = bytes.contains(UInt8(ascii: "/"))
        if bytes.first == UInt8(ascii: "/") { bytes.removeFirst() }
        return IgnorePattern(
            line: line, directory: directory, lineNumber: lineNumber, isNegated: negated,
            isDirectoryOnly: directoryOnly, isAnchored: anchored, isDefault: isDefault,
            matcher: Wildmatch(bytes: bytes))
    }

    /// A relative path without `./`, leading or trailing slashes, or empty components.
    static func normalize(_ path: String) -> String {
        path.split(separator: "/").filter { $0 != "." }.joined(separator: "/")
    }

    // MARK: File system

    /// The contents of a file of at most 1 MiB; nil when it does not exist.
    private static func readSmallFile(_ path: String) throws(ProbeError) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        if fd < 0 {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw ProbeError(path: path, errno: errno, operation: "open")
        }
        defer { _ = close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw ProbeError(path: path, errno: errno, operation: "fstat") }
        guard st.st_mode & S_IFMT == S_IFREG else { return nil }
        let source = FileSource(descriptor: fd, size: min(Int64(st.st_size), 1 << 20))
        let bytes = source.read(at: 0, count: Int(source.size))
        if let error = source.readError { throw ProbeError(path: path, errno: error, operation: "read") }
        return bytes
    }

    /// The entries of a directory with whether each is a directory (not following symbolic links).
    private static func listDirectory(_ path: String) -> [(String, Bool)] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var entries: [(String, Bool)] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name != ".", name != ".." else { continue }
            var st = stat()
            guard lstat(path + "/" + name, &st) == 0 else { continue }
            entries.append((name, st.st_mode & S_IFMT == S_IFDIR))
        }
        return entries
    }
}
