import PhotoLibrary

/// The mirror state of one root held in memory while a mirror runs: the library's records plus, per
/// directory, how many media files it holds directly and below it (what decides albums and folders).
struct MirrorModel {
    var files: [String: MirroredFile] = [:]
    var directories: [String: MirroredDirectory] = [:]
    /// Media files directly in a directory.
    private(set) var directCount: [String: Int] = [:]
    /// Media files in a directory's subdirectories.
    private(set) var belowCount: [String: Int] = [:]

    init() {}

    init(_ state: MirrorState) {
        for file in state.files { set(file) }
        for directory in state.directories { directories[directory.relativePath] = directory }
    }

    mutating func set(_ file: MirroredFile) {
        if files.updateValue(file, forKey: file.relativePath) == nil { count(file.relativePath, +1) }
    }

    mutating func remove(_ path: String) {
        if files.removeValue(forKey: path) != nil { count(path, -1) }
    }

    private mutating func count(_ path: String, _ delta: Int) {
        var directory = FileSystem.parent(of: path)
        directCount[directory, default: 0] += delta
        if directCount[directory] == 0 { directCount[directory] = nil }
        while !directory.isEmpty {
            directory = FileSystem.parent(of: directory)
            belowCount[directory, default: 0] += delta
            if belowCount[directory] == 0 { belowCount[directory] = nil }
        }
    }

    /// The recorded files at `path` or below it.
    func files(within path: String) -> [String: MirroredFile] {
        if path.isEmpty { return files }
        var result: [String: MirroredFile] = [:]
        if let file = files[path] { result[path] = file }
        let prefix = path + "/"
        for (key, file) in files where key.hasPrefix(prefix) { result[key] = file }
        return result
    }

    /// The album and folder a directory should have.
    ///
    /// The rule: a directory holding media directly has an album titled with its name; a directory other
    /// than the root with media in its subdirectories has a folder of the same name, holding its own album
    /// (first) and its subdirectories' albums and folders. The root's album and its subdirectories'
    /// collections sit at the top level.
    func needs(_ directory: String) -> (album: Bool, folder: Bool) {
        ((directCount[directory] ?? 0) > 0, !directory.isEmpty && (belowCount[directory] ?? 0) > 0)
    }
}
