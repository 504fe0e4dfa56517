import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension PhotoLibrary {
    /// Whether the directory at `path` is a photosync library, told by its database rather than its name:
    /// it holds a regular file `Photos.sqlite` (``databaseFileName``) that is an SQLite database marked with
    /// photosync's application id (`PRAGMA application_id`, "PSYN").
    ///
    /// The mark is read from the database header, or — for a library whose first commits are still only in
    /// its write-ahead log (created by a process that still has it open, before any checkpoint) — from the
    /// log's copies of the header page. The database is never opened as a database: no lock is taken and no
    /// file is created beside it, so a library another process is writing can be probed at any time. A
    /// library still being created (no commit yet) is not one.
    ///
    /// A client walking a folder tree can leave such directories out (a library kept inside a folder whose
    /// files it imports would otherwise import its own originals).
    ///
    /// - Complexity: one `stat` for a directory without `Photos.sqlite`; else a 100-byte read, plus, when
    ///   the header does not carry the mark, one 24-byte read per frame of the log (its size ÷ the page size).
    public static func isLibraryDirectory(atPath path: String) -> Bool {
        let database = path + "/" + databaseFileName
        var status = stat()
        guard stat(database, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return false }
        guard let header = SQLiteFileHeader(path: database) else { return false }
        if header.applicationID == LibrarySchema.applicationID { return true }
        return header.isWriteAheadLogged && SQLiteFileHeader.writeAheadLogMarks(path: database + "-wal", applicationID: LibrarySchema.applicationID)
    }
}

/// The fields of an SQLite database file's 100-byte header that tell what the database is
/// (https://www.sqlite.org/fileformat.html, section 1.3).
struct SQLiteFileHeader {
    /// `PRAGMA application_id` (offset 68, big-endian).
    let applicationID: Int32
    /// Whether the database is in WAL mode (read and write versions 2, offsets 18 and 19).
    let isWriteAheadLogged: Bool

    static let magic = Array("SQLite format 3\0".utf8)

    /// Reads the header of the file at `path`; nil when it is not an SQLite database (or can't be read).
    init?(path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 100)
        guard bytes.withUnsafeMutableBytes({ pread(descriptor, $0.baseAddress, 100, 0) }) == 100,
            bytes[0..<16].elementsEqual(Self.magic)
        else { return nil }
        applicationID = Int32(bitPattern: Self.bigEndian(bytes, at: 68))
        isWriteAheadLogged = bytes[18] == 2 && bytes[19] == 2
    }

    /// Whether a write-ahead log holds a copy of the database's first page marked with `applicationID`, in a
    /// frame of its current generation (its salts are the log header's: frames of an earlier generation are
    /// leftovers that SQLite ignores).
    static func writeAheadLogMarks(path: String, applicationID: Int32) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        // The log header: magic, format, page size, checkpoint sequence, two salts, two checksums.
        var header = [UInt8](repeating: 0, count: 32)
        guard header.withUnsafeMutableBytes({ pread(descriptor, $0.baseAddress, 32, 0) }) == 32,
            bigEndian(header, at: 0) & 0xFFFF_FFFE == 0x377F_0682
        else { return false }
        let pageSize = Int(bigEndian(header, at: 8))
        guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else { return false }
        let salts = header[16..<24]
        var frame = [UInt8](repeating: 0, count: 24)
        var mark = [UInt8](repeating: 0, count: 4)
        var offset = 32
        while frame.withUnsafeMutableBytes({ pread(descriptor, $0.baseAddress, 24, off_t(offset)) }) == 24 {
            guard frame[8..<16].elementsEqual(salts) else { return false }
            if bigEndian(frame, at: 0) == 1,
                mark.withUnsafeMutableBytes({ pread(descriptor, $0.baseAddress, 4, off_t(offset + 24 + 68)) }) == 4,
                Int32(bitPattern: bigEndian(mark, at: 0)) == applicationID
            {
                return true
            }
            offset += 24 + pageSize
        }
        return false
    }

    private static func bigEndian(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
