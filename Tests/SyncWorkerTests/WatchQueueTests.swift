import FolderWatch
import Foundation
import Testing

@testable import SyncWorker

/// What one tick of the watch loop takes from the queue of the watcher's events.
@Suite("Sync worker: the watch queue")
struct WatchQueueTests {
    static let cookie = DiskWalker.cookiePrefix + "5C3F0E8A-1B1D-4C55-9A43-0D9B0E0A1F21"

    /// A cookie's event, then a file moved out of the tree, both received a moment ago.
    static func queue(at now: ContinuousClock.Instant) -> WatchQueue {
        let queue = WatchQueue()
        queue.add(.fileChanged(cookie), at: now)
        queue.add(.removed("a.jpg"), at: now)
        return queue
    }

    @Test("A cookie still in the root is a barrier: everything pending is taken at once, the cookie with it")
    func presentCookieIsABarrier() {
        let now = ContinuousClock.now
        let taken = Self.queue(at: now).take(
            at: now, settle: .seconds(1), openLimit: .seconds(30), requestMarker: { 1 }, cookieExists: { _ in true })
        #expect(taken.round.isBarrier)
        #expect(taken.ready == ["a.jpg"])
        #expect(taken.cookies == [Self.cookie])
    }

    @Test("A cookie whose file is gone (a pass recorded and removed it, or its waiter gave up) is dropped and makes no barrier: what is pending waits for its settle interval")
    func goneCookieIsNoBarrier() {
        let now = ContinuousClock.now
        let queue = Self.queue(at: now)
        var asked: [String] = []
        let taken = queue.take(
            at: now, settle: .seconds(1), openLimit: .seconds(30), requestMarker: { 1 },
            cookieExists: { asked.append($0); return false })
        #expect(asked == [Self.cookie])
        #expect(!taken.round.isBarrier)
        #expect(taken.ready.isEmpty)
        #expect(taken.cookies.isEmpty)
        #expect(taken.round.stillPending == ["a.jpg"])
        #expect(queue.state.withLock { $0.cookies.isEmpty })
        // Once settled, the path comes on its own, in a round that is no barrier.
        let later = queue.take(
            at: now + .seconds(1), settle: .seconds(1), openLimit: .seconds(30), requestMarker: { 2 }, cookieExists: { _ in true })
        #expect(!later.round.isBarrier && later.ready == ["a.jpg"])
    }

    @Test("A path retried (still being written) keeps the sequence number it was taken with: the floor the held files wait for does not pass it, in its own round or later ones")
    func retriedPathKeepsItsNumber() throws {
        let start = ContinuousClock.now
        let queue = WatchQueue()
        queue.add(.fileChanged("slow.jpg"), at: start)
        queue.add(.removed("p.jpg"), at: start + .milliseconds(500))
        let settle = Duration.seconds(1)
        let first = queue.take(
            at: start + settle, settle: settle, openLimit: .seconds(30), requestMarker: { 1 }, cookieExists: { _ in true })
        #expect(first.ready == ["slow.jpg"])
        let slow = try #require(first.round.sequence(takenWith: "slow.jpg"))
        let removed = try #require(first.round.pendingFloor)
        #expect(slow < removed)
        // The round found slow.jpg still being written: it counts as pending for the files this round holds…
        #expect(first.round.retrying(["slow.jpg"]).pendingFloor == slow)
        #expect(first.round.retrying(["other.jpg"]).pendingFloor == removed, "a path the round did not take")
        // …and for later rounds, with its old number.
        queue.retry(["slow.jpg"], of: first.round, at: start + settle)
        let second = queue.take(
            at: start + settle + .milliseconds(500), settle: settle, openLimit: .seconds(30), requestMarker: { 2 },
            cookieExists: { _ in true })
        #expect(second.ready == ["p.jpg"])
        #expect(second.round.pendingFloor == slow)
        #expect(second.round.stillPending == ["slow.jpg"])
    }
}
