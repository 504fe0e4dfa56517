import GRDB
import LibraryStorage

/// The connection of a delivery round read from memory alone (``ObservationCenter``, ``JournalHandOff``): it
/// has no snapshot to read, so any statement declines the round (``WriterRound/Declined``), which is then
/// read again in a read transaction. It speaks SQLite's SQL but offers no SQLite connection: the fast paths
/// that would bind through SQLite's C API take the generic path, and decline there.
final class MemoryOnlyConnection: SQLConnection {
    var dialect: SQLDialect { .sqlite }
    var sqliteDatabase: Database? { nil }
    var changesCount: Int { 0 }

    func execute(sql: String, arguments: StatementArguments) throws {
        throw WriterRound.Declined()
    }

    func forEachRow(sql: String, arguments: StatementArguments, cached: Bool, _ body: (any SQLColumns) throws -> Bool) throws {
        throw WriterRound.Declined()
    }

    func fetchRows(sql: String, arguments: StatementArguments, cached: Bool) throws -> [Row] {
        throw WriterRound.Declined()
    }
}
