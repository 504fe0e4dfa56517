/// One numbered migration of `Schema/postgres/`, embedded at build time by the EmbedSchema plugin.
struct SchemaMigration: Sendable {
    let version: Int
    let name: String
    let sql: String

    /// FNV-1a (64 bits) of the SQL text, hexadecimal: recorded when applied, checked at every open.
    var checksum: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in sql.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}
