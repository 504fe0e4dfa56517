import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// Thousands of HTTP connections, each sending one request and noting when a marker first arrives in its
/// response (the change in a long-poll's JSON, the `change` event of a stream) — a lean client, so that the
/// measurement is the server's.
final class WaitingClients: Sendable {
    private let arrivals: Mutex<[ContinuousClock.Instant?]>
    private let channels = Mutex<[any Channel]>([])
    private let arrived = Atomic<Int>(0)
    let count: Int

    init(count: Int) {
        self.count = count
        arrivals = Mutex(Array(repeating: nil, count: count))
    }

    /// Opens the connections, `batch` at a time, each sending `request` and watching for `marker`.
    func connect(port: Int, request: String, marker: String, batch: Int = 256) async throws {
        let bytes = Array(request.utf8), pattern = Array(marker.utf8)
        var index = 0
        while index < count {
            let range = index..<min(count, index + batch)
            try await withThrowingTaskGroup(of: (any Channel).self) { group in
                for slot in range {
                    group.addTask {
                        try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                            .channelInitializer { channel in
                                channel.eventLoop.makeCompletedFuture {
                                    try channel.pipeline.syncOperations.addHandler(
                                        MarkerHandler(request: bytes, marker: pattern) { [self] in self.arrive(slot) })
                                }
                            }
                            .connect(host: "127.0.0.1", port: port).get()
                    }
                }
                for try await channel in group { channels.withLock { $0.append(channel) } }
            }
            index = range.upperBound
        }
    }

    private func arrive(_ slot: Int) {
        let now = ContinuousClock.now
        let first = arrivals.withLock { arrivals -> Bool in
            guard arrivals[slot] == nil else { return false }
            arrivals[slot] = now
            return true
        }
        if first { arrived.add(1, ordering: .relaxed) }
    }

    /// How many connections have seen their marker.
    var arrivedCount: Int { arrived.load(ordering: .relaxed) }

    /// Each arrival's delay after `start`, sorted; missing ones left out.
    func delays(since start: ContinuousClock.Instant) -> [Duration] {
        arrivals.withLock { $0.compactMap { $0.map { $0 - start } } }.sorted()
    }

    func closeAll() async {
        for channel in channels.withLock({ $0 }) { try? await channel.close() }
    }
}

/// Sends the request when the connection is up; calls `onMarker` when the marker has arrived.
private final class MarkerHandler: ChannelInboundHandler, @unchecked Sendable {
    // @unchecked: the handler lives on its channel's event loop; its state is touched only there.
    typealias InboundIn = ByteBuffer

    private let request: [UInt8]
    private let marker: [UInt8]
    private let onMarker: @Sendable () -> Void
    private var received: [UInt8] = []
    private var seen = false

    init(request: [UInt8], marker: [UInt8], onMarker: @escaping @Sendable () -> Void) {
        self.request = request
        self.marker = marker
        self.onMarker = onMarker
    }

    func channelActive(context: ChannelHandlerContext) {
        guard !request.isEmpty else { return }
        context.writeAndFlush(NIOAny(ByteBuffer(bytes: request)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !seen else { return }
        let buffer = unwrapInboundIn(data)
        received += buffer.readableBytesView
        if received.count >= marker.count, Self.contains(received, marker) {
            seen = true
            onMarker()
        }
        if received.count > 64 * 1024 { received.removeFirst(received.count - marker.count) }
    }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if Array(haystack[start..<(start + needle.count)]) == needle { return true }
        }
        return false
    }
}
