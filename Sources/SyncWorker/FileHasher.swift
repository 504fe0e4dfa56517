import Foundation
import MediaProbe
import PhotoLibrary

/// Probes and hashes one file, with the stat-before/stat-after check.
enum FileHasher {
    struct Hashed: Sendable {
        let path: String
        let stamp: FileStamp
        let hash: String
        let probe: ProbeResult
        /// The file's absolute path.
        let absolutePath: String
    }

    enum Outcome: Sendable {
        case hashed(Hashed)
        /// Not a photo or video (by content).
        case notMedia
        /// Size, mtime or inode moved while it was read: retry once it is quiet.
        case stillBeingWritten
        /// It disappeared while being read.
        case vanished
        case unreadable(String)
    }

    /// Probes the file and, when it is media, hashes it through the same descriptor: its first megabyte is
    /// read once, for both.
    ///
    /// - Parameters:
    ///   - stamp: the stamp the walk saw; the file must still have it before and after reading.
    ///   - openFileQuiet: a file some process holds open for writing (``OpenWriterCheck``) is still being
    ///     written unless it was last modified at least this long ago (a writer that never closes it); nil
    ///     reads it whatever its writers.
    ///   - buffer: the read buffer, reused from file to file by the thread calling.
    static func hash(
        root: String, path: String, stamp: FileStamp, timeZone: TimeZone, openFileQuiet: Duration? = nil, buffer: ProbeBuffer
    ) -> Outcome {
        let absolute = root + "/" + path
        // Only a file modified lately can be one still being written (the kernel is asked only then: an
        // existing collection's files cost nothing more).
        if let openFileQuiet, isRecent(stamp, within: openFileQuiet), OpenWriterCheck.isOpenForWriting(absolute) == true {
            return .stillBeingWritten
        }
        let probe: ProbeResult
        do {
            probe = try MediaProbe.probe(fileAt: absolute, timeZone: timeZone, options: .contentHashOfMedia, buffer: buffer)
        } catch {
            switch error.reason {
            case .notFound: return .vanished
            case .isDirectory, .notRegularFile: return .notMedia
            case .permissionDenied, .other: return .unreadable(error.description)
            }
        }
        guard probe.isMedia, let hash = probe.contentHash else { return .notMedia }
        if let opened = probe.file,
            opened.inode != stamp.inode || opened.size != stamp.size
                || opened.modificationSeconds * 1_000_000_000 + opened.modificationNanoseconds != stamp.mtimeNs
        {
            return .stillBeingWritten
        }
        if probe.changedWhileReading { return .stillBeingWritten }
        guard let (after, _) = FileSystem.stamp(absolute) else { return .vanished }
        guard after == stamp else { return .stillBeingWritten }
        return .hashed(Hashed(path: path, stamp: stamp, hash: hash.description, probe: probe, absolutePath: absolute))
    }

    /// Whether the file was modified less than `interval` ago (by the wall clock, as mtime is).
    private static func isRecent(_ stamp: FileStamp, within interval: Duration) -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let ageNs = (Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)) - stamp.mtimeNs
        let (seconds, attoseconds) = interval.components
        return ageNs < seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
