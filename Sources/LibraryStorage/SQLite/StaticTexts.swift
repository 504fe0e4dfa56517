import GRDBSQLite

/// Texts bound to a statement of many rows without SQLite copying each one: they are copied, one after the
/// other, into one buffer, and bound from there as `SQLITE_STATIC`. SQLite would otherwise allocate and copy
/// every bound text (`SQLITE_TRANSIENT`): a scan's batches bind several per file.
///
/// The buffer must outlive the statement's use of the bindings: run the statement with
/// `executeBinding(parameterCount:clearingBindings: true)` and keep this object until that call returns.
/// A text that does not fit in what is left of the capacity is bound with a copy instead.
public final class StaticTexts {
    private let base: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    private var used = 0

    /// A buffer for `capacity` bytes of UTF-8 in all (the sum of the texts' `utf8.count`).
    public init(capacity: Int) {
        self.capacity = max(capacity, 1)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// Binds `text` (NULL when nil) to the 1-based parameter `index` of `statement`.
    public func bind(_ text: String?, to statement: OpaquePointer, at index: Int32) {
        guard var text else { return _ = sqlite3_bind_null(statement, index) }
        text.withUTF8 { utf8 in
            guard utf8.count <= capacity - used else {
                _ = sqlite3_bind_text(statement, index, utf8.baseAddress, Int32(utf8.count), sqliteTransient)
                return
            }
            let start = base + used
            if let source = utf8.baseAddress { start.update(from: source, count: utf8.count) }
            used += utf8.count
            // No destructor (`SQLITE_STATIC`): SQLite reads the text where it is until the binding goes.
            _ = sqlite3_bind_text(statement, index, UnsafeRawPointer(start).assumingMemoryBound(to: CChar.self), Int32(utf8.count), nil)
        }
    }
}
