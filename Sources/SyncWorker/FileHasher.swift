import ContentHash
import Foundation
import MediaProbe
import PhotoLibrary

/// Probes and hashes one file, with the stat-before/stat-after check.
enum FileHasher {
    struct Hashed {
        let path: String
        let stamp: FileStamp
        let hash: String
        let probe: ProbeResult
    }

    enum Outcome {
        case hashed(Hashed)
        /// Not a photo or video (by content).
        case notMedia
        /// Size, mtime or inode moved while it was read: retry once it is quiet.
        case stillBeingWritten
        /// It disappeared while being read.
        case vanished
        case unreadable(String)
    }

    /// - Parameters:
    ///   - stamp: the stamp the walk saw; the file must still have it before and after reading.
    ///   - openFileQuiet: a file some process holds open for writing (``OpenWriterCheck``) is still being
    ///     written unless it was last modified at least this long ago (a writer that never closes it); nil
    ///     reads it whatever its writers.
    static func hash(root: String, path: String, stamp: FileStamp, timeZone: TimeZone, openFileQuiet: Duration? = nil) -> Outcome {
        let absolute = root + "/" + path
        // Only a file modified lately can be one still being written (the kernel is asked only then: an
        // existing collection's files cost nothing more).
        if let openFileQuiet, isRecent(stamp, within: openFileQuiet), OpenWriterCheck.isOpenForWriting(absolute) == true {
            return .stillBeingWritten
        }
        let probe: ProbeResult
        do {
            probe = try MediaProbe.probe(fileAt: absolute, timeZone: timeZone)
        } catch {
            switch error.reason {
            case .notFound: return .vanished
            case .isDirectory, .notRegularFile: return .notMedia
            case .permissionDenied, .other: return .unreadable(error.description)
            }
        }
        guard probe.isMedia else { return .notMedia }
        if let opened = probe.file,
            opened.inode != stamp.inode || opened.size != stamp.size
                || opened.modificationSeconds * 1_000_000_000 + opened.modificationNanoseconds != stamp.mtimeNs
        {
            return .stillBeingWritten
        }
        let digest: (hash: ContentHash, byteCount: Int64)
        do {
            digest = try ContentHash.ofFile(atPath: absolute)
        } catch {
            return error.errno == ENOENT ? .vanished : .unreadable(error.description)
        }
        guard let (after, _) = FileSystem.stamp(absolute) else { return .vanished }
        guard after == stamp, digest.byteCount == stamp.size else { return .stillBeingWritten }
        return .hashed(Hashed(path: path, stamp: stamp, hash: digest.hash.description, probe: probe))
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
