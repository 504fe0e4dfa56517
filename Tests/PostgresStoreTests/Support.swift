import Foundation
import PostgresStore
import PostgresTestSupport
import Testing
import PostgresNIO
import Logging

/// A store on a fresh database of this process's test cluster. The cluster not starting fails the test.
func makeStore() async throws -> PostgresStore {
    let url = try PostgresCluster.shared().makeDatabase()
    return try await PostgresStore.open(url: url)
}

/// Runs `body` with a store on a fresh database, and closes the store.
func withStore(_ body: (PostgresStore) async throws -> Void) async throws {
    let store = try await makeStore()
    do {
        try await body(store)
        await store.close()
    } catch {
        await store.close()
        throw error
    }
}

/// The error `body` throws, or nil.
func error<T>(_ body: () async throws -> T) async -> (any Error)? {
    do {
        _ = try await body()
        return nil
    } catch {
        return error
    }
}

let testLogger = Logger(label: "photosync.tests")

extension PostgresConnection {
    /// Runs a query and collects its rows.
    @discardableResult
    func run(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await self.query(query, logger: testLogger).collect()
    }
}
