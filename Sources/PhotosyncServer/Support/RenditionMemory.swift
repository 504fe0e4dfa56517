import NIOCore
import Synchronization

/// Renditions' bytes in memory, least recently used out first, within a byte budget.
///
/// A rendition's URL is immutable (named by its source's content hash and its size, mode and format), so
/// its bytes, once rendered, are those of every later request: they can be kept without ever being stale.
/// The image manager's rendition cache on disk still holds them all; this spares the hottest ones its file
/// read and request machinery.
final class RenditionMemory: Sendable {
    private struct Entry {
        let bytes: ByteBuffer
        var used: UInt64
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var total = 0
        var clock: UInt64 = 0
    }

    let budget: Int
    private let state = Mutex(State())

    init(budget: Int = 64 << 20) {
        self.budget = budget
    }

    func bytes(for key: String) -> ByteBuffer? {
        state.withLock { state in
            guard var entry = state.entries[key] else { return nil }
            state.clock += 1
            entry.used = state.clock
            state.entries[key] = entry
            return entry.bytes
        }
    }

    /// Keeps `bytes` under `key`, evicting the least recently used past the budget.
    ///
    /// - Complexity: O(1), plus O(*n*) in the entries kept when it evicts.
    func store(_ bytes: ByteBuffer, for key: String) {
        guard bytes.readableBytes <= budget / 8 else { return }
        state.withLock { state in
            state.clock += 1
            if let old = state.entries.updateValue(Entry(bytes: bytes, used: state.clock), forKey: key) {
                state.total -= old.bytes.readableBytes
            }
            state.total += bytes.readableBytes
            while state.total > budget, let oldest = state.entries.min(by: { $0.value.used < $1.value.used }) {
                state.entries[oldest.key] = nil
                state.total -= oldest.value.bytes.readableBytes
            }
        }
    }
}
