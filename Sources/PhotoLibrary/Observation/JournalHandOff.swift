import Synchronization
import LibraryStorage

/// The journal records of this handle's latest commits, handed from each commit to the delivery rounds in
/// memory, so that a round doesn't read back from SQLite the records its library just wrote.
///
/// A commit publishes its transaction and records once SQLite committed them (never a rolled-back one: its
/// sequence number goes to the next commit, perhaps another connection's). A round uses them only when they
/// are the whole journal of its interval: it still reads the journal's end, floor and transactions from its
/// own snapshot, and takes the records in memory only when every transaction in (start, end] is held here,
/// as the journal holds it, and none is pruned (start ≥ floor). Committed sequence numbers are never reused
/// (`AUTOINCREMENT`), so a held transaction is the one SQLite holds under its number. A commit from another
/// connection or process in the interval isn't held: the round then reads the journal, as it always did.
///
/// A round may even do without its snapshot (``memoryRound(after:current:)``): when the database's wal-index
/// header is still the one this handle's newest held commit left, nothing was committed since by anyone, so
/// the journal ends at that commit, with the floor that commit read.
///
/// Bounded: at most ``capacity`` transactions and ``recordCapacity`` records (the oldest go first), of at most
/// ``WriterRound/recordLimit`` records each; larger ones aren't held (a round of them reads the journal anyway).
final class JournalHandOff: Sendable {
    /// A committed transaction and its records, as a round reads them.
    struct Entry: Sendable {
        let transaction: JournalTransaction
        let records: JournalRecords
        /// SQLite only: the wal-index header as the commit left it, when it is known to be the commit's own
        /// (no other commit came between the commit's write lock and the header's reading).
        var walHeader: WALIndexHeader?
        /// SQLite only: the journal's floor at the commit (after the retention it applied).
        var floor: Int64?
    }

    /// The journal's end and floor, and the transactions after `start` with their records, when nothing was
    /// committed since the newest held commit: its wal-index header is `current`, its floor is known and at
    /// most `start`, and every transaction after `start` is held. No transactions when `start` is that commit.
    /// Nil otherwise.
    ///
    /// - Complexity: O(*t* + *r*) for *t* transactions of *r* records.
    func memoryRound(after start: Int64, current: WALIndexHeader) -> (end: Int64, floor: Int64, transactions: [JournalTransaction], records: JournalRecords)? {
        let newest = entries.withLock { entries in entries.last.map { ($0.transaction.sequence, $0.walHeader, $0.floor) } }
        guard let (end, header, floor) = newest, header == current, let floor, start >= floor, start <= end else { return nil }
        if start == end { return (end, floor, [], JournalRecords(reservingBytes: 0)) }
        guard let held = interval(after: start, through: end) else { return nil }
        return (end, floor, held.transactions, held.records)
    }

    /// The most transactions held: as many as a tracked result may lag behind a round on the writer.
    static let capacity = Int(WriterRound.lagLimit)
    /// The most records held (a few hundred kilobytes of previous values and rows).
    static let recordCapacity = 4 * WriterRound.recordLimit

    /// Held transactions, ascending by sequence.
    private let entries = Mutex<[Entry]>([])

    /// SQLite only: the address of the first wal-index region of this handle's writer connection, as mapped in
    /// this process (0 until a commit notes it). It stays mapped as long as that connection is open in WAL
    /// mode: as long as the library's storage engine, which its observation center (this hand-off's owner)
    /// holds.
    private let walIndexAddress = Atomic<UInt>(0)

    /// Notes the region of the writer connection's wal-index, which ``currentWALHeader()`` reads.
    func noteWALIndex(_ region: UnsafeRawPointer) {
        walIndexAddress.store(UInt(bitPattern: region), ordering: .releasing)
    }

    /// The database's wal-index header now, read from the region a commit noted, from any thread (as SQLite's
    /// readers read it: both copies, which must agree); nil before a commit noted it or while a writer is
    /// rewriting it.
    func currentWALHeader() -> WALIndexHeader? {
        guard let region = UnsafeRawPointer(bitPattern: walIndexAddress.load(ordering: .acquiring)) else { return nil }
        return WALIndexHeader.read(region)
    }

    /// Whether a transaction of `recordCount` records is held when committed.
    static func holds(recordCount: Int) -> Bool {
        recordCount <= WriterRound.recordLimit
    }

    /// Holds a committed transaction. Call only once SQLite committed it.
    ///
    /// - Complexity: O(``capacity``) at worst (a commit that isn't the newest; the oldest dropped).
    func publish(_ entry: Entry) {
        guard Self.holds(recordCount: entry.records.records.count) else { return }
        entries.withLock { entries in
            // Commits are published in order on the writer; keep the order whatever happens.
            var index = entries.endIndex
            while index > entries.startIndex, entries[index - 1].transaction.sequence >= entry.transaction.sequence { index -= 1 }
            if index < entries.endIndex, entries[index].transaction.sequence == entry.transaction.sequence {
                entries[index] = entry
            } else {
                entries.insert(entry, at: index)
            }
            if entries.count > Self.capacity { entries.removeFirst(entries.count - Self.capacity) }
            var records = entries.reduce(0) { $0 + $1.records.records.count }
            while records > Self.recordCapacity {
                records -= entries.removeFirst().records.records.count
            }
        }
    }

    /// The transactions in (`start`, `end`] and their records, when every one of them is held; nil otherwise.
    ///
    /// - Complexity: O(*t* + *r*) for *t* transactions of *r* records (no copy for one transaction).
    func interval(after start: Int64, through end: Int64) -> (transactions: [JournalTransaction], records: JournalRecords)? {
        guard end > start, end - start <= Int64(Self.capacity) else { return nil }
        let held = entries.withLock { entries -> ArraySlice<Entry>? in
            guard let first = entries.firstIndex(where: { $0.transaction.sequence > start }) else { return nil }
            let count = Int(end - start)
            guard entries.count - first >= count else { return nil }
            let slice = entries[first..<(first + count)]
            // Ascending and unique: the interval's every sequence is held when the first and last are its bounds.
            guard slice.first!.transaction.sequence == start + 1, slice.last!.transaction.sequence == end else { return nil }
            return slice
        }
        guard let held else { return nil }
        var records = held.first!.records
        for entry in held.dropFirst() { records.append(entry.records) }
        return (held.map(\.transaction), records)
    }
}
