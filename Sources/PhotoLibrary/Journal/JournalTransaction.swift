import Foundation
import GRDB
import LibraryStorage

/// One transaction of the journal (a `change_transaction` row): what a commit appends and what every reader
/// makes tokens from.
///
/// The stamp is the one the commit stored (``ChangeToken/stamp(forDate:)`` of its date, computed once);
/// readers never derive it again from `date`.
struct JournalTransaction: Sendable, Equatable {
    let sequence: Int64
    let author: String
    /// Seconds since 1970.
    let date: Double
    /// The token stamp stored with the transaction.
    let stamp: Int64

    /// The columns the row initialisers read, in their order.
    static let columns = "seq, author, date, stamp"

    init(sequence: Int64, author: String, date: Double, stamp: Int64) {
        self.sequence = sequence
        self.author = author
        self.date = date
        self.stamp = stamp
    }

    /// Reads the row `columns` is on, selected with ``columns``.
    init(columns row: any SQLColumns) {
        self.init(sequence: row.int64(0), author: row.text(1), date: row.double(2), stamp: row.int64(3))
    }

    /// The token naming this transaction in the library `identity`.
    func token(library identity: UUID) -> ChangeToken {
        ChangeToken(libraryIdentity: identity, sequence: sequence, stamp: stamp)
    }
}
