#if canImport(Glibc)
import Glibc
#endif

/// The inotify mask bits the watcher uses, as `UInt32`.
enum InotifyMask {
    static let create = UInt32(IN_CREATE)
    static let closeWrite = UInt32(IN_CLOSE_WRITE)
    static let modify = UInt32(IN_MODIFY)
    static let attributes = UInt32(IN_ATTRIB)
    static let movedFrom = UInt32(IN_MOVED_FROM)
    static let movedTo = UInt32(IN_MOVED_TO)
    static let delete = UInt32(IN_DELETE)
    static let deleteSelf = UInt32(IN_DELETE_SELF)
    static let moveSelf = UInt32(IN_MOVE_SELF)
    static let unmount = UInt32(IN_UNMOUNT)
    static let queueOverflow = UInt32(IN_Q_OVERFLOW)
    static let ignored = UInt32(IN_IGNORED)
    static let isDirectory = UInt32(IN_ISDIR)

    /// The mask of every directory watch: the changes of its entries and of itself, only if it is a
    /// directory, never through a symbolic link, and nothing about entries already unlinked.
    static let directoryWatch: UInt32 =
        create | modify | closeWrite | attributes | movedFrom | movedTo | delete | deleteSelf | moveSelf
        | UInt32(IN_ONLYDIR) | UInt32(IN_DONT_FOLLOW) | UInt32(IN_EXCL_UNLINK)
}
