import Foundation

/// The files directory of a PostgreSQL library (`--library-files`): one library's originals and renditions.
///
/// Two libraries sharing one directory would lose files: each removes an original once none of *its*
/// assets refers to the content. So the directory carries the identity of its library (`library-identity`,
/// written when the library first uses it) and any other library is refused; so is a SQLite library's own
/// directory.
enum LibraryFilesDirectory {
    static let markerName = "library-identity"

    /// The identity of the library whose files `directory` holds, if one used it.
    static func owner(of directory: URL) -> String? {
        guard let data = FileManager.default.contents(atPath: directory.appending(path: markerName).path) else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    /// Checks, before a library is opened on it, that `directory` is not a SQLite library's directory, and —
    /// when the library is to be created — holds no other library's files.
    ///
    /// - Throws: ``CommandFailure`` naming the directory.
    static func check(_ directory: URL, creating: Bool, location: LibraryLocation) throws {
        if FileManager.default.fileExists(atPath: directory.appending(path: "Photos.sqlite").path) {
            throw CommandFailure(
                "--library-files \(directory.path) is a SQLite library's directory: give the PostgreSQL library \(location.shown) a directory of its own")
        }
        if creating, let owner = owner(of: directory) {
            throw CommandFailure(
                "--library-files \(directory.path) holds the files of another library (\(owner)); nothing was created in \(location.shown): give each library a directory of its own")
        }
    }

    /// Records `identity` as the owner of `directory`, or checks that it is the one recorded.
    ///
    /// - Throws: ``CommandFailure`` when another library owns the directory, or the record can't be written.
    static func claim(_ directory: URL, identity: UUID, location: LibraryLocation) throws {
        if let owner = owner(of: directory) {
            guard owner == identity.uuidString else {
                throw CommandFailure(
                    "--library-files \(directory.path) holds the files of another library (\(owner)), not of \(location.shown) (\(identity.uuidString)): give each library a directory of its own")
            }
            return
        }
        do {
            try Data((identity.uuidString + "\n").utf8).write(to: directory.appending(path: markerName), options: .atomic)
        } catch {
            throw CommandFailure("cannot write \(directory.appending(path: markerName).path): \(error.localizedDescription)")
        }
    }
}
