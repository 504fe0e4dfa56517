/// One object's change inside a journaled transaction: a `change_record` row.
///
/// The codes are the SQLite journal's (`Schema/0002_change_journal.sql`): object types 1 asset, 2 asset
/// collection, 3 collection list; kinds 1 inserted, 2 updated, 3 deleted.
public struct JournalRecord: Sendable, Hashable {
    /// 1 asset, 2 asset collection, 3 collection list.
    public var objectType: Int16
    /// The object's internal id.
    public var objectId: Int64
    /// The object's public identifier.
    public var localIdentifier: String
    /// 1 inserted, 2 updated, 3 deleted.
    public var kind: Int16
    /// Bit set of the properties that changed.
    public var changedProperties: Int64
    /// Whether the object's content (its bytes) changed.
    public var contentChanged: Bool
    /// Updated and deleted objects: their values before, in the writer's encoding.
    public var previousValues: [UInt8]?

    public init(
        objectType: Int16, objectId: Int64, localIdentifier: String, kind: Int16, changedProperties: Int64 = 0,
        contentChanged: Bool = false, previousValues: [UInt8]? = nil
    ) {
        self.objectType = objectType
        self.objectId = objectId
        self.localIdentifier = localIdentifier
        self.kind = kind
        self.changedProperties = changedProperties
        self.contentChanged = contentChanged
        self.previousValues = previousValues
    }
}

/// A committed transaction of the journal, as read back: its sequence number, author, date, token stamp
/// and records.
public struct JournalEntry: Sendable, Hashable {
    /// The sequence number: strictly increasing in commit order, never reused.
    public let sequence: Int64
    /// Who made the change (an app, the sync worker…).
    public let author: String
    /// When it was committed, in seconds since 1970.
    public let date: Double
    /// The token stamp (the date in microseconds), stored with the row.
    public let stamp: Int64
    /// The records, ordered by object type and id.
    public let records: [JournalRecord]
}

/// A range of the journal read after a token: the entries, and the head they were read up to.
public struct JournalRange: Sendable, Hashable {
    /// The entries after the token, oldest first (at most the limit asked for).
    public let entries: [JournalEntry]
    /// The newest sequence number handed out when the range was read.
    public let head: Int64
    /// The sequence to continue from: the last entry's, or the token given when there was none.
    public let next: Int64
    /// Whether entries after ``next`` exist (the limit cut the range short).
    public var hasMore: Bool { next < head }
}
