import Foundation
import PostgresNIO
import PostgresStore
import PostgresTestSupport
import Testing

@Suite("Opening a PostgreSQL store")
struct ConnectionTests {
    @Test("a postgres:// URL opens the database and migrates it to the newest schema")
    func opens() async throws {
        try await withStore { store in
            let versions = try await store.withConnection { connection in
                try await connection.run("SELECT version FROM photosync_schema_migration ORDER BY version")
                    .map { try $0.decode(Int.self) }
            }
            #expect(versions == coreSeriesVersions())
            let smartAlbums = try await store.withConnection { connection in
                try await connection.run("SELECT count(*) FROM asset_collection WHERE type = 2")
                    .first?.decode(Int64.self)
            }
            #expect(smartAlbums == 8)
        }
    }

    @Test(
        "a malformed URL is an invalidURL error that says what is wrong",
        arguments: [
            ("mysql://u@localhost/db", "scheme"),
            ("postgres://localhost/db", "user"),
            ("postgres://u@localhost", "database"),
            ("postgres://u@localhost/a/b", "one database"),
            ("postgres://u@localhost:70000/db", "port"),
            ("postgres://u@localhost/db?sslmode=maybe", "sslmode"),
            ("postgres://u@localhost/db?timeout=3", "unknown parameter"),
            ("postgres://u@/db?host=relative/dir", "absolute"),
        ])
    func invalidURL(text: String, reason: String) async throws {
        let thrown = await error { try await PostgresStore.open(url: URL(string: text)!) }
        guard case .invalidURL(_, let message)? = thrown as? PostgresStoreError else {
            Issue.record("expected invalidURL, got \(String(describing: thrown))")
            return
        }
        #expect(message.contains(reason), "\(message)")
    }

    @Test("the password never appears in an invalid URL's error")
    func passwordRedacted() async {
        let thrown = await error { try await PostgresStore.open(url: URL(string: "postgres://u:secret@localhost/db?x=1")!) }
        #expect(thrown != nil)
        #expect(!"\(thrown!)".contains("secret"))
    }

    @Test("URLs with a unix socket directory, percent-escapes and IPv6 hosts are read as libpq reads them")
    func urlForms() throws {
        let socket = try PostgresConfiguration(url: URL(string: "postgresql://me@/photos?host=/run/pg&sslmode=disable")!)
        #expect(socket.endpoint == .unixSocket(directory: "/run/pg", port: 5432))
        #expect(socket.tls == .disable)
        let escaped = try PostgresConfiguration(url: URL(string: "postgres://me:p%40ss@[::1]:6543/my%20db")!)
        #expect(escaped.password == "p@ss")
        #expect(escaped.database == "my db")
        #expect(escaped.endpoint == .tcp(host: "::1", port: 6543))
    }

    @Test("a port nobody listens on is connectionRefused")
    func refused() async throws {
        let cluster = try PostgresCluster.shared()
        // The cluster's port plus one is free unless something else took it; a refused connection is all we need.
        let url = URL(string: "postgres://\(cluster.user):\(cluster.password)@127.0.0.1:1/postgres?sslmode=disable")!
        let thrown = await error { try await PostgresStore.open(url: url) }
        #expect(thrown as? PostgresStoreError == .connectionRefused(address: "127.0.0.1:1"), "\(String(describing: thrown))")
    }

    @Test("a wrong password is authenticationFailed")
    func wrongPassword() async throws {
        let cluster = try PostgresCluster.shared()
        let thrown = await error { try await PostgresStore.open(url: cluster.url(database: "postgres", password: "wrong")) }
        guard case .authenticationFailed(let user, _)? = thrown as? PostgresStoreError else {
            Issue.record("expected authenticationFailed, got \(String(describing: thrown))")
            return
        }
        #expect(user == cluster.user)
    }

    @Test("a database that does not exist is databaseDoesNotExist")
    func missingDatabase() async throws {
        let cluster = try PostgresCluster.shared()
        let thrown = await error { try await PostgresStore.open(url: cluster.url(database: "no_such_database")) }
        #expect(thrown as? PostgresStoreError == .databaseDoesNotExist("no_such_database"), "\(String(describing: thrown))")
    }
}
