import Foundation
import GRDB
import Logging
public import LibraryStorage
import Synchronization

/// Commit hints through PostgreSQL's `LISTEN`/`NOTIFY`.
///
/// - **Publishing** runs `SELECT pg_notify('photosync_commits', source)` inside the write transaction:
///   PostgreSQL delivers a notification when — and only if — its transaction commits, after the commit is
///   visible, so a woken waiter's re-check sees the commit, and a writer killed right after its commit has
///   sent its hint already. It costs one statement in the transaction and no connection more. The price:
///   PostgreSQL serialises the commits of notifying transactions cluster-wide (a lock taken at commit), which
///   a library's writers are anyway (``PostgresEngine/writerLockKey``); and a notification queue filled by a
///   listener that stopped reading for days (8 GB by default; PostgreSQL warns at half full, naming the
///   process) would fail commits. A `pg_notify` after the commit, in a transaction of its own, would add a
///   round trip and a WAL flush to every commit and lose the hint of a writer killed between the two.
/// - **Listening**: each subscription holds a connection of its own (``PostgresCommitListener``; it appears
///   in `pg_stat_activity` as the URL's `application_name` followed by ` listener`).
/// - **The channel** is one name for every library: `NOTIFY` reaches only the sessions of the database it
///   runs in, and a library is a whole database, so libraries sharing a cluster never hear each other.
/// - **The payload** names the engine that published (a random identifier per engine): a subscription skips
///   its own engine's hints, since the library signals its own commits directly.
///
/// ``close()`` cancels the subscriptions still alive.
final class PostgresCommitSignals: Sendable {
    /// The channel every library's hints travel on (scoped by the database, see the type's discussion).
    static let channel = "photosync_commits"

    /// This engine's hints' payload.
    let source = UUID().uuidString
    private let subscriptions = Mutex<[WeakSubscription]>([])

    private struct WeakSubscription {
        weak var listener: PostgresCommitListener?
    }

    /// Starts a subscription (see ``CommitSignaling/subscribeToCommitSignals(_:)``).
    func subscribe(
        _ configuration: PostgresConfiguration, logger: Logger, timing: PostgresCommitListener.Timing = .init(),
        onSignal: @escaping @Sendable () -> Void
    ) -> PostgresCommitListener {
        let listener = PostgresCommitListener(
            channel: Self.channel, source: source, configuration: configuration, logger: logger, timing: timing,
            onSignal: onSignal)
        subscriptions.withLock { subscriptions in
            subscriptions.removeAll { $0.listener == nil }
            subscriptions.append(WeakSubscription(listener: listener))
        }
        return listener
    }

    /// Cancels every subscription still alive.
    func close() {
        for subscription in subscriptions.withLock({ subscriptions in defer { subscriptions = [] }; return subscriptions }) {
            subscription.listener?.cancel()
        }
    }
}

extension PostgresEngine: CommitSignaling {
    public func publishCommitSignal(in db: any SQLConnection) throws {
        try db.execute(
            sql: "SELECT pg_notify(?, ?)", arguments: [PostgresCommitSignals.channel, commitSignals.source])
    }

    public func subscribeToCommitSignals(_ onSignal: @escaping @Sendable () -> Void) -> any CommitSignalSubscription {
        commitSignals.subscribe(store.configuration, logger: store.logger, onSignal: onSignal)
    }
}
