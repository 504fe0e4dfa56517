#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A bump allocator, one per thread, for the short-lived objects C parsers make while they read one block
/// (libexif's data, contents and entries; Expat's parser and buffers): what they allocate comes from one
/// reused chunk, their frees cost nothing, and everything is reclaimed at once when the outermost
/// ``scoped(_:)`` on that thread ends.
///
/// Why: libexif allocates every entry and every entry's bytes (with `calloc`) and frees them one by one,
/// Expat builds and frees its parser per packet; during a scan that was a fifth of the file readers'
/// instructions, spent in `malloc` and `free`.
///
/// The C libraries take function pointers without a context, so the arena is found through a thread-local
/// key: the allocation functions (``allocateInCurrent(_:zeroed:)``, ``reallocateInCurrent(_:_:)``) must be
/// called on the thread that opened the scope, within it — true of a parser made, used and freed within one
/// synchronous function, as ``ExifReader`` and ``XMPParser`` do.
/// Every pointer handed out is 16-byte aligned and preceded by its size (so that `realloc` can copy).
///
/// Complexity: an allocation is O(1) (plus the zeroing a `calloc` owes); a scope's end frees the chunks
/// beyond the first.
final class ParseArena {
    /// The first chunk's size: an EXIF block with maker notes, or an XMP packet, fits.
    static let chunkSize = 256 * 1024
    private static let header = 16

    private let first: UnsafeMutableRawPointer
    /// Chunks beyond the first (a large block), freed when the scope ends.
    private var extra: [UnsafeMutableRawPointer] = []
    private var cursor: UnsafeMutableRawPointer
    private var end: UnsafeMutableRawPointer
    private var depth = 0

    private init() {
        first = UnsafeMutableRawPointer.allocate(byteCount: Self.chunkSize, alignment: 16)
        cursor = first
        end = first + Self.chunkSize
    }

    deinit {
        extra.forEach { $0.deallocate() }
        first.deallocate()
    }

    /// Runs `body` with this thread's arena open; when the outermost scope ends, everything allocated in it
    /// is reclaimed. Nothing allocated by a parser may be used after its scope.
    static func scoped<T>(_ body: () throws -> T) rethrows -> T {
        let arena = current
        arena.depth += 1
        defer {
            arena.depth -= 1
            if arena.depth == 0 { arena.reset() }
        }
        return try body()
    }

    /// How many chunks the arena holds beyond its first (0 once its scope has ended).
    var extraChunkCount: Int { extra.count }

    /// How many blocks this arena has handed out since its thread first used it.
    private(set) var allocationCount = 0

    /// `size` bytes, 16-byte aligned, zeroed when asked.
    func allocate(_ size: Int, zeroed: Bool) -> UnsafeMutableRawPointer {
        precondition(depth > 0, "a parse arena allocation outside ParseArena.scoped")
        let total = (Self.header + size + 15) & ~15
        allocationCount &+= 1
        if end - cursor < total { addChunk(holding: total) }
        cursor.storeBytes(of: size, as: Int.self)
        let pointer = cursor + Self.header
        cursor += total
        if zeroed { memset(pointer, 0, size) }
        return pointer
    }

    /// `pointer`'s block (from this arena, or nil) resized to `size`: extended in place when it is the last
    /// block handed out and its chunk has room, otherwise copied.
    func reallocate(_ pointer: UnsafeMutableRawPointer?, _ size: Int) -> UnsafeMutableRawPointer {
        guard let pointer else { return allocate(size, zeroed: false) }
        let old = (pointer - Self.header).load(as: Int.self)
        let oldEnd = pointer + ((old + 15) & ~15)
        let newEnd = pointer + ((size + 15) & ~15)
        if oldEnd == cursor, newEnd <= end {
            (pointer - Self.header).storeBytes(of: size, as: Int.self)
            cursor = newEnd
            return pointer
        }
        let moved = allocate(size, zeroed: false)
        moved.copyMemory(from: pointer, byteCount: min(old, size))
        return moved
    }

    private func addChunk(holding total: Int) {
        let chunk = UnsafeMutableRawPointer.allocate(byteCount: max(Self.chunkSize, total), alignment: 16)
        extra.append(chunk)
        cursor = chunk
        end = chunk + max(Self.chunkSize, total)
    }

    private func reset() {
        extra.forEach { $0.deallocate() }
        extra.removeAll(keepingCapacity: true)
        cursor = first
        end = first + Self.chunkSize
    }

    // MARK: The thread's arena

    /// The key of each thread's arena, released when its thread exits.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { pointer in
            Unmanaged<ParseArena>.fromOpaque(pointer!).release()
        }
        precondition(status == 0, "pthread_key_create: \(status)")
        return key
    }()

    /// This thread's arena, made at its first use.
    static var current: ParseArena {
        if let pointer = pthread_getspecific(key) { return Unmanaged<ParseArena>.fromOpaque(pointer).takeUnretainedValue() }
        let arena = ParseArena()
        pthread_setspecific(key, Unmanaged.passRetained(arena).toOpaque())
        return arena
    }

    /// ``allocate(_:zeroed:)`` on this thread's arena, for the C libraries' allocation functions.
    static func allocateInCurrent(_ size: Int, zeroed: Bool) -> UnsafeMutableRawPointer {
        withCurrent { $0.allocate(size, zeroed: zeroed) }
    }

    /// ``reallocate(_:_:)`` on this thread's arena, for the C libraries' allocation functions.
    static func reallocateInCurrent(_ block: UnsafeMutableRawPointer?, _ size: Int) -> UnsafeMutableRawPointer {
        withCurrent { $0.reallocate(block, size) }
    }

    /// Runs `body` on this thread's arena, borrowed rather than retained for the call (the thread holds it).
    private static func withCurrent<T>(_ body: (ParseArena) -> T) -> T {
        guard let pointer = pthread_getspecific(key) else { return body(current) }
        return Unmanaged<ParseArena>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
    }
}
