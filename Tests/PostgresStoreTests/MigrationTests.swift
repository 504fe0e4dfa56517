import Foundation
import PostgresNIO
import PostgresStore
import PostgresTestSupport
import Testing

@Suite("Migrations of Schema/postgres")
struct MigrationTests {
    @Test("opening twice applies each migration once")
    func idempotent() async throws {
        let url = try PostgresCluster.shared().makeDatabase()
        let first = try await PostgresStore.open(url: url)
        await first.close()
        let second = try await PostgresStore.open(url: url)
        let count = try await second.withConnection { connection in
            try await connection.run("SELECT count(*) FROM photosync_schema_migration").first?.decode(Int64.self)
        }
        #expect(count == Int64(coreSeriesVersions().count))
        let smartAlbums = try await second.withConnection { connection in
            try await connection.run("SELECT count(*) FROM asset_collection").first?.decode(Int64.self)
        }
        #expect(smartAlbums == 8, "the seed rows of migration 1 were inserted once")
        await second.close()
    }

    @Test("processes opening a new database at once all succeed, and it is migrated once")
    func concurrentOpens() async throws {
        let url = try PostgresCluster.shared().makeDatabase()
        let stores = try await withThrowingTaskGroup(of: PostgresStore.self) { group in
            for _ in 0..<8 { group.addTask { try await PostgresStore.open(url: url) } }
            var stores: [PostgresStore] = []
            for try await store in group { stores.append(store) }
            return stores
        }
        let (migrations, smartAlbums) = try await stores[0].withConnection { connection in
            (
                try await connection.run("SELECT count(*) FROM photosync_schema_migration").first?.decode(Int64.self),
                try await connection.run("SELECT count(*) FROM asset_collection").first?.decode(Int64.self)
            )
        }
        #expect(migrations == Int64(coreSeriesVersions().count))
        #expect(smartAlbums == 8)
        for store in stores { await store.close() }
    }

    @Test("a database migrated by a newer build is refused with schemaTooNew")
    func tooNew() async throws {
        let url = try PostgresCluster.shared().makeDatabase()
        let store = try await PostgresStore.open(url: url)
        try await store.withConnection { connection in
            try await connection.run("INSERT INTO photosync_schema_migration (version, name, checksum) VALUES (999, 'future', 'x')")
        }
        await store.close()
        let thrown = await error { try await PostgresStore.open(url: url) }
        #expect(thrown as? PostgresStoreError == .schemaTooNew(found: 999, known: PostgresMigrator.knownVersion))
    }

    @Test("an applied migration that differs from this build's is refused with migrationChanged")
    func changed() async throws {
        let url = try PostgresCluster.shared().makeDatabase()
        let store = try await PostgresStore.open(url: url)
        try await store.withConnection { connection in
            try await connection.run("UPDATE photosync_schema_migration SET checksum = 'edited' WHERE version = 2")
        }
        await store.close()
        let thrown = await error { try await PostgresStore.open(url: url) }
        #expect(thrown as? PostgresStoreError == .migrationChanged(version: 2, name: "0002_change_journal"))
    }
}
