import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Time-ordered (version 7, RFC 9562) UUID strings, as `UUID().uuidString` writes them: the Unix time in
/// milliseconds, then a fraction of the millisecond (1/4096: RFC 9562's "increased clock precision"), then
/// 62 random bits drawn 4 KiB at a time (one system call per 256 identifiers, where Foundation's `UUID()`
/// opens and reads `/dev/urandom` for each).
///
/// Why time-ordered: a local identifier is a key of a unique index of every object table. Random keys put
/// each new object on a random page of that index, so a commit of 500 new assets rewrote most of the index's
/// pages (SQLite writes a page changed by a commit to the log whole); identifiers made one after the other
/// sort one after the other, so they fill the index's last pages, as the row ids do. The identifier says
/// when its object was created, to the millisecond, which the object's own dates say anyway.
enum TimeOrderedUUIDs {
    private struct Pool {
        var bytes = [UInt8](repeating: 0, count: 4096)
        var next = 4096
    }

    private static let pool = Mutex(Pool())

    /// A new identifier: 32 uppercase hexadecimal digits in groups of 8-4-4-4-12, version 7, RFC 9562
    /// variant. Identifiers made later sort after, as strings, those made at least 1/4096 ms before (the
    /// wall clock's order: a clock set back makes them sort back too). Distinct by their 62 random bits.
    static func next() -> String {
        var uuid = (UInt64(0), UInt64(0))
        pool.withLock { pool in
            if pool.next == pool.bytes.count {
                pool.bytes.withUnsafeMutableBytes { arc4random_buf($0.baseAddress!, $0.count) }
                pool.next = 0
            }
            withUnsafeMutableBytes(of: &uuid) { target in
                pool.bytes.withUnsafeBytes { source in
                    target.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[pool.next..<(pool.next + 16)]))
                }
            }
            pool.next += 16
        }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let milliseconds = UInt64(now.tv_sec) * 1000 + UInt64(now.tv_nsec) / 1_000_000
        let fraction = UInt64(now.tv_nsec) % 1_000_000 * 4096 / 1_000_000
        return withUnsafeMutableBytes(of: &uuid) { bytes in
            for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - index))) }
            bytes[6] = 0x70 | UInt8(fraction >> 8)
            bytes[7] = UInt8(truncatingIfNeeded: fraction)
            bytes[8] = bytes[8] & 0x3F | 0x80
            return hexadecimal(bytes)
        }
    }

    /// The bytes as uppercase hexadecimal digits in groups of 8-4-4-4-12.
    private static func hexadecimal(_ bytes: UnsafeMutableRawBufferPointer) -> String {
        let digits: StaticString = "0123456789ABCDEF"
        var text = [UInt8]()
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(digits.utf8Start[Int(byte >> 4)])
            text.append(digits.utf8Start[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
