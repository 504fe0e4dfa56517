import CXXHash
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An XXH3-128 content hash, as computed by the system libxxhash.
///
/// Its ``description`` is the canonical form: 32 lowercase hexadecimal digits, exactly what
/// `xxhsum -H2 FILE` prints.
public struct ContentHash: Hashable, Sendable, CustomStringConvertible {
    /// The high 64 bits of the 128-bit hash.
    public let high: UInt64
    /// The low 64 bits of the 128-bit hash.
    public let low: UInt64

    /// Creates a hash from its two halves.
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Parses the canonical form: 32 hexadecimal digits (either case). Returns nil for anything else.
    public init?(hexString: some StringProtocol) {
        let utf8 = Array(hexString.utf8)
        guard utf8.count == 32 else { return nil }
        var halves: [UInt64] = [0, 0]
        for (index, byte) in utf8.enumerated() {
            let nibble: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            halves[index / 16] = halves[index / 16] << 4 | UInt64(nibble)
        }
        self.init(high: halves[0], low: halves[1])
    }

    /// The canonical form: 32 lowercase hexadecimal digits, high half first (big-endian), as `xxhsum -H2`.
    public var description: String {
        let digits = Array("0123456789abcdef".utf8)
        var bytes = [UInt8](repeating: 0, count: 32)
        for (half, value) in [high, low].enumerated() {
            for nibble in 0..<16 {
                bytes[half * 16 + nibble] = digits[Int((value >> (60 - 4 * UInt64(nibble))) & 0xF)]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The hash of a buffer held in memory.
    ///
    /// - Complexity: O(*n*) in the number of bytes.
    public static func of(_ bytes: some Sequence<UInt8>) -> ContentHash {
        var hasher = ContentHasher()
        let array = Array(bytes)
        array.withUnsafeBytes { hasher.update($0) }
        return hasher.finalize()
    }
}

/// A streaming XXH3-128 hasher: feed it bytes in pieces of any size, then take the ``ContentHash``.
///
/// The state is a fixed-size allocation owned by the hasher; hashing never holds more than the piece given.
/// Bytes go through libxxhash's CPU dispatcher where the library has one (AVX2 or AVX-512 on x86-64, with the
/// same result as the generic code), else through its generic function.
/// Not thread-safe: use one hasher per task.
public struct ContentHasher: ~Copyable {
    private let state: OpaquePointer

    /// Creates a hasher with a fresh state.
    public init() {
        guard let state = XXH3_createState() else {
            // XXH3_createState only fails when malloc does.
            fatalError("libxxhash could not allocate its state")
        }
        XXH3_128bits_reset(state)
        self.state = state
    }

    deinit { XXH3_freeState(state) }

    /// Adds bytes to the hash.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        photosync_XXH3_128bits_update(state, base, bytes.count)
    }

    /// The hash of everything added so far. The hasher may go on being fed.
    public func finalize() -> ContentHash {
        let digest = XXH3_128bits_digest(state)
        return ContentHash(high: digest.high64, low: digest.low64)
    }
}

/// Why a file could not be hashed.
public struct ContentHashError: Error, Sendable, CustomStringConvertible {
    /// The file's path.
    public let path: String
    /// The `errno` of the failed system call.
    public let errno: Int32
    /// The system call that failed (`open` or `read`).
    public let operation: String

    public var description: String {
        "cannot \(operation) \(path): \(String(cString: strerror(errno)))"
    }
}

extension ContentHash {
    /// The default read buffer of ``ofFile(atPath:bufferSize:)``: 1 MiB.
    public static let defaultBufferSize = 1 << 20

    /// Hashes a whole file through a fixed buffer, so files of any size are never loaded whole.
    ///
    /// - Parameters:
    ///   - path: the file to read.
    ///   - bufferSize: the size of the one buffer used for reading.
    /// - Returns: the hash and the number of bytes read.
    /// - Throws: ``ContentHashError`` when the file cannot be opened or read.
    /// - Complexity: O(*n*) in the file's size; memory O(`bufferSize`).
    public static func ofFile(
        atPath path: String, bufferSize: Int = defaultBufferSize
    ) throws(ContentHashError) -> (hash: ContentHash, byteCount: Int64) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ContentHashError(path: path, errno: errno, operation: "open") }
        defer { close(fd) }
        #if os(Linux)
        _ = posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL)
        #endif
        var hasher = ContentHasher()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bufferSize, 4096), alignment: 64)
        defer { buffer.deallocate() }
        var total: Int64 = 0
        while true {
            let count = read(fd, buffer.baseAddress, buffer.count)
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw ContentHashError(path: path, errno: errno, operation: "read")
            }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            total += Int64(count)
        }
        return (hasher.finalize(), total)
    }
}
