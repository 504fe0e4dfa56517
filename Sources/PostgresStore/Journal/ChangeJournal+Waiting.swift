import Logging
import PostgresNIO

extension ChangeJournal {
    /// Waits until the journal's head passes `sequence`, or until `timeout` has passed.
    ///
    /// Other processes' commits wake the wait through `LISTEN`/`NOTIFY` on
    /// ``notificationChannel``. A notification is only a hint: the head is read again after each one (and
    /// once after listening starts, so a commit just before the call is not missed).
    ///
    /// The wait holds a connection of its own (not from the pool) while it lasts.
    ///
    /// - Returns: true when the head passed `sequence`; false at the timeout.
    /// - Throws: a connection or server error; `CancellationError` when the task is cancelled.
    public func waitForChanges(after sequence: Int64, timeout: Duration) async throws -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let connection = try await store.makeConnection()
        do {
            let result = try await connection.listen(on: Self.notificationChannel) { notifications in
                try await wait(after: sequence, until: deadline, notifications: notifications, connection)
            }
            try? await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw PostgresStoreError.map(error, store.configuration)
        }
    }

    private func wait(
        after sequence: Int64, until deadline: ContinuousClock.Instant, notifications: PostgresNotificationSequence,
        _ connection: PostgresConnection
    ) async throws -> Bool {
        let logger = store.logger
        while true {
            if try await Self.bounds(connection, logger: logger).head > sequence { return true }
            guard ContinuousClock.now < deadline else { return false }
            let notified = try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    var iterator = notifications.makeAsyncIterator()
                    return try await iterator.next() != nil
                }
                group.addTask {
                    try await Task.sleep(until: deadline, clock: .continuous)
                    return false
                }
                let first = try await group.next() ?? false
                group.cancelAll()
                return first
            }
            if !notified, try await Self.bounds(connection, logger: logger).head <= sequence { return false }
        }
    }
}
