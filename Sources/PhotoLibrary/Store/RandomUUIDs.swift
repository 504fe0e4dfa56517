import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Random (version 4) UUID strings, as `UUID().uuidString` writes them, from random bytes drawn 4 KiB at a
/// time: one system call per 256 identifiers, where Foundation's `UUID()` opens and reads `/dev/urandom` for
/// each — three system calls per asset an import or a scan creates.
enum RandomUUIDs {
    private struct Pool {
        var bytes = [UInt8](repeating: 0, count: 4096)
        var next = 4096
    }

    private static let pool = Mutex(Pool())

    /// A new identifier: 32 uppercase hexadecimal digits in groups of 8-4-4-4-12, version 4, RFC 4122
    /// variant.
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
        return withUnsafeMutableBytes(of: &uuid) { bytes in
            bytes[6] = bytes[6] & 0x0F | 0x40
            bytes[8] = bytes[8] & 0x3F | 0x80
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
}
