import FetchPredicate
import GRDB

/// SQL functions every connection of a library has: the predicate language's string matching.
enum LibraryFunctions {
    static func register(in db: Database) {
        PredicateFunctions.register(in: db)
    }
}
