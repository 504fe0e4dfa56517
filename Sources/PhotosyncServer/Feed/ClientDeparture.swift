import NIOCore
import Synchronization

/// Notices, while a request waits, that its client has gone: a browser tab closed, a client killed or
/// disconnected.
///
/// A waiting request writes nothing for up to a heartbeat interval (15 s), so a write failing is a late sign
/// of a departed client: it stays counted as waiting (`photosync_longpoll_waiting`, `photosync_sse_clients`)
/// and keeps its memory until then. The departure is seen as soon as the transport reports it instead: the
/// end of the connection's input (the peer's FIN — the server allows half-closed connections, so that
/// alone doesn't close the channel) or the connection's close (a reset). A client of a waiting request
/// sends nothing after its request (EventSource and HTTP clients don't pipeline behind a stream), so the end
/// of its input means it has gone — as nginx takes it too (a client "prematurely closed" the connection).
/// A peer that vanishes without a FIN or a reset (a machine unplugged) is still seen only at a failed write,
/// once the kernel gives up retransmitting.
///
/// The watch is a channel handler at the front of the connection's pipeline, added for the wait and removed
/// with the connection's next bytes after it. It assumes HTTP/1.1 (the server speaks nothing else; TLS is a proxy's): over HTTP/2 a stream's
/// input ends with its request, so a watch there would have to look at the connection, not the stream.
final class ClientDeparture: Sendable {
    private struct State {
        var departed = false
        var ended = false
        var action: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())
    private let watcher: Watcher

    private init() {
        watcher = Watcher()
        watcher.departure = self
    }

    /// Starts watching `channel` (one event-loop hop); nil when the channel is already closed.
    static func watch(_ channel: any Channel) async -> ClientDeparture? {
        let departure = ClientDeparture()
        do {
            try await channel.pipeline.addHandler(departure.watcher, position: .first).get()
        } catch {
            return nil
        }
        return departure
    }

    /// Stops watching. The handler leaves the pipeline when the connection's next bytes pass it (the next
    /// request), on the event loop: ending a wait costs no hop to the event loop — the wake-up of 10,000
    /// long-polls ends 10,000 watches —, and a connection that sends nothing more keeps an inert handler
    /// until it closes.
    func end() {
        state.withLock { state in
            state.ended = true
            state.action = nil
        }
    }

    /// Whether ``end()`` was called.
    fileprivate var hasEnded: Bool { state.withLock { $0.ended } }

    /// Whether the client has gone.
    var hasDeparted: Bool { state.withLock { $0.departed } }

    /// Calls `action` once when the client departs — now, if it has already. Replaces an earlier action.
    func onDeparture(_ action: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if state.departed { return true }
            state.action = action
            return false
        }
        if now { action() }
    }

    fileprivate func depart() {
        let action = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.departed else { return nil }
            state.departed = true
            defer { state.action = nil }
            return state.action
        }
        action?()
    }

    /// The handler: passes everything on, and reports the end of the input or the connection's close.
    private final class Watcher: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {
        // @unchecked: `departure` is set once, in ClientDeparture's init, before the handler is added to a
        // pipeline; afterwards it is only read, on the channel's event loop.
        typealias InboundIn = ByteBuffer

        weak var departure: ClientDeparture?

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            context.fireChannelRead(data)
            // The next request: the wait this handler watched for has ended (a client of a waiting request
            // sends nothing before its answer; bytes pipelined behind it pass while the watch goes on).
            if departure?.hasEnded ?? true { context.pipeline.syncOperations.removeHandler(context: context, promise: nil) }
        }

        func handlerAdded(context: ChannelHandlerContext) {
            if !context.channel.isActive { departure?.depart() }
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case .some(ChannelEvent.inputClosed) = event as? ChannelEvent { departure?.depart() }
            context.fireUserInboundEventTriggered(event)
        }

        func channelInactive(context: ChannelHandlerContext) {
            departure?.depart()
            context.fireChannelInactive()
        }
    }
}
